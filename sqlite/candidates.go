package sqlite

import (
	"context"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// scopeFilter is the SQL prefilter for a scope and clearance, on columns
// of objects aliased o.
func scopeFilter(f engine.CandidateFilter) (string, []any) {
	s := f.Scope
	return `(o.user_id = '' OR o.user_id = ?) AND (o.project_id = '' OR o.project_id = ?)
		AND (o.session_id = '' OR o.session_id = ?) AND (o.task_id = '' OR o.task_id = ?)
		AND (o.sandbox_id = '' OR o.sandbox_id = ?) AND o.class_rank <= ?`,
		[]any{s.UserID, s.ProjectID, s.SessionID, s.TaskID, s.ScopeID, f.MaxClassRank}
}

// ftsQuery builds an FTS5 query matching any of the words, each quoted so
// that no word can be read as FTS syntax.
func ftsQuery(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

func (b *backend) Candidates(ctx context.Context, tenant string, f engine.CandidateFilter) ([]tenure.Object, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	scope, sargs := scopeFilter(f)
	if f.AsOfTx != nil {
		n := f.AsOfTx.UnixNano()
		return queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o WHERE o.tenant_id = ?
			AND o.tx_start <= ? AND (o.tx_end IS NULL OR o.tx_end > ?) AND `+scope+` ORDER BY o.seq`,
			append([]any{tenant, n, n}, sargs...)...)
	}
	var out []tenure.Object
	seen := map[string]bool{}
	add := func(objs []tenure.Object, err error) error {
		for _, o := range objs {
			if k := o.ObjectID; !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
		return err
	}
	// The always and recent legs are small and left unfiltered, so that
	// the compiler's own gates see (and count) what the scope and
	// permissions withhold; the full-text leg is prefiltered so that its
	// limit is spent on objects the principal can see.
	if err := add(queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o
		WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.always = 1 ORDER BY o.seq`, tenant)); err != nil {
		return nil, err
	}
	if len(f.Words) > 0 && f.Limit > 0 {
		// CROSS JOIN: drive from the full-text match, never from objects.
		if err := add(queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects_fts m
			CROSS JOIN objects o ON o.seq = m.rowid
			WHERE objects_fts MATCH ? AND o.tenant_id = ? AND `+scope+` ORDER BY m.rank LIMIT ?`,
			append(append([]any{ftsQuery(f.Words), tenant}, sargs...), f.Limit)...)); err != nil {
			return nil, err
		}
	}
	if f.Recent > 0 {
		if err := add(queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o
			WHERE o.tenant_id = ? AND o.tx_end IS NULL ORDER BY o.seq DESC LIMIT ?`, tenant, f.Recent)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
