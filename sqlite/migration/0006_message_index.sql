-- Messages are full-text indexed after the append that stores them commits
-- (see index.go). fts_watermark holds the last messages.seq in
-- messages_fts; the rows after it are indexed in the background and before
-- any full-text search of messages.
--
-- What is indexed is kept on the row when it is not a stored column as is:
-- search_text is the content with the attachments' captions (NULL: the
-- content alone), search_dates the resolved dates as searched ("7 May 2023;
-- May 2023"; NULL: none).
ALTER TABLE messages ADD COLUMN search_text TEXT;
ALTER TABLE messages ADD COLUMN search_dates TEXT;

CREATE TABLE fts_watermark (
    name TEXT    PRIMARY KEY,
    seq  INTEGER NOT NULL
);
-- Messages stored before this migration were indexed by their append.
INSERT INTO fts_watermark (name, seq) SELECT 'messages', coalesce(max(seq), 0) FROM messages;
