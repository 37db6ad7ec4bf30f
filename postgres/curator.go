package postgres

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure/memory"
)

var _ memory.TargetLister = (*Store)(nil)

// CuratorTargets implements memory.TargetLister like the SQLite store:
// the (tenant, user, persona) of open memories and of session states
// (user "" for memories of no user), after `after` in byte order, at most
// n. It spans every tenant (a system read, see docs/postgres.md) and
// decodes every open memory's body: the scheduled curator calls it once
// per tick.
func (s *Store) CuratorTargets(ctx context.Context, after memory.Target, n int) ([]memory.Target, error) {
	var out []memory.Target
	err := (*backend)(s).read(ctx, system, func(q querier) error {
		rows, err := q.Query(ctx, `
SELECT tenant_id, user_id, persona_id FROM (
    SELECT tenant_id, user_id, COALESCE(b->>'persona_id', '') AS persona_id
      FROM (SELECT tenant_id, user_id, body::jsonb AS b FROM objects
             WHERE tx_end IS NULL AND strpos(body, '"memory":') > 0) o
     WHERE jsonb_typeof(b->'memory') = 'object'
    UNION
    SELECT tenant_id, user_id, persona_id FROM session_states
) t
WHERE (tenant_id COLLATE "C", user_id COLLATE "C", persona_id COLLATE "C") > ($1 COLLATE "C", $2 COLLATE "C", $3 COLLATE "C")
ORDER BY tenant_id COLLATE "C", user_id COLLATE "C", persona_id COLLATE "C"
LIMIT $4`, after.TenantID, after.UserID, after.PersonaID, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t memory.Target
			if err := rows.Scan(&t.TenantID, &t.UserID, &t.PersonaID); err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("curator targets: %w", err)
	}
	return out, nil
}
