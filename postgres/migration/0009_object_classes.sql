-- BM25 statistics of objects per audience class (see engine/objclass.go
-- and search.go): a tenant's open objects grouped by the fields that
-- decide who may read them (audience, as JSON), each class with its
-- objects' count (docs) and lexemes (the sum of length(tsv)); an open
-- object names its class in fts_class. A search sums the classes its
-- reader may read and matches only their objects, so that objects it may
-- not read never change how the ones it may rank (no existence oracle).
-- The columns beside audience repeat its scope and classification, for
-- the scope's prefilter. Classes the store writes encode their audience
-- with engine.Audience, those counted here from the body: one audience
-- may have two classes, which ranks the same. Empty classes are deleted.
-- Row-level security as in 0002; the backfill reads every tenant's rows.
SELECT set_config('tenure.system', 'on', true);
CREATE TABLE object_classes (
    id         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    audience   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    project_id TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    task_id    TEXT    NOT NULL,
    sandbox_id TEXT    NOT NULL,
    class_rank INTEGER NOT NULL,
    docs       BIGINT  NOT NULL,
    lexemes    BIGINT  NOT NULL,
    UNIQUE (tenant_id, audience)
);
ALTER TABLE objects ADD COLUMN fts_class BIGINT NOT NULL DEFAULT 0;

CREATE TEMP TABLE object_audiences ON COMMIT DROP AS
    SELECT o.seq, o.tenant_id, jsonb_build_object('user_id', b -> 'user_id', 'persona_id', b -> 'persona_id',
        'project_id', b -> 'project_id', 'session_id', b -> 'session_id', 'task_id', b -> 'task_id', 'scope', b -> 'scope',
        'scope_id', b -> 'scope_id', 'security_classification', b -> 'security_classification',
        'permission_scope', coalesce(b -> 'permission_scope', '{}'::jsonb))::text AS audience,
        o.user_id, o.project_id, o.session_id, o.task_id, o.sandbox_id, o.class_rank, length(o.tsv) AS lexemes
    FROM objects o CROSS JOIN LATERAL (SELECT o.body::jsonb AS b) x WHERE o.tx_end IS NULL;
INSERT INTO object_classes (tenant_id, audience, user_id, project_id, session_id, task_id, sandbox_id, class_rank, docs, lexemes)
    SELECT tenant_id, audience, min(user_id), min(project_id), min(session_id), min(task_id), min(sandbox_id), min(class_rank),
        count(*), coalesce(sum(lexemes), 0)
    FROM object_audiences GROUP BY tenant_id, audience;
UPDATE objects o SET fts_class = c.id FROM object_audiences a JOIN object_classes c ON c.tenant_id = a.tenant_id AND c.audience = a.audience
    WHERE o.seq = a.seq;
CREATE INDEX object_classes_scope ON object_classes (tenant_id, user_id, class_rank);

DO $$
BEGIN
    EXECUTE 'GRANT SELECT, INSERT, UPDATE, DELETE ON object_classes TO tenure_app';
    EXECUTE 'ALTER TABLE object_classes ENABLE ROW LEVEL SECURITY';
    EXECUTE 'ALTER TABLE object_classes FORCE ROW LEVEL SECURITY';
    EXECUTE $p$CREATE POLICY tenant_rows ON object_classes
        USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
        WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')$p$;
END
$$;
