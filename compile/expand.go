package compile

import (
	"context"
	"strings"

	"github.com/tenure-dev/tenure"
)

// NameExpander is a Source that knows the entities names denote: a
// compilation whose query names an entity searches for its other names
// too (after "Makesh" is merged into "Mukesh", a query about Mukesh finds
// what was written about Makesh). *engine.Engine implements it over the
// entity registry.
type NameExpander interface {
	// ExpandNames returns the names of q.Text that denote entities of the
	// registries q.Principal reads for q.Scope (exact alias, label or
	// surface form; never a fuzzy guess), each with the entity's other
	// names.
	ExpandNames(ctx context.Context, q tenure.NameQuery) ([]tenure.NameExpansion, error)
}

// FactSource is a Source that looks up the facts of entity cards by
// entity, so that a card is complete even when the query did not
// retrieve them. *engine.Engine implements it.
type FactSource interface {
	// EntityFacts returns, for each of q.Refs it looks up, the entity's
	// card facts q.Principal may read in q.Scope: pinned or of
	// importance 2 or more, in card order (pinned → importance →
	// recency), at most memory.CardSize.
	EntityFacts(ctx context.Context, q tenure.EntityFactsQuery) (map[string][]tenure.Object, error)
}

// expandNames sets the compilation's search text: the query and the other
// names of the entities it names, when the Source expands names. A
// compilation as of a past time is not expanded (the registry is read as
// it is now).
func (r *run) expandNames(ctx context.Context) error {
	ne, ok := r.c.src.(NameExpander)
	if !ok || r.req.AsOf != nil || strings.TrimSpace(r.req.Query) == "" {
		return nil
	}
	xs, err := ne.ExpandNames(ctx, tenure.NameQuery{Principal: r.p, Scope: r.scope, Text: r.req.Query})
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(r.req.Query)
	for _, x := range xs {
		for _, n := range x.Names {
			b.WriteString(" ")
			b.WriteString(n)
		}
	}
	r.search = b.String()
	r.trace.Retrieval.ExpandedNames = xs
	return nil
}
