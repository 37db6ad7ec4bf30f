package memory

import "github.com/tenure-dev/tenure"

// CardSize is how many facts an entity card holds.
const CardSize = 3

// CardFacts returns the facts an entity card holds among memories (about
// one entity): the first CardSize of those pinned or of effective
// importance tenure.ImportanceSignificant or more, in Sort's order
// (pinned, then importance, then the most recent). The compiler's cards
// pick their facts by the same rule among a compilation's candidates.
func CardFacts(memories []tenure.Object) []tenure.Object {
	var out []tenure.Object
	for _, o := range memories {
		if m := o.Memory; m != nil && (m.Pinned || m.EffectiveImportance() >= tenure.ImportanceSignificant) {
			out = append(out, o)
		}
	}
	Sort(out)
	if len(out) > CardSize {
		out = out[:CardSize]
	}
	return out
}
