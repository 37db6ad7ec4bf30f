-- BM25 statistics per tenant and per view class: the messages' count and
-- lexemes (fts_stats) and, per lexeme, how many messages hold it
-- (fts_terms), kept by the appends for each (user, persona, project) a
-- message belongs to ('' : shared). A reader's statistics are the sum
-- over the classes it may read (user '' or its own, persona '' or its
-- own, project '' or its own), so that messages it may not read never
-- change how the ones it may rank (no existence oracle), and no tenant's
-- texts change another's ranking. A search restricted to a few threads
-- then reads the idf of its terms here instead of counting every match
-- of the tenant. Messages are never updated nor deleted. Row-level
-- security as in 0002.
DROP TABLE fts_stats;
CREATE TABLE fts_stats (
    tenant_id  TEXT   NOT NULL,
    user_id    TEXT   NOT NULL,
    persona_id TEXT   NOT NULL,
    project_id TEXT   NOT NULL,
    docs       BIGINT NOT NULL,
    lexemes    BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, user_id, persona_id, project_id)
);
INSERT INTO fts_stats (tenant_id, user_id, persona_id, project_id, docs, lexemes)
    SELECT tenant_id, user_id, persona_id, project_id, count(*), coalesce(sum(length(tsv)), 0) FROM messages
    GROUP BY tenant_id, user_id, persona_id, project_id;

CREATE TABLE fts_terms (
    tenant_id  TEXT   NOT NULL,
    lexeme     TEXT   NOT NULL,
    user_id    TEXT   NOT NULL,
    persona_id TEXT   NOT NULL,
    project_id TEXT   NOT NULL,
    docs       BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, lexeme, user_id, persona_id, project_id)
);
INSERT INTO fts_terms (tenant_id, lexeme, user_id, persona_id, project_id, docs)
    SELECT m.tenant_id, u.lexeme, m.user_id, m.persona_id, m.project_id, count(*)
    FROM messages m CROSS JOIN LATERAL unnest(m.tsv) u GROUP BY m.tenant_id, u.lexeme, m.user_id, m.persona_id, m.project_id;

GRANT SELECT, INSERT, UPDATE, DELETE ON fts_stats, fts_terms TO tenure_app;
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['fts_stats', 'fts_terms'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_rows ON %I
            USING (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')
            WITH CHECK (tenant_id = current_setting('tenure.tenant', true) OR current_setting('tenure.system', true) = 'on')$p$, t);
    END LOOP;
END
$$;
