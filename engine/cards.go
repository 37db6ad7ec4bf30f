package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/memory"
)

// EntityMemoryReader is a Backend that finds memories by entity ref (the
// facts of entity cards).
type EntityMemoryReader interface {
	// EntityMemories returns the open, active versions of the memories
	// naming ref among their entity refs within f.Scope and
	// f.MaxClassRank, pinned first, then of importance 3, then the most
	// recently written, looking at no more than n of them, less those
	// f.Keep refuses.
	EntityMemories(ctx context.Context, tenant, ref string, f CandidateFilter, n int) ([]tenure.Object, error)
}

// Card limits: how many entities one call looks up and how many of the
// memories naming an entity it reads.
const (
	// MaxCardEntities bounds the entities of one EntityFacts call.
	MaxCardEntities = 10
	// CardScan bounds the memories read per entity: the pinned and
	// importance-3 ones first, then the most recently written.
	CardScan = 256
)

// EntityFacts returns the facts of the entity cards of q.Refs (the first
// MaxCardEntities): for each, the top memory.CardSize of its memories
// pinned or of importance 2 or more that the principal may read in the
// scope, in memory.CardFacts' order (it implements the compiler's
// FactSource). A backend that cannot look memories up by entity answers
// nothing, and the compiler's cards keep to its candidates.
func (e *Engine) EntityFacts(ctx context.Context, q tenure.EntityFactsQuery) (map[string][]tenure.Object, error) {
	p, s, err := e.scoped(q.Principal, q.Scope)
	if err != nil {
		return nil, fmt.Errorf("entity facts: %w", err)
	}
	r, ok := e.b.(EntityMemoryReader)
	if !ok {
		return nil, nil
	}
	f := CandidateFilter{Scope: s, MaxClassRank: p.Clearance.Rank(), Keep: func(o *tenure.Object) bool {
		m := o.Memory
		return m != nil && (m.Pinned || m.EffectiveImportance() >= tenure.ImportanceSignificant) && tenure.Visible(p, s, o)
	}}
	out := map[string][]tenure.Object{}
	for _, ref := range q.Refs {
		if len(out) == MaxCardEntities {
			break
		}
		if _, done := out[ref]; done {
			continue
		}
		objs, err := r.EntityMemories(ctx, p.TenantID, ref, f, CardScan)
		if err != nil {
			return nil, wrap("entity facts", err)
		}
		out[ref] = memory.CardFacts(objs)
	}
	return out, nil
}

// ExpandNames returns the names of q.Text that denote entities of the
// registries the principal reads for the scope — the shared one and, for
// a scope with a user, that user's (whose objects resolve there) — with
// the entities' other names (entity.ExpandQuery: exact alias, label or
// surface form, never a fuzzy guess). A backend without a registry
// expands nothing.
func (e *Engine) ExpandNames(ctx context.Context, q tenure.NameQuery) ([]tenure.NameExpansion, error) {
	p, s, err := e.scoped(q.Principal, q.Scope)
	if err != nil {
		return nil, fmt.Errorf("expand names: %w", err)
	}
	r, ok := e.b.(EntityReader)
	if !ok {
		return nil, nil
	}
	regs := []string{""}
	if s.UserID != "" {
		own, err := readRegistries(p, s.UserID)
		if err != nil {
			return nil, fmt.Errorf("expand names: %w", err)
		}
		regs = append(own, regs...)
	}
	slugs := entity.QuerySlugs(q.Text)
	if len(slugs) == 0 {
		return nil, nil
	}
	// Only the entities with an alias the query names (the stores' name
	// index), not the whole registries.
	ents, err := r.EntityList(ctx, p.TenantID, EntityFilter{Registries: slices.Compact(regs), Slugs: slugs})
	if err != nil {
		return nil, wrap("expand names", err)
	}
	var out []tenure.NameExpansion
	for _, x := range entity.ExpandQuery(q.Text, ents) {
		out = append(out, tenure.NameExpansion{Name: x.Name, Entity: x.Entity, Names: x.Names})
	}
	return out, nil
}

// scoped validates a principal and resolves the scope it reads.
func (e *Engine) scoped(p tenure.Principal, s tenure.Scope) (tenure.Principal, tenure.Scope, error) {
	p, err := e.principal(p)
	if err != nil {
		return p, s, err
	}
	s, err = s.Resolve(p)
	return p, s, err
}
