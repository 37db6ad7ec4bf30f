-- Personas (docs/sessions.md). A message names the persona its
-- conversation is with ('' : none, visible to every persona of its user);
-- each persona has a namespace of message ids of its own within a user's,
-- so that an append never reveals another persona's message. The table is
-- rebuilt as in 0008 (SQLite changes a UNIQUE constraint only so); seq is
-- kept, and so is every index. Objects keep their persona in their body.
CREATE TABLE messages_new (
    seq          INTEGER PRIMARY KEY,
    tenant_id    TEXT    NOT NULL,
    thread_id    TEXT    NOT NULL,
    id           TEXT    NOT NULL,
    pos          INTEGER NOT NULL,
    session_id   TEXT    NOT NULL,
    user_id      TEXT    NOT NULL DEFAULT '',
    project_id   TEXT    NOT NULL DEFAULT '',
    role         TEXT    NOT NULL,
    speaker      TEXT    NOT NULL DEFAULT '',
    content      TEXT    NOT NULL,
    attachments  TEXT,
    dates        TEXT,
    created_at   INTEGER NOT NULL,
    tokens       INTEGER NOT NULL,
    search_text  TEXT,
    search_dates TEXT,
    persona_id   TEXT    NOT NULL DEFAULT '',
    UNIQUE (tenant_id, thread_id, user_id, persona_id, id)
);
INSERT INTO messages_new (seq, tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
    attachments, dates, created_at, tokens, search_text, search_dates)
SELECT seq, tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
    attachments, dates, created_at, tokens, search_text, search_dates FROM messages;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
CREATE INDEX messages_order ON messages (tenant_id, thread_id, created_at, pos);
CREATE INDEX messages_pos ON messages (tenant_id, thread_id, pos);
-- The turns of a thread that one persona cannot read (another persona's):
-- empty unless personas are used.
CREATE INDEX messages_persona ON messages (tenant_id, thread_id, persona_id, pos) WHERE persona_id <> '';
