-- Context objects: one row per immutable version. The full object is kept as
-- JSON in body; the columns beside it exist for indexing and filtering.
-- Times are Unix nanoseconds (UTC).
CREATE TABLE objects (
    seq         INTEGER PRIMARY KEY,
    tenant_id   TEXT    NOT NULL,
    object_id   TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    layer       TEXT    NOT NULL,
    object_type TEXT    NOT NULL,
    scope       TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    session_id  TEXT    NOT NULL DEFAULT '',
    valid_from  INTEGER NOT NULL,
    valid_until INTEGER,
    has_decay   INTEGER NOT NULL DEFAULT 0,
    tx_start    INTEGER NOT NULL,
    tx_end      INTEGER,
    body        TEXT    NOT NULL,
    UNIQUE (tenant_id, object_id, version)
);
-- Exactly one open version per object.
CREATE UNIQUE INDEX objects_open ON objects (tenant_id, object_id) WHERE tx_end IS NULL;
CREATE INDEX objects_key ON objects (tenant_id, key, tx_start);
CREATE INDEX objects_open_key ON objects (tenant_id, key, status) WHERE tx_end IS NULL;
CREATE INDEX objects_open_valid ON objects (tenant_id, key, valid_until) WHERE tx_end IS NULL;
CREATE INDEX objects_open_seq ON objects (tenant_id, seq) WHERE tx_end IS NULL;
CREATE INDEX objects_open_session ON objects (tenant_id, session_id, layer) WHERE tx_end IS NULL;
CREATE INDEX objects_tx_start ON objects (tx_start);

-- depends_on edges of open versions, for dependency repair.
CREATE TABLE object_deps (
    tenant_id TEXT NOT NULL,
    ref       TEXT NOT NULL,
    object_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, ref, object_id)
);
CREATE INDEX object_deps_object ON object_deps (tenant_id, object_id);

-- Hard deletes: the only deletion, always recorded.
CREATE TABLE tombstones (
    tenant_id  TEXT    NOT NULL,
    object_id  TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    versions   INTEGER NOT NULL,
    deleted_at INTEGER NOT NULL,
    deleted_by TEXT    NOT NULL,
    reason     TEXT    NOT NULL,
    PRIMARY KEY (tenant_id, object_id)
);
CREATE INDEX tombstones_key ON tombstones (tenant_id, key);
CREATE INDEX tombstones_deleted_at ON tombstones (deleted_at);

-- Requests for a person or tool to settle a conflict or confirm a claim.
CREATE TABLE resolutions (
    id          TEXT    PRIMARY KEY,
    tenant_id   TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    slot        TEXT    NOT NULL,
    object_ids  TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    resolved_at INTEGER,
    resolved_by TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX resolutions_open ON resolutions (tenant_id, slot) WHERE resolved_at IS NULL;
CREATE INDEX resolutions_tenant ON resolutions (tenant_id, created_at);
CREATE INDEX resolutions_created_at ON resolutions (created_at);
CREATE INDEX resolutions_resolved_at ON resolutions (resolved_at);
