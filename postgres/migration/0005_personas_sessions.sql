-- Personas, session records and session states (docs/sessions.md), as
-- SQLite's migrations 0022-0023; and the foundation memory rank of
-- SQLite's 0018. A message names the persona its conversation is with
-- ('' : none, visible to every persona of its user); each persona has a
-- namespace of message ids of its own within a user's. Objects keep their
-- persona in their body. Times are Unix nanoseconds. Row-level security
-- as in 0002.
ALTER TABLE messages ADD COLUMN persona_id TEXT NOT NULL DEFAULT '';
ALTER TABLE messages DROP CONSTRAINT messages_tenant_id_thread_id_user_id_id_key;
ALTER TABLE messages ADD CONSTRAINT messages_name UNIQUE (tenant_id, thread_id, user_id, persona_id, id);
-- The turns of a thread that one persona cannot read (another persona's):
-- empty unless personas are used.
CREATE INDEX messages_persona ON messages (tenant_id, thread_id, persona_id, pos) WHERE persona_id <> '';

-- memory_rank orders the foundation memories: 2 for a pinned memory, 1
-- for one of importance 3, 0 for anything else.
ALTER TABLE objects ADD COLUMN memory_rank INTEGER NOT NULL DEFAULT 0;
UPDATE objects SET memory_rank = CASE
        WHEN (body::jsonb #>> '{memory,pinned}') = 'true' THEN 2
        WHEN (body::jsonb #>> '{memory,importance}') = '3' THEN 1
        ELSE 0 END
    WHERE body::jsonb ? 'memory';
CREATE INDEX objects_open_memory_rank ON objects (tenant_id, memory_rank) WHERE tx_end IS NULL AND memory_rank > 0;

CREATE TABLE sessions (
    tenant_id        TEXT    NOT NULL,
    user_id          TEXT    NOT NULL,
    persona_id       TEXT    NOT NULL,
    thread_id        TEXT    NOT NULL,
    session_id       TEXT    NOT NULL,
    started_at       BIGINT  NOT NULL,
    last_activity_at BIGINT  NOT NULL,
    ended_at         BIGINT,
    turn_count       INTEGER NOT NULL,
    summary_key      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, user_id, persona_id, thread_id, session_id)
);
CREATE INDEX sessions_activity ON sessions (tenant_id, user_id, last_activity_at);
CREATE INDEX sessions_open ON sessions (tenant_id, user_id, persona_id, thread_id) WHERE ended_at IS NULL;

-- One state per user and persona; the curator and rolling-summary
-- diagnostics are JSON (tenure.SessionState's fields).
CREATE TABLE session_states (
    tenant_id         TEXT    NOT NULL,
    user_id           TEXT    NOT NULL,
    persona_id        TEXT    NOT NULL,
    message_count     INTEGER NOT NULL,
    last_interaction  BIGINT  NOT NULL,
    last_user_message TEXT    NOT NULL DEFAULT '',
    diagnostics       TEXT    NOT NULL DEFAULT '{}',
    PRIMARY KEY (tenant_id, user_id, persona_id)
);

DO $$
DECLARE
    t text;
BEGIN
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, session_states TO tenure_app');
    FOREACH t IN ARRAY ARRAY['sessions', 'session_states'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_rows ON %I
            USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
            WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')$p$, t);
    END LOOP;
END
$$;
