-- The full-text index of messages is partitioned by tenant and thread
-- through its rowids (see index.go): a message's rowid in messages_fts is
-- its thread's key shifted left by 22 bits, or'ed with its position in
-- the thread, and a thread's key is its tenant's number shifted left by
-- 20 bits, or'ed with the thread's number in the tenant. A search for one
-- thread (or one tenant) then asks FTS5 for a range of rowids, which FTS5
-- seeks to in each term's list, and scores and sorts only the rows in it.
-- Messages that do not fit (a tenant past the 2,097,151st, a thread past
-- its tenant's 1,048,575th, a position past 4,194,303) are indexed under
-- their negative seq and searched with a filter, as before; spill marks
-- their tenants.
CREATE TABLE fts_tenants (
    n         INTEGER PRIMARY KEY,
    tenant_id TEXT    NOT NULL UNIQUE,
    threads   INTEGER NOT NULL DEFAULT 0,
    spill     INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE fts_threads (
    key       INTEGER PRIMARY KEY,
    tenant_id TEXT    NOT NULL,
    thread_id TEXT    NOT NULL,
    UNIQUE (tenant_id, thread_id)
);
-- Rebuilt from the messages table, in the background and before the next
-- search, like any message appended since the last pass.
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5 (speaker, text, dates, tokenize = 'porter unicode61 remove_diacritics 2');
UPDATE fts_watermark SET seq = 0 WHERE name = 'messages';
