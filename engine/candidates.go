package engine

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

// FoundationMemories is how many foundation memories (pinned, then of
// importance 3) every compilation considers, whatever its query.
const FoundationMemories = 20

// Candidates returns the objects a context compilation should consider
// (it implements compile.Source): only objects the principal may read in
// the scope, so that neither the candidates nor anything computed from
// them (the trace's counts) depends on an object it cannot read. A
// principal allowed full traces (trace:full) also gets the always-candidates
// it cannot read, for its trace to list as withheld. The compiler applies
// every gate again either way.
func (e *Engine) Candidates(ctx context.Context, q tenure.CandidateQuery) ([]tenure.Object, error) {
	p, err := e.principal(q.Principal)
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	s, err := q.Scope.Resolve(p)
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	words := retrieve.ContentWords(q.Text)
	limit := q.Limit
	if limit <= 0 {
		limit = 200
	}
	objs, err := e.b.Candidates(ctx, p.TenantID, CandidateFilter{Words: words, Limit: limit, Recent: limit / 4, Foundation: FoundationMemories,
		AsOfTx: q.AsOfTx, Scope: s, MaxClassRank: p.Clearance.Rank(),
		Keep: func(o *tenure.Object) bool { return tenure.Visible(p, s, o) }, Withheld: p.HasPermission(tenure.PermTraceFull)})
	if err == nil && q.AsOfTx == nil {
		objs, err = e.summaryCandidates(ctx, p, s, objs)
	}
	return objs, wrapIf("candidates", err)
}

// summaryCandidates adds what every compilation of a user starts from,
// matched or not: the user's summary spine and the summaries of the
// latest summarized sessions of the principal's persona (the compiler
// keeps the latest of the request's thread).
func (e *Engine) summaryCandidates(ctx context.Context, p tenure.Principal, s tenure.Scope, objs []tenure.Object) ([]tenure.Object, error) {
	keys := []string{SpineKey}
	recs, err := e.b.Sessions(ctx, p.TenantID, SessionFilter{Users: usersOf(s), Personas: personasOf(p), Summarized: true, Limit: 5})
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		keys = append(keys, r.SummaryKey)
	}
	have := make(map[string]bool, len(objs))
	for i := range objs {
		have[objs[i].ObjectID] = true
	}
	for _, k := range keys {
		vs, err := e.b.KeyVersions(ctx, p.TenantID, k, VersionQuery{Holding: true})
		if err != nil {
			return nil, err
		}
		for _, o := range vs {
			if o.Status == tenure.StatusActive && !have[o.ObjectID] && tenure.Visible(p, s, &o) {
				have[o.ObjectID] = true
				objs = append(objs, o)
			}
		}
	}
	return objs, nil
}
