-- Workflow context snapshots (docs/snapshots.md). A workflow is named by
-- its tenant and workflow_id; workflows whose audiences differ may share a
-- name, so the name is not unique: each principal works on the first
-- created among those it can see (seq orders them). Its audience (user,
-- classification, roles) lives in config with the rest of its settings.
CREATE TABLE workflows (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    uid         TEXT    NOT NULL UNIQUE,
    tenant_id   TEXT    NOT NULL,
    workflow_id TEXT    NOT NULL,
    config      TEXT    NOT NULL,
    open_round  INTEGER NOT NULL,
    converged   INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX workflows_by_name ON workflows (tenant_id, workflow_id, seq);

-- One row per closed round (round 0 when the workflow starts): the state
-- as canonical JSON and what closing the round did. Never updated.
CREATE TABLE workflow_rounds (
    workflow_seq INTEGER NOT NULL REFERENCES workflows (seq),
    round        INTEGER NOT NULL,
    state        TEXT    NOT NULL,
    report       TEXT,
    closed_at    INTEGER NOT NULL,
    PRIMARY KEY (workflow_seq, round)
);
CREATE INDEX workflow_rounds_by_time ON workflow_rounds (workflow_seq, closed_at);

-- The delta log: every delta ever accepted, never deleted (what clipping
-- takes out of a snapshot stays here). id is a hash of the delta's
-- content, so a repeated submission is one delta; status and reason say
-- what the close of its round made of it.
CREATE TABLE workflow_deltas (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    workflow_seq INTEGER NOT NULL REFERENCES workflows (seq),
    round        INTEGER NOT NULL,
    id           TEXT    NOT NULL,
    body         TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    reason       TEXT    NOT NULL DEFAULT '',
    UNIQUE (workflow_seq, id)
);
CREATE INDEX workflow_deltas_by_round ON workflow_deltas (workflow_seq, round, seq);
