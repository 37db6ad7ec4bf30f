package sqlite

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure/memory"
)

var _ memory.TargetLister = (*Store)(nil)

// CuratorTargets implements memory.TargetLister: the (tenant, user,
// persona) of open memories and of session states (user "" for memories
// of no user), after `after`, at most n. It reads every open memory's body: the
// scheduled curator calls it once per tick.
func (s *Store) CuratorTargets(ctx context.Context, after memory.Target, n int) ([]memory.Target, error) {
	db, err := (*backend)(s).reader()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `
SELECT tenant_id, user_id, persona_id FROM (
    SELECT tenant_id, COALESCE(json_extract(body, '$.user_id'), '') AS user_id,
           COALESCE(json_extract(body, '$.persona_id'), '') AS persona_id
      FROM objects
     WHERE tx_end IS NULL AND json_extract(body, '$.memory') IS NOT NULL
    UNION
    SELECT tenant_id, user_id, persona_id FROM session_states
)
WHERE (tenant_id, user_id, persona_id) > (?, ?, ?)
ORDER BY tenant_id, user_id, persona_id
LIMIT ?`, after.TenantID, after.UserID, after.PersonaID, n)
	if err != nil {
		return nil, fmt.Errorf("curator targets: %w", err)
	}
	defer rows.Close()
	var out []memory.Target
	for rows.Next() {
		var t memory.Target
		if err := rows.Scan(&t.TenantID, &t.UserID, &t.PersonaID); err != nil {
			return nil, fmt.Errorf("curator targets: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("curator targets: %w", err)
	}
	return out, nil
}
