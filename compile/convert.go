package compile

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// convert is step 7: deduplicate, then climb the fact-to-instruction
// ladder only as far as scope, authority and relevance justify, and render
// each survivor as one compact line.
func (r *run) convert(context.Context) (int, int, error) {
	in := r.liveCount()
	r.dedupe()
	for _, it := range r.live() {
		it.as = r.compiledAs(it)
		it.line = r.render(it)
		if it.section != SectionDocuments {
			it.line = defang(it.line)
		}
	}
	return in, r.liveCount(), nil
}

// dedupe drops items whose normalized text repeats a better-ranked one in
// the same section.
func (r *run) dedupe() {
	order := r.live(SectionPolicy, SectionMemory, SectionDocuments, SectionState)
	sort.SliceStable(order, func(i, j int) bool { return better(order[i], order[j]) })
	seen := map[string]bool{}
	for _, it := range order {
		k := string(it.section) + "\x00" + normText(it.obj.Content)
		if seen[k] {
			r.omit(it, OmitDuplicate)
			continue
		}
		seen[k] = true
	}
}

// better orders items by tier, then score, then id (deterministic).
func better(a, b *item) bool {
	if ta, tb := tierRank(a.tier), tierRank(b.tier); ta != tb {
		return ta < tb
	}
	if a.score != b.score {
		return a.score > b.score
	}
	return a.obj.ObjectID < b.obj.ObjectID
}

func tierRank(t Tier) int {
	switch t {
	case TierCritical:
		return 0
	case TierImportant:
		return 1
	case TierUseful:
		return 2
	case TierMinimal:
		return 3
	}
	return 4
}

func normText(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// compiledAs decides the ladder rung: retrieved data stays data; a
// constraint held at user authority or above becomes a hard constraint
// when it is relevant (policy is always relevant); a fact with a
// behavioral implication becomes guidance when it is at least useful and
// not merely retrieved; everything else is context. Claims that need review
// are never promoted.
func (r *run) compiledAs(it *item) CompiledAs {
	o := &it.obj
	switch {
	case it.section == SectionDocuments || o.Level() == tenure.LevelRetrieved:
		return AsData
	case it.section == SectionSystem || it.section == SectionLate:
		if o.Level() == tenure.LevelPlatform {
			return AsHardConstraint
		}
		return AsGuidance
	case it.section == SectionTools || it.section == SectionTail || o.NeedsReview:
		return AsContext
	case o.IsConstraint && o.Level() <= tenure.LevelUser && (it.section == SectionPolicy || tierRank(it.tier) <= tierRank(TierUseful)):
		return AsHardConstraint
	case o.ObjectType == tenure.TypePolicyRule && it.section == SectionPolicy:
		return AsHardConstraint
	case o.BehavioralImplication != "" && o.Level() <= tenure.LevelInferred && tierRank(it.tier) <= tierRank(TierUseful):
		return AsGuidance
	case it.section == SectionPolicy:
		return AsGuidance
	}
	return AsContext
}

// render turns an item into its line.
func (r *run) render(it *item) string {
	o := &it.obj
	switch it.section {
	case SectionSystem, SectionLate:
		return strings.TrimSpace(o.Content)
	case SectionTools:
		return "- " + oneLine(o.Content)
	case SectionTail:
		return r.renderMessage(it)
	case SectionHistory:
		return r.renderHistory(it)
	case SectionDocuments:
		return o.Content
	case SectionState:
		if o.StateItem != nil {
			return renderStateItem(o.StateItem)
		}
	}
	var b strings.Builder
	switch it.as {
	case AsHardConstraint:
		b.WriteString("- MUST: ")
		if label := keyLabel(o); label != "" {
			b.WriteString(label)
			b.WriteString(" = ")
		}
		b.WriteString(oneLine(o.Content))
	case AsGuidance:
		b.WriteString("- Guidance: ")
		if o.BehavioralImplication != "" {
			b.WriteString(oneLine(o.BehavioralImplication))
		} else {
			b.WriteString(oneLine(o.Content))
		}
	default:
		b.WriteString("- ")
		if label := keyLabel(o); label != "" {
			b.WriteString(label)
			b.WriteString(": ")
		}
		b.WriteString(oneLine(o.Content))
	}
	if o.ValidUntil != nil {
		fmt.Fprintf(&b, " (until %s)", o.ValidUntil.UTC().Format(time.DateOnly))
	}
	if o.NeedsReview {
		b.WriteString(" [needs review]")
	}
	return b.String()
}

// keyLabel returns the key to show before a value, or "" when the key adds
// nothing (an id, or already in the content).
func keyLabel(o *object) string {
	if o.Key == "" || o.Key == o.ObjectID || strings.Contains(strings.ToLower(o.Content), strings.ToLower(o.Key)) {
		return ""
	}
	return o.Key
}

func (r *run) renderMessage(it *item) string {
	m := it.msg
	who := m.Role
	if m.Speaker != "" {
		who = m.Speaker
	}
	line := who + ": " + m.Content
	if m.Role == "tool" {
		return line
	}
	return strings.TrimSpace(line)
}

// oneLine collapses whitespace so that a rendered item is one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
