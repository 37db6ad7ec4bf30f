-- A message is identified by its thread, its user and its id: each user
-- (and user_id '' for messages shared with the tenant) has a namespace of
-- ids in a thread, so that one user's id never collides with another's
-- and an append never reveals a message its writer cannot read. SQLite
-- changes a UNIQUE constraint only by rebuilding the table; seq is kept
-- (messages_fts and fts_watermark refer to it) and so is every index.
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
    UNIQUE (tenant_id, thread_id, user_id, id)
);
INSERT INTO messages_new (seq, tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
    attachments, dates, created_at, tokens, search_text, search_dates)
SELECT seq, tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
    attachments, dates, created_at, tokens, search_text, search_dates FROM messages;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
CREATE INDEX messages_order ON messages (tenant_id, thread_id, created_at, pos);
CREATE INDEX messages_pos ON messages (tenant_id, thread_id, pos);
