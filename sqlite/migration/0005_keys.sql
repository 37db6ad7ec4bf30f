-- API keys of the HTTP server. Only the SHA-256 of a key's secret is kept;
-- the principal every request made with the key runs as is JSON.
-- Times are Unix nanoseconds (UTC).
CREATE TABLE api_keys (
    id         TEXT    PRIMARY KEY,
    hash       TEXT    NOT NULL UNIQUE,
    name       TEXT    NOT NULL DEFAULT '',
    tenant_id  TEXT    NOT NULL,
    principal  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);
