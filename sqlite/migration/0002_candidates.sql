-- Columns and a full-text index for the context compiler's candidate
-- retrieval. Only open versions are indexed; rowid is objects.seq.
ALTER TABLE objects ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE objects ADD COLUMN project_id TEXT NOT NULL DEFAULT '';
ALTER TABLE objects ADD COLUMN task_id TEXT NOT NULL DEFAULT '';
ALTER TABLE objects ADD COLUMN sandbox_id TEXT NOT NULL DEFAULT '';
ALTER TABLE objects ADD COLUMN class_rank INTEGER NOT NULL DEFAULT 0;
-- always = 1 for objects that are candidates for every compile of their
-- scope (policies, constraints, identity, environment, tools, state).
ALTER TABLE objects ADD COLUMN always INTEGER NOT NULL DEFAULT 0;

CREATE INDEX objects_open_always ON objects (tenant_id, always) WHERE tx_end IS NULL AND always = 1;

CREATE VIRTUAL TABLE objects_fts USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2');
