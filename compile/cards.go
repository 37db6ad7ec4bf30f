package compile

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// Entity cards.
const (
	// maxCards bounds the cards of one memory section.
	maxCards = 5
	// cardFacts is how many facts a card holds.
	cardFacts = 3
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

// cardBlocks builds the entity cards of the memory section from its
// ranked blocks: for the entities the query names, then those of the
// selected memories in rank order, the card of each holds its top three
// memories of importance 2 or more, or pinned (pinned first, then
// importance, then the most recent), among the live memory candidates.
// Facts are rendered by the untrusted-text renderer like every memory.
// Cards are packed first, within the memory allocation; the trace says
// which were added or dropped for budget.
func (r *run) cardBlocks(ranked []block) []block {
	r.cards = nil
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
	for _, b := range ranked {
		for _, it := range b.items {
			if it.obj.Memory != nil && it.fill == "" {
				for _, ref := range it.obj.Memory.EntityRefs {
					add(ref)
				}
			}
		}
	}
	if len(entities) == 0 {
		return nil
	}
	var facts []*item
	dup := map[*tenure.Object]bool{}
	for _, it := range r.live(SectionMemory) {
		m := it.obj.Memory
		if it.origin == fromStore && m != nil && !dup[it.obj.Object] && (m.Pinned || m.EffectiveImportance() >= tenure.ImportanceSignificant) {
			dup[it.obj.Object] = true
			facts = append(facts, it)
		}
	}
	slices.SortStableFunc(facts, func(a, b *item) int {
		ma, mb := a.obj.Memory, b.obj.Memory
		if ma.Pinned != mb.Pinned {
			if ma.Pinned {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(mb.EffectiveImportance(), ma.EffectiveImportance()); c != 0 {
			return c
		}
		if c := b.obj.MemoryActivity().Compare(a.obj.MemoryActivity()); c != 0 {
			return c
		}
		return cmp.Compare(a.obj.ObjectID, b.obj.ObjectID)
	})
	var blocks []block
	for _, ref := range entities {
		if len(blocks) == maxCards {
			break
		}
		var card EntityCard
		var texts []string
		for _, it := range facts {
			if len(texts) == cardFacts {
				break
			}
			if slices.Contains(it.obj.Memory.EntityRefs, ref) {
				card.Facts = append(card.Facts, it.obj.ObjectID)
				texts = append(texts, strings.TrimRight(inlineText(it.obj.Content), ";"))
			}
		}
		if len(texts) == 0 {
			continue
		}
		card.Entity, card.Status = ref, CardDropped
		r.cards = append(r.cards, card)
		blocks = append(blocks, block{text: "[" + inlineText(ref) + "]: " + strings.Join(texts, "; ")})
	}
	return blocks
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
