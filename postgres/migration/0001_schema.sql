-- Tenure's PostgreSQL schema, the SQLite store's tables (sqlite/migration)
-- in one step. Times are Unix nanoseconds (UTC) in BIGINT columns, as in
-- SQLite, so that a database moved over keeps every time exactly.
--
-- Every table that holds a tenant's rows has tenant_id and row-level
-- security (see 0002_security.sql). Full-text search uses tsvector columns
-- generated from the text, with the configuration "tenure" below: the
-- Snowball English stemmer without a stop-word list, as close to SQLite's
-- FTS5 "porter unicode61" tokenizer as PostgreSQL's parser allows.

CREATE TEXT SEARCH DICTIONARY tenure_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION tenure (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION tenure ALTER MAPPING
    FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH tenure_stem;

-- Context objects: one row per immutable version; the object as JSON in body.
CREATE TABLE objects (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id   TEXT    NOT NULL,
    object_id   TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    layer       TEXT    NOT NULL,
    object_type TEXT    NOT NULL,
    scope       TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    session_id  TEXT    NOT NULL DEFAULT '',
    user_id     TEXT    NOT NULL DEFAULT '',
    project_id  TEXT    NOT NULL DEFAULT '',
    task_id     TEXT    NOT NULL DEFAULT '',
    sandbox_id  TEXT    NOT NULL DEFAULT '',
    class_rank  INTEGER NOT NULL DEFAULT 0,
    always      BOOLEAN NOT NULL DEFAULT false,
    valid_from  BIGINT  NOT NULL,
    valid_until BIGINT,
    has_decay   BOOLEAN NOT NULL DEFAULT false,
    tx_start    BIGINT  NOT NULL,
    tx_end      BIGINT,
    body        TEXT    NOT NULL,
    -- search is what full-text search reads (tenure.Object.SearchText);
    -- only open versions are matched.
    search      TEXT    NOT NULL DEFAULT '',
    tsv         tsvector GENERATED ALWAYS AS (to_tsvector('tenure', left(search, 200000))) STORED,
    UNIQUE (tenant_id, object_id, version)
);
CREATE UNIQUE INDEX objects_open ON objects (tenant_id, object_id) WHERE tx_end IS NULL;
CREATE INDEX objects_key ON objects (tenant_id, key, tx_start);
CREATE INDEX objects_open_key ON objects (tenant_id, key, status) WHERE tx_end IS NULL;
CREATE INDEX objects_open_seq ON objects (tenant_id, seq) WHERE tx_end IS NULL;
CREATE INDEX objects_open_session ON objects (tenant_id, session_id, layer) WHERE tx_end IS NULL;
CREATE INDEX objects_open_always ON objects (tenant_id) WHERE tx_end IS NULL AND always;
CREATE INDEX objects_tx_start ON objects (tx_start);
CREATE INDEX objects_tx_end ON objects (tx_end);
CREATE INDEX objects_fts ON objects USING gin (tsv) WHERE tx_end IS NULL;

-- depends_on edges of open versions, for dependency repair.
CREATE TABLE object_deps (
    tenant_id TEXT NOT NULL,
    ref       TEXT NOT NULL,
    object_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, ref, object_id)
);
CREATE INDEX object_deps_object ON object_deps (tenant_id, object_id);

-- Hard deletes: the only deletion, always recorded. audience: who could
-- read the object (JSON; NULL: no one).
CREATE TABLE tombstones (
    tenant_id  TEXT    NOT NULL,
    object_id  TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    versions   INTEGER NOT NULL,
    deleted_at BIGINT  NOT NULL,
    deleted_by TEXT    NOT NULL,
    reason     TEXT    NOT NULL,
    audience   TEXT,
    PRIMARY KEY (tenant_id, object_id)
);
CREATE INDEX tombstones_key ON tombstones (tenant_id, key);
CREATE INDEX tombstones_deleted_at ON tombstones (deleted_at);

