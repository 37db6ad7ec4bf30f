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
