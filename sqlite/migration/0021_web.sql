-- The web inspector's filters: objects by author (the WrittenBy of their
-- body), the latest versions newest first within a tenant.
CREATE INDEX objects_open_author ON objects (tenant_id, json_extract(body, '$.written_by'), seq) WHERE tx_end IS NULL;
-- Threads listed by their latest message.
CREATE INDEX messages_thread_latest ON messages (tenant_id, thread_id, user_id, created_at);
