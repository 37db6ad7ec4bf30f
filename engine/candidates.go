package engine

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

// Candidates returns the objects a context compilation should consider
// (it implements compile.Source). The compiler applies every gate again;
// the scope and clearance prefilter here only keeps the lexical limit from
// being spent on objects the principal cannot see.
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
	objs, err := e.b.Candidates(ctx, p.TenantID, CandidateFilter{Words: words, Limit: limit, Recent: limit / 4,
		AsOfTx: q.AsOfTx, Scope: s, MaxClassRank: p.Clearance.Rank()})
	return objs, wrapIf("candidates", err)
}
