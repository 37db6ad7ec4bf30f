-- Message embeddings (package semantic). embeddings holds one vector per
-- model and text sent: the hash of the text with its audience (SHA-256 of
-- the tenant, the user and the text), its dimension and the unit vector
-- as little-endian float32s; a text embedded once is never sent again for
-- that model and audience, whichever message repeats it.
CREATE TABLE embeddings (
    id     INTEGER PRIMARY KEY,
    model  TEXT    NOT NULL,
    hash   BLOB    NOT NULL,
    dims   INTEGER NOT NULL,
    vector BLOB    NOT NULL,
    UNIQUE (model, hash)
);

-- message_vectors gives a message (messages.seq) its vector of a model;
-- embedding NULL records that the endpoint refused its text (or that it
-- has none), so that it is not sent again. A message without a row has
-- not been embedded yet: the next backfill embeds it.
CREATE TABLE message_vectors (
    seq       INTEGER NOT NULL,
    model     TEXT    NOT NULL,
    embedding INTEGER REFERENCES embeddings (id),
    PRIMARY KEY (seq, model)
) WITHOUT ROWID;
