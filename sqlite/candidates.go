package sqlite

import (
	"context"
	"encoding/json"
	"slices"
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
	keep := func(o *tenure.Object) bool { return f.Keep == nil || f.Keep(o) }
	all := func(objs []tenure.Object, err error) ([]tenure.Object, error) {
		if f.Withheld || err != nil {
			return objs, err
		}
		return slices.DeleteFunc(objs, func(o tenure.Object) bool { return !keep(&o) }), nil
	}
	scope, sargs := scopeFilter(f)
	if f.AsOfTx != nil {
		n := f.AsOfTx.UnixNano()
		return all(queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o WHERE o.tenant_id = ?
			AND o.tx_start <= ? AND (o.tx_end IS NULL OR o.tx_end > ?) AND `+scope+` ORDER BY o.seq`,
			append([]any{tenant, n, n}, sargs...)...))
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
	// The always leg is small and, for a trace that lists what the gates
	// withheld, left unfiltered; the limited legs are filtered before
	// their limits, so that they are spent on objects the principal can
	// see and never depend on the others.
	if err := add(all(queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o
		WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.always = 1 ORDER BY o.seq`, tenant))); err != nil {
		return nil, err
	}
	if len(f.Words) > 0 && f.Limit > 0 {
		// Ranked over what the principal may read (object_rank.go), so
		// every hit is one it keeps.
		seqs, err := objectHits(ctx, db, tenant, f, scope, sargs)
		if err != nil {
			return nil, err
		}
		if err := add(all(objectsBySeq(ctx, db, seqs))); err != nil {
			return nil, err
		}
	}
	if f.Foundation > 0 {
		// Foundation memories: pinned, then importance 3, newest first.
		if err := add(firstKept(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o
			WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.memory_rank > 0 AND `+scope+` ORDER BY o.memory_rank DESC, o.seq DESC LIMIT ?`,
			append([]any{tenant}, sargs...), f.Foundation, keep)); err != nil {
			return nil, err
		}
	}
	if f.Recent > 0 {
		if err := add(firstKept(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM objects o
			WHERE o.tenant_id = ? AND o.tx_end IS NULL AND `+scope+` ORDER BY o.seq DESC LIMIT ?`,
			append([]any{tenant}, sargs...), f.Recent, keep)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// firstKept returns the first n rows of query that keep keeps. The query
// takes args and then its LIMIT, which grows until n are kept or the rows
// run out: one statement when every row is kept, the common case.
func firstKept(ctx context.Context, db querier, query string, args []any, n int, keep func(*tenure.Object) bool) ([]tenure.Object, error) {
	for limit := n; ; limit *= 4 {
		objs, err := queryObjects(ctx, db, query, append(slices.Clip(args), limit)...)
		if err != nil {
			return nil, err
		}
		rows := len(objs)
		kept := slices.DeleteFunc(objs, func(o tenure.Object) bool { return !keep(&o) })
		if len(kept) >= n || rows < limit {
			return kept[:min(n, len(kept))], nil
		}
	}
}

// objectsBySeq returns the objects of seqs, in their order.
func objectsBySeq(ctx context.Context, q querier, seqs []int64) ([]tenure.Object, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(seqs)
	if err != nil {
		return nil, err
	}
	return queryObjects(ctx, q, `SELECT o.seq, o.body, o.tx_end FROM json_each(?) j CROSS JOIN objects o ON o.seq = j.value ORDER BY j.key`, string(list))
}
