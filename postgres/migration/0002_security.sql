-- Tenant isolation in the database (docs/postgres.md). The store runs its
-- queries as tenure_app, a role that owns nothing and does not bypass
-- row-level security, and names the tenant of each transaction with
-- set_config('tenure.tenant', tenant, true). Every table that holds a
-- tenant's rows shows and accepts only that tenant's rows; a transaction
-- that names none sees none. A few operations are about no one tenant
-- (finding an API key by its hash, the transaction clock, the vectors'
-- backfill, moving a database over): they set tenure.system to 'on' for
-- their transaction, and only they do.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tenure_app') THEN
        BEGIN
            CREATE ROLE tenure_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL; -- another starter created it
        END;
    END IF;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO tenure_app', current_schema());
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO tenure_app', current_schema());
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA %I TO tenure_app', current_schema());
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON %I.schema_migrations FROM tenure_app', current_schema());
END
$$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['objects', 'object_deps', 'tombstones', 'resolutions', 'messages', 'fts_stats', 'watermarks',
        'api_keys', 'workflows', 'workflow_rounds', 'workflow_deltas', 'message_vectors'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_rows ON %I
            USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
            WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')$p$, t);
    END LOOP;
END
$$;
