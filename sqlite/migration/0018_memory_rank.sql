-- memory_rank orders the foundation memories that are candidates for every
-- compile of their scope (issue 18): 2 for a pinned memory, 1 for a memory
-- of importance 3, 0 for anything else.
ALTER TABLE objects ADD COLUMN memory_rank INTEGER NOT NULL DEFAULT 0;

UPDATE objects SET memory_rank = CASE
        WHEN json_extract(body, '$.memory.pinned') THEN 2
        WHEN json_extract(body, '$.memory.importance') = 3 THEN 1
        ELSE 0 END
    WHERE json_extract(body, '$.memory') IS NOT NULL;

CREATE INDEX objects_open_memory_rank ON objects (tenant_id, memory_rank) WHERE tx_end IS NULL AND memory_rank > 0;
