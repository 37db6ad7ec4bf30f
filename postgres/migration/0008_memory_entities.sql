-- The entity refs of open memory versions (issue 18): an entity card
-- takes its facts from the memories naming the entity, found here rather
-- than among a compilation's candidates.
CREATE TABLE memory_entities (
    tenant_id  TEXT NOT NULL,
    entity_ref TEXT NOT NULL,
    object_id  TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_ref, object_id)
);
CREATE INDEX memory_entities_object ON memory_entities (tenant_id, object_id);

INSERT INTO memory_entities (tenant_id, entity_ref, object_id)
    SELECT o.tenant_id, r.value, o.object_id FROM objects o, jsonb_array_elements_text(o.body::jsonb -> 'memory' -> 'entity_refs') r(value)
    WHERE o.tx_end IS NULL AND o.body::jsonb -> 'memory' IS NOT NULL AND jsonb_typeof(o.body::jsonb -> 'memory' -> 'entity_refs') = 'array'
    ON CONFLICT DO NOTHING;

-- The name slugs of open entity versions (the slug part of each alias
-- key), so that a compilation finds the entities its query names without
-- reading a whole registry.
CREATE TABLE entity_names (
    tenant_id TEXT NOT NULL,
    registry  TEXT NOT NULL,
    slug      TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, registry, slug, entity_id)
);
CREATE INDEX entity_names_entity ON entity_names (tenant_id, registry, entity_id);

INSERT INTO entity_names (tenant_id, registry, slug, entity_id)
    SELECT e.tenant_id, e.registry, substr(a.value, strpos(a.value, ':') + 1), e.entity_id
    FROM entities e, jsonb_array_elements_text(e.body::jsonb -> 'aliases') a(value)
    WHERE e.tx_end IS NULL AND jsonb_typeof(e.body::jsonb -> 'aliases') = 'array'
    ON CONFLICT DO NOTHING;

DO $$
DECLARE
    t text;
BEGIN
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON memory_entities, entity_names TO tenure_app');
    FOREACH t IN ARRAY ARRAY['memory_entities', 'entity_names'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_rows ON %I
            USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
            WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')$p$, t);
    END LOOP;
END
$$;