-- Requests to settle a conflict or confirm a claim; object_ids is a JSON
-- array of strings.
CREATE TABLE resolutions (
    id          TEXT    PRIMARY KEY,
    tenant_id   TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    slot        TEXT    NOT NULL,
    object_ids  JSONB   NOT NULL,
    reason      TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    resolved_at BIGINT,
    resolved_by TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX resolutions_open ON resolutions (tenant_id, slot) WHERE resolved_at IS NULL;
CREATE INDEX resolutions_tenant ON resolutions (tenant_id, created_at);
CREATE INDEX resolutions_created_at ON resolutions (created_at);
CREATE INDEX resolutions_resolved_at ON resolutions (resolved_at);

-- Conversation messages: append-only. pos orders a thread's messages in
-- append order; (tenant, thread, user, id) names one (user '' for shared).
CREATE TABLE messages (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id    TEXT    NOT NULL,
    thread_id    TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    pos          BIGINT  NOT NULL,
    session_id   TEXT    NOT NULL,
    user_id      TEXT    NOT NULL DEFAULT '',
    project_id   TEXT    NOT NULL DEFAULT '',
    role         TEXT    NOT NULL,
    speaker      TEXT    NOT NULL DEFAULT '',
    content      TEXT    NOT NULL,
    attachments  TEXT,
    dates        TEXT,
    created_at   BIGINT  NOT NULL,
    tokens       INTEGER NOT NULL,
    -- search_text: the content with the attachments' captions (NULL: the
    -- content alone); search_dates: the resolved dates as searched.
    search_text  TEXT,
    search_dates TEXT,
    -- Weights as SQLite's bm25(0.5, 1.0, 1.0): speaker B, text and dates A.
    tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('tenure', speaker), 'B') ||
        setweight(to_tsvector('tenure', left(coalesce(search_text, content), 200000)), 'A') ||
        setweight(to_tsvector('tenure', coalesce(search_dates, '')), 'A')) STORED,
    UNIQUE (tenant_id, thread_id, user_id, id)
);
CREATE INDEX messages_order ON messages (tenant_id, thread_id, created_at, pos);
CREATE INDEX messages_pos ON messages (tenant_id, thread_id, pos);
CREATE INDEX messages_tenant_seq ON messages (tenant_id, seq);
CREATE INDEX messages_fts ON messages USING gin (tsv);

-- Per-tenant totals for BM25: the messages and their lexemes.
CREATE TABLE fts_stats (
    tenant_id TEXT   NOT NULL PRIMARY KEY,
    docs      BIGINT NOT NULL,
    lexemes   BIGINT NOT NULL
);

-- How far each background channel has read a thread.
CREATE TABLE watermarks (
    tenant_id       TEXT   NOT NULL,
    thread_id       TEXT   NOT NULL,
    channel         TEXT   NOT NULL,
    last_created_at BIGINT NOT NULL,
    last_message_id TEXT   NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, thread_id, channel)
);

-- API keys: only the SHA-256 of a key's secret is kept.
CREATE TABLE api_keys (
    id         TEXT   PRIMARY KEY,
    hash       TEXT   NOT NULL UNIQUE,
    name       TEXT   NOT NULL DEFAULT '',
    tenant_id  TEXT   NOT NULL,
    principal  TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

-- Workflow context snapshots (docs/snapshots.md).
CREATE TABLE workflows (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uid         TEXT    NOT NULL UNIQUE,
    tenant_id   TEXT    NOT NULL,
    workflow_id TEXT    NOT NULL,
    config      TEXT    NOT NULL,
    open_round  INTEGER NOT NULL,
    converged   BOOLEAN NOT NULL DEFAULT false,
    created_at  BIGINT  NOT NULL,
    updated_at  BIGINT  NOT NULL
);
CREATE INDEX workflows_by_name ON workflows (tenant_id, workflow_id, seq);

CREATE TABLE workflow_rounds (
    tenant_id    TEXT    NOT NULL,
    workflow_seq BIGINT  NOT NULL REFERENCES workflows (seq),
    round        INTEGER NOT NULL,
    state        TEXT    NOT NULL,
    report       TEXT,
    closed_at    BIGINT  NOT NULL,
    PRIMARY KEY (workflow_seq, round)
);
CREATE INDEX workflow_rounds_by_time ON workflow_rounds (workflow_seq, closed_at);

CREATE TABLE workflow_deltas (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id    TEXT    NOT NULL,
    workflow_seq BIGINT  NOT NULL REFERENCES workflows (seq),
    round        INTEGER NOT NULL,
    id           TEXT    NOT NULL,
    body         TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    reason       TEXT    NOT NULL DEFAULT '',
    UNIQUE (workflow_seq, id)
);
CREATE INDEX workflow_deltas_by_round ON workflow_deltas (workflow_seq, round, seq);

-- Message embeddings (package semantic): one unit vector per model and
-- hash of the text sent with its audience (the hash covers the tenant, the
-- user and the text; no text is stored), little-endian float32s.
CREATE TABLE embeddings (
    id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model  TEXT    NOT NULL,
    hash   BYTEA   NOT NULL,
    dims   INTEGER NOT NULL,
    vector BYTEA   NOT NULL,
    UNIQUE (model, hash)
);

-- A message's vector of a model; embedding NULL: the endpoint refused it.
CREATE TABLE message_vectors (
    tenant_id TEXT   NOT NULL,
    seq       BIGINT NOT NULL,
    model     TEXT   NOT NULL,
    embedding BIGINT REFERENCES embeddings (id),
    PRIMARY KEY (seq, model)
);
