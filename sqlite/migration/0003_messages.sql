-- Conversation messages: append-only session state. pos is the message's
-- position in its thread in append order (for neighbouring-turn lookups).
CREATE TABLE messages (
    seq         INTEGER PRIMARY KEY,
    tenant_id   TEXT    NOT NULL,
    thread_id   TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    pos         INTEGER NOT NULL,
    session_id  TEXT    NOT NULL,
    user_id     TEXT    NOT NULL DEFAULT '',
    project_id  TEXT    NOT NULL DEFAULT '',
    role        TEXT    NOT NULL,
    speaker     TEXT    NOT NULL DEFAULT '',
    content     TEXT    NOT NULL,
    attachments TEXT,
    dates       TEXT,
    created_at  INTEGER NOT NULL,
    tokens      INTEGER NOT NULL,
    UNIQUE (tenant_id, thread_id, id)
);
CREATE INDEX messages_order ON messages (tenant_id, thread_id, created_at, pos);
CREATE INDEX messages_pos ON messages (tenant_id, thread_id, pos);

-- Full-text index: speaker, text (content and captions) and the resolved
-- dates of temporal expressions, rowid = messages.seq.
CREATE VIRTUAL TABLE messages_fts USING fts5 (speaker, text, dates, tokenize = 'porter unicode61 remove_diacritics 2');
