-- Messages name their thread by an integer key (message_threads.tkey)
-- in every index, instead of the tenant and thread ids: index entries
-- are shorter and compare as integers, and an append writes three
-- indexes instead of four (the web inspector's thread list reads the
-- order index, which now carries the thread's key first). The ids stay
-- on the row; a thread's key never changes. fts_threads gains the key
-- of the thread it numbers, so that a full-text match joins its message
-- on (tkey, pos).
CREATE TABLE message_threads (
    tkey      INTEGER PRIMARY KEY,
    tenant_id TEXT    NOT NULL,
    thread_id TEXT    NOT NULL,
    UNIQUE (tenant_id, thread_id)
);
INSERT INTO message_threads (tenant_id, thread_id)
SELECT tenant_id, thread_id FROM messages GROUP BY tenant_id, thread_id ORDER BY min(seq);
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
    tkey         INTEGER NOT NULL,
    UNIQUE (tkey, user_id, persona_id, id)
);
INSERT INTO messages_new (seq, tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
    attachments, dates, created_at, tokens, search_text, search_dates, persona_id, tkey)
SELECT m.seq, m.tenant_id, m.thread_id, m.id, m.pos, m.session_id, m.user_id, m.project_id, m.role, m.speaker, m.content,
    m.attachments, m.dates, m.created_at, m.tokens, m.search_text, m.search_dates, m.persona_id, t.tkey
FROM messages m JOIN message_threads t ON t.tenant_id = m.tenant_id AND t.thread_id = m.thread_id;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
CREATE INDEX messages_order ON messages (tkey, created_at, pos);
CREATE INDEX messages_pos ON messages (tkey, pos);
CREATE INDEX messages_persona ON messages (tkey, persona_id, pos) WHERE persona_id <> '';
ALTER TABLE fts_threads ADD COLUMN tkey INTEGER;
UPDATE fts_threads SET tkey = (SELECT t.tkey FROM message_threads t
    WHERE t.tenant_id = fts_threads.tenant_id AND t.thread_id = fts_threads.thread_id);
