-- Full-text ranking counts its statistics over what a search reads, not
-- over the whole index (see message_rank.go): each thread keeps the
-- number of its indexed messages (docs), their tokens in all columns as
-- FTS5 counted them (tokens), and how many of them name a user, persona
-- or project (scoped: when none does, every one is visible to whoever may
-- read the thread, and the totals are the statistics). The index is
-- rebuilt so that every thread's totals are counted, in the background
-- and before the next search, like any message appended since the last
-- pass.
ALTER TABLE fts_threads ADD COLUMN docs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE fts_threads ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE fts_threads ADD COLUMN scoped INTEGER NOT NULL DEFAULT 0;
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5 (speaker, text, dates, tokenize = 'porter unicode61 remove_diacritics 2');
UPDATE fts_watermark SET seq = 0 WHERE name = 'messages';
