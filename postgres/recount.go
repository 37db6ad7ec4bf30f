package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// recountStatistics rebuilds, from every tenant's rows, what the store
// keeps beside them for ranking: the messages' BM25 statistics (fts_stats
// and fts_terms, migration 0006) and the objects' audience classes
// (object_classes and objects.fts_class, migration 0009), counted as those
// migrations count them.
const recountStatistics = `DELETE FROM fts_stats; DELETE FROM fts_terms;
	INSERT INTO fts_stats (tenant_id, user_id, persona_id, project_id, docs, lexemes)
	SELECT tenant_id, user_id, persona_id, project_id, count(*), coalesce(sum(length(tsv)), 0) FROM messages
	GROUP BY tenant_id, user_id, persona_id, project_id;
	INSERT INTO fts_terms (tenant_id, lexeme, user_id, persona_id, project_id, docs)
	SELECT m.tenant_id, u.lexeme, m.user_id, m.persona_id, m.project_id, count(*)
	FROM messages m CROSS JOIN LATERAL unnest(m.tsv) u GROUP BY m.tenant_id, u.lexeme, m.user_id, m.persona_id, m.project_id;
	DELETE FROM object_classes; UPDATE objects SET fts_class = 0 WHERE fts_class <> 0;
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
	WHERE o.seq = a.seq`

// RecountStatistics rebuilds the ranking statistics the store keeps
// beside its rows (BM25 statistics of messages, audience classes of
// objects) from every tenant's rows, in one transaction on c. A copy that
// writes rows directly, as tenure migrate does, runs it after; c's role
// must be allowed to read and write every tenant's rows.
func RecountStatistics(ctx context.Context, c *pgx.Conn) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT set_config('tenure.system', 'on', true)`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, recountStatistics); err != nil {
		return fmt.Errorf("recount statistics: %w", err)
	}
	return tx.Commit(ctx)
}
