package compile

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/reconcile"
)

// Entity cards.
const (
	// maxCards bounds the cards of one memory section.
	maxCards = 5
	// cardFacts is how many facts a card holds.
	cardFacts = memory.CardSize
)

// EntityCard is an entity card of the memory section: up to three facts
// about one entity, rendered "[person:john]: fact1; fact2; fact3" at the
// top of the section.
type EntityCard struct {
	Entity string `json:"entity"`
	// Facts are the ids of the memories on the card, in card order.
	Facts []string `json:"facts"`
	// Status is "added" or "dropped_for_budget".
	Status string `json:"status"`
}

// Card statuses.
const (
	CardAdded   = "added"
	CardDropped = "dropped_for_budget"
)

// cardEntities returns the entities cards are built for, in card order:
// those the query names, then those of the memories in order (the ranked
// memory blocks), refs with a type only.
func (r *run) cardEntities(memories func(yield func(*item) bool)) []string {
	var entities []string
	seen := map[string]bool{}
	add := func(ref string) {
		if !seen[ref] && strings.Contains(ref, ":") {
			seen[ref] = true
			entities = append(entities, ref)
		}
	}
	for _, ref := range r.mentioned {
		add(ref)
	}
	for it := range memories {
		if it.obj.Memory != nil && it.fill == "" {
			for _, ref := range it.obj.Memory.EntityRefs {
				add(ref)
			}
		}
	}
	return entities
}

// lookUpFacts asks a FactSource for the card facts of the entities the
// cards may be built for (the query's and those of the live memories, in
// rank order; at most twice as many as a section holds cards, for
// entities without facts are skipped). A compilation as of a past time
// keeps to its candidates.
func (r *run) lookUpFacts(ctx context.Context) error {
	fs, ok := r.c.src.(FactSource)
	if !ok || r.req.AsOf != nil {
		return nil
	}
	items := r.live(SectionMemory)
	sort.SliceStable(items, func(i, j int) bool { return better(items[i], items[j]) })
	refs := r.cardEntities(slices.Values(items))
	if len(refs) == 0 {
		return nil
	}
	refs = refs[:min(len(refs), 2*maxCards)]
	facts, err := fs.EntityFacts(ctx, tenure.EntityFactsQuery{Principal: r.p, Scope: r.scope, Refs: refs})
	if err != nil {
		return err
	}
	r.facts = facts
	return nil
}

// cardFact reports whether a memory looked up for a card may be rendered
// in this compilation: it passes every gate a candidate passes
// (permission, scope, thread, status, validity at the compilation's time,
// decay), and no candidate the principal can read holds its key with a
// preferred claim (one claim per key).
func (r *run) cardFact(o *tenure.Object, byKey map[string][]*item) bool {
	if o.TenantID != r.p.TenantID || !r.p.CanRead(o) || !r.scope.InScope(o) || !r.inThreads(o) ||
		o.Status != tenure.StatusActive || !o.Holds() || r.at.Before(o.ValidFrom) || !o.ValidAt(r.at) ||
		(o.Decayed(r.at) && !o.Memory.Pinned) {
		return false
	}
	for _, it := range byKey[o.Key] {
		if it.obj.ObjectID != o.ObjectID && r.p.CanRead(it.obj.Object) && reconcile.Prefer(r.c.opt.Hierarchy, it.obj.Object, o) < 0 {
			return false
		}
	}
	return true
}

// cardBlocks builds the entity cards of the memory section from its
// ranked blocks: for the entities the query names, then those of the
// selected memories in rank order, the card of each holds its top three
// memories of importance 2 or more, or pinned, that no card before it
// holds (pinned first, then
// importance, then the most recent), among the live memory candidates and
// the entity's memories the Source looked up (FactSource), so that a card
// is complete whatever the query retrieved. Facts are rendered by the
// untrusted-text renderer like every memory. Cards are packed first,
// within the memory allocation; the trace says which were added or
// dropped for budget.
func (r *run) cardBlocks(ranked []block) []block {
	r.cards = nil
	entities := r.cardEntities(func(yield func(*item) bool) {
		for _, b := range ranked {
			for _, it := range b.items {
				if !yield(it) {
					return
				}
			}
		}
	})
	if len(entities) == 0 {
		return nil
	}
	var facts []*tenure.Object
	dup := map[string]bool{}
	for _, it := range r.live(SectionMemory) {
		m := it.obj.Memory
		if it.origin == fromStore && m != nil && !dup[it.obj.ObjectID] && (m.Pinned || m.EffectiveImportance() >= tenure.ImportanceSignificant) {
			dup[it.obj.ObjectID] = true
			facts = append(facts, it.obj.Object)
		}
	}
	if len(r.facts) > 0 {
		byKey := map[string][]*item{}
		for _, it := range r.items {
			if it.origin == fromStore && it.obj.Memory != nil && it.docID == "" {
				byKey[it.obj.Key] = append(byKey[it.obj.Key], it)
			}
		}
		for _, ref := range entities {
			for i := range r.facts[ref] {
				o := &r.facts[ref][i]
				if !dup[o.ObjectID] && o.Memory != nil && r.cardFact(o, byKey) {
					dup[o.ObjectID] = true
					facts = append(facts, o)
				}
			}
		}
	}
	// The card order is memory.Compare's, the one the web inspector's
	// cards and tenure memories list use.
	slices.SortStableFunc(facts, memory.Compare)
	var blocks []block
	// A fact about two entities ("Nina's sister is named Julia") is on
	// the first of their cards only: a card says what no card before it
	// said.
	carded := map[string]bool{}
	for _, ref := range entities {
		if len(blocks) == maxCards {
			break
		}
		var card EntityCard
		var texts []string
		repeats := map[string]string{}
		for _, o := range facts {
			if len(texts) == cardFacts {
				break
			}
			if slices.Contains(o.Memory.EntityRefs, ref) && !carded[o.ObjectID] {
				carded[o.ObjectID] = true
				card.Facts = append(card.Facts, o.ObjectID)
				text := strings.TrimRight(inlineText(o.Content), ";")
				texts = append(texts, text)
				repeats[o.ObjectID] = "- " + text
			}
		}
		if len(texts) == 0 {
			continue
		}
		card.Entity, card.Status = ref, CardDropped
		r.cards = append(r.cards, card)
		blocks = append(blocks, block{text: "[" + inlineText(ref) + "]: " + strings.Join(texts, "; "), repeats: repeats})
	}
	return blocks
}

// repeated reports whether b, a memory line, says nothing a packed card
// of the section does not: its one memory is on the card and its line is
// the fact's text alone (no label, bound or review mark the card leaves
// out). Such a line is packed without its text, so that a fact is never
// rendered twice.
func repeated(b *block, packedCards []*block) bool {
	if len(b.items) != 1 {
		return false
	}
	it := b.items[0]
	for _, c := range packedCards {
		if line, ok := c.repeats[it.obj.ObjectID]; ok && line == it.line {
			return true
		}
	}
	return false
}

// traceCards records which cards the packed memory section holds (its
// first blocks are the cards).
func (r *run) traceCards(pl *plan) {
	for i := range r.cards {
		if slices.Contains(pl.packed, i) {
			r.cards[i].Status = CardAdded
		}
	}
	r.trace.EntityCards = r.cards
}
