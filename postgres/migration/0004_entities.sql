-- The entity registry (package entity, docs/entities.md), as SQLite's
-- migration 0011: one row per immutable version of an entity (registry:
-- the user whose registry holds it, '' for the tenant's shared one), the
-- operations with their undo, and the (attribute, first entity mention)
-- of open object versions. Row-level security as in 0002.
CREATE TABLE entities (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id TEXT    NOT NULL,
    registry  TEXT    NOT NULL,
    entity_id TEXT    NOT NULL,
    version   INTEGER NOT NULL,
    type      TEXT    NOT NULL,
    status    TEXT    NOT NULL,
    tx_start  BIGINT  NOT NULL,
    tx_end    BIGINT,
    body      TEXT    NOT NULL,
    UNIQUE (tenant_id, registry, entity_id, version)
);
CREATE UNIQUE INDEX entities_open ON entities (tenant_id, registry, entity_id) WHERE tx_end IS NULL;
CREATE INDEX entities_open_status ON entities (tenant_id, status) WHERE tx_end IS NULL;
CREATE INDEX entities_tx_start ON entities (tx_start);

CREATE TABLE entity_ops (
    id        TEXT   PRIMARY KEY,
    tenant_id TEXT   NOT NULL,
    registry  TEXT   NOT NULL,
    from_id   TEXT   NOT NULL,
    into_id   TEXT   NOT NULL,
    at        BIGINT NOT NULL,
    undone_at BIGINT,
    body      TEXT   NOT NULL
);
CREATE INDEX entity_ops_from ON entity_ops (tenant_id, registry, from_id);
CREATE INDEX entity_ops_into ON entity_ops (tenant_id, registry, into_id);
CREATE INDEX entity_ops_undone_at ON entity_ops (undone_at);

CREATE TABLE object_attributes (
    tenant_id TEXT NOT NULL,
    attribute TEXT NOT NULL,
    mention   TEXT NOT NULL,
    object_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, attribute, mention, object_id)
);
CREATE INDEX object_attributes_object ON object_attributes (tenant_id, object_id);

DO $$
DECLARE
    t text;
BEGIN
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON entities, entity_ops, object_attributes TO tenure_app');
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA %I TO tenure_app', current_schema());
    FOREACH t IN ARRAY ARRAY['entities', 'entity_ops', 'object_attributes'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_rows ON %I
            USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
            WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')$p$, t);
    END LOOP;
END
$$;
