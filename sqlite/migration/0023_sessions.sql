-- Session records and session states (docs/sessions.md), kept by the
-- engine as messages are appended. A session is a user's run of turns
-- with a persona ('' : none) in a thread; times are Unix nanoseconds.
CREATE TABLE sessions (
    tenant_id        TEXT    NOT NULL,
    user_id          TEXT    NOT NULL,
    persona_id       TEXT    NOT NULL,
    thread_id        TEXT    NOT NULL,
    session_id       TEXT    NOT NULL,
    started_at       INTEGER NOT NULL,
    last_activity_at INTEGER NOT NULL,
    ended_at         INTEGER,
    turn_count       INTEGER NOT NULL,
    summary_key      TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, user_id, persona_id, thread_id, session_id)
) WITHOUT ROWID;
CREATE INDEX sessions_activity ON sessions (tenant_id, user_id, last_activity_at);
CREATE INDEX sessions_open ON sessions (tenant_id, user_id, persona_id, thread_id) WHERE ended_at IS NULL;

-- One state per user and persona; the curator and rolling-summary
-- diagnostics are JSON (tenure.SessionState's fields).
CREATE TABLE session_states (
    tenant_id         TEXT    NOT NULL,
    user_id           TEXT    NOT NULL,
    persona_id        TEXT    NOT NULL,
    message_count     INTEGER NOT NULL,
    last_interaction  INTEGER NOT NULL,
    last_user_message TEXT    NOT NULL DEFAULT '',
    diagnostics       TEXT    NOT NULL DEFAULT '{}',
    PRIMARY KEY (tenant_id, user_id, persona_id)
) WITHOUT ROWID;
