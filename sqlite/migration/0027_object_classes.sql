-- Full-text ranking of objects counts its statistics over the objects the
-- reader may read, not over the whole index (see object_rank.go and
-- engine/objclass.go): the open objects of a tenant fall into audience
-- classes (the fields that decide who may read them, as JSON: audience),
-- each with its objects' count (docs) and tokens as FTS5 counted them
-- (tokens); objects.fts_class names an open object's class. The columns
-- beside audience repeat its scope and classification, for the scope's
-- prefilter. Empty classes are deleted. Classes written by the store encode their audience with
-- engine.Audience; those counted here encode it from the body, and may
-- split one audience in two classes, which ranks the same.
CREATE TABLE object_classes (
    id         INTEGER PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    audience   TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    project_id TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    task_id    TEXT    NOT NULL,
    sandbox_id TEXT    NOT NULL,
    class_rank INTEGER NOT NULL,
    docs       INTEGER NOT NULL,
    tokens     INTEGER NOT NULL,
    UNIQUE (tenant_id, audience)
);
ALTER TABLE objects ADD COLUMN fts_class INTEGER NOT NULL DEFAULT 0;

CREATE TEMP TABLE object_audiences AS
    SELECT o.seq, o.tenant_id, json_object('user_id', json_extract(o.body, '$.user_id'),
        'persona_id', json_extract(o.body, '$.persona_id'), 'project_id', json_extract(o.body, '$.project_id'),
        'session_id', json_extract(o.body, '$.session_id'), 'task_id', json_extract(o.body, '$.task_id'),
        'scope', json_extract(o.body, '$.scope'), 'scope_id', json_extract(o.body, '$.scope_id'),
        'security_classification', json_extract(o.body, '$.security_classification'),
        'permission_scope', json(coalesce(json_extract(o.body, '$.permission_scope'), '{}'))) AS audience,
        o.user_id, o.project_id, o.session_id, o.task_id, o.sandbox_id, o.class_rank
    FROM objects o WHERE o.tx_end IS NULL AND o.seq IN (SELECT id FROM objects_fts_docsize);
-- An object's tokens are its instances in the index (the docsize record
-- holds the same count as a varint, which SQL cannot read).
CREATE VIRTUAL TABLE temp.objects_vocab USING fts5vocab(main, objects_fts, instance);
CREATE TEMP TABLE object_tokens AS SELECT doc AS seq, count(*) AS tokens FROM temp.objects_vocab GROUP BY doc;
DROP TABLE temp.objects_vocab;
INSERT INTO object_classes (tenant_id, audience, user_id, project_id, session_id, task_id, sandbox_id, class_rank, docs, tokens)
    SELECT a.tenant_id, a.audience, min(a.user_id), min(a.project_id), min(a.session_id), min(a.task_id), min(a.sandbox_id),
        min(a.class_rank), count(*), coalesce(sum(t.tokens), 0)
    FROM object_audiences a LEFT JOIN object_tokens t ON t.seq = a.seq GROUP BY a.tenant_id, a.audience;
UPDATE objects SET fts_class = (SELECT c.id FROM object_audiences a JOIN object_classes c ON c.tenant_id = a.tenant_id AND c.audience = a.audience
    WHERE a.seq = objects.seq) WHERE seq IN (SELECT seq FROM object_audiences);
DROP TABLE object_audiences;
DROP TABLE object_tokens;
CREATE INDEX object_classes_scope ON object_classes (tenant_id, user_id, class_rank);
