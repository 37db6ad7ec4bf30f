-- The entity registry (package entity, docs/entities.md): one row per
-- immutable version of an entity; an operation closes the open version
-- (tx_end) and inserts the next. registry is the user whose own registry
-- holds the entity, '' for the tenant's shared one. The full entity is
-- kept as JSON in body. Times are Unix nanoseconds (UTC).
CREATE TABLE entities (
    seq       INTEGER PRIMARY KEY,
    tenant_id TEXT    NOT NULL,
    registry  TEXT    NOT NULL,
    entity_id TEXT    NOT NULL,
    version   INTEGER NOT NULL,
    type      TEXT    NOT NULL,
    status    TEXT    NOT NULL,
    tx_start  INTEGER NOT NULL,
    tx_end    INTEGER,
    body      TEXT    NOT NULL,
    UNIQUE (tenant_id, registry, entity_id, version)
);
-- Exactly one open version per entity.
CREATE UNIQUE INDEX entities_open ON entities (tenant_id, registry, entity_id) WHERE tx_end IS NULL;
CREATE INDEX entities_open_status ON entities (tenant_id, status) WHERE tx_end IS NULL;
-- The latest transaction time stored (LastTxTime).
CREATE INDEX entities_tx_start ON entities (tx_start);

-- Merges, links, splits and keeps, with their undo.
CREATE TABLE entity_ops (
    id        TEXT    PRIMARY KEY,
    tenant_id TEXT    NOT NULL,
    registry  TEXT    NOT NULL,
    from_id   TEXT    NOT NULL,
    into_id   TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    undone_at INTEGER,
    body      TEXT    NOT NULL
);
CREATE INDEX entity_ops_from ON entity_ops (tenant_id, registry, from_id);
CREATE INDEX entity_ops_into ON entity_ops (tenant_id, registry, into_id);
CREATE INDEX entity_ops_undone_at ON entity_ops (undone_at);

-- The (attribute, first entity mention key) of open object versions that
-- carry both, so that claims about one entity's attribute are found
-- whatever their keys.
CREATE TABLE object_attributes (
    tenant_id TEXT NOT NULL,
    attribute TEXT NOT NULL,
    mention   TEXT NOT NULL,
    object_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, attribute, mention, object_id)
);
CREATE INDEX object_attributes_object ON object_attributes (tenant_id, object_id);
