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

INSERT OR IGNORE INTO memory_entities (tenant_id, entity_ref, object_id)
    SELECT o.tenant_id, r.value, o.object_id FROM objects o, json_each(o.body, '$.memory.entity_refs') r
    WHERE o.tx_end IS NULL AND json_extract(o.body, '$.memory') IS NOT NULL;

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

INSERT OR IGNORE INTO entity_names (tenant_id, registry, slug, entity_id)
    SELECT e.tenant_id, e.registry, substr(a.value, instr(a.value, ':') + 1), e.entity_id
    FROM entities e, json_each(e.body, '$.aliases') a WHERE e.tx_end IS NULL;
