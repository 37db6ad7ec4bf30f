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

GRANT SELECT, INSERT, UPDATE, DELETE ON memory_entities TO tenure_app;
ALTER TABLE memory_entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_entities FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON memory_entities
    USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
    WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on');
