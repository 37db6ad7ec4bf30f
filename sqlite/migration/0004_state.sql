-- How far each background channel (state extraction, rolling summaries)
-- has read a thread. Advanced in the same transaction as what the channel
-- wrote, so a crash never skips or re-applies messages.
CREATE TABLE watermarks (
    tenant_id       TEXT    NOT NULL,
    thread_id       TEXT    NOT NULL,
    channel         TEXT    NOT NULL,
    last_created_at INTEGER NOT NULL,
    last_message_id TEXT    NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, thread_id, channel)
);
