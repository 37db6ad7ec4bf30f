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

// compiledAs decides the ladder rung: retrieved data stays data; binding
// rules (the policy section) are hard constraints, or guidance when they
// are not constraints; elsewhere a constraint held at user authority or
// above becomes a hard constraint when it is relevant, and a fact with a
// behavioral implication becomes guidance when it is at least useful and
// not merely retrieved — but only when the object may bind the reader
// (promotable). Claims that need review are never promoted.
func (r *run) compiledAs(it *item) CompiledAs {
	o := &it.obj
	switch {
	case it.section == SectionDocuments || o.Retrieved():
		return AsData
	case it.section == SectionSystem || it.section == SectionLate:
		if o.Level() == tenure.LevelPlatform {
			return AsHardConstraint
		}
		return AsGuidance
	case it.section == SectionTools || it.section == SectionTail || o.NeedsReview:
		return AsContext
	case it.section == SectionPolicy:
		if (o.IsConstraint && o.Level() <= tenure.LevelUser) || o.ObjectType == tenure.TypePolicyRule {
			return AsHardConstraint
		}
		return AsGuidance
	case !r.promotable(o.Object):
		return AsContext
	case o.IsConstraint && o.Level() <= tenure.LevelUser && tierRank(it.tier) <= tierRank(TierUseful):
		return AsHardConstraint
	case o.BehavioralImplication != "" && o.Level() <= tenure.LevelInferred && tierRank(it.tier) <= tierRank(TierUseful):
		return AsGuidance
	}
	return AsContext
}

// promotable reports whether a stored object may bind the reader: it was
// written with the rules permission (Binding), or by the reader itself —
// a constraint binds at most the principal that wrote it.
func (r *run) promotable(o *tenure.Object) bool {
	return !o.Retrieved() && (o.Binding || (o.WrittenBy != "" && o.WrittenBy == r.p.UserID))
}

// render turns an item into its line. Everything but the operator's own
// instructions goes through the untrusted-text renderer.
func (r *run) render(it *item) string {
	o := &it.obj
	switch it.section {
	case SectionSystem, SectionLate:
		return escapeFenceTags(strings.TrimSpace(o.Content))
	case SectionTools:
		return "- " + inlineText(o.Content)
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
		b.WriteString(inlineText(o.Content))
	case AsGuidance:
		b.WriteString("- Guidance: ")
		if o.BehavioralImplication != "" {
			b.WriteString(inlineText(o.BehavioralImplication))
		} else {
			b.WriteString(inlineText(o.Content))
		}
	default:
		b.WriteString("- ")
		if label := keyLabel(o); label != "" {
			b.WriteString(label)
			b.WriteString(": ")
		}
		b.WriteString(inlineText(o.Content))
		if o.IsConstraint && !r.promotable(o.Object) && !o.Retrieved() {
			b.WriteString(" (a constraint stated by ")
			b.WriteString(inlineText(firstNonEmpty(o.WrittenBy, "another principal")))
			b.WriteString("; not binding on you)")
		}
	}
	if o.ValidUntil != nil {
		fmt.Fprintf(&b, " (until %s)", o.ValidUntil.UTC().Format(time.DateOnly))
	}
	if o.NeedsReview {
		b.WriteString(" [needs review]")
	}
	return b.String()
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// keyLabel returns the key to show before a value, or "" when the key adds
// nothing (an id, or already in the content).
func keyLabel(o *object) string {
	if o.Memory != nil {
		return "" // a memory's content says it; its key is bookkeeping
	}
	if o.Key == "" || o.Key == o.ObjectID || strings.Contains(strings.ToLower(o.Content), strings.ToLower(o.Key)) {
		return ""
	}
	return keyText(o.Key)
}

// renderMessage renders a tail message: its speaker (or role) and its
// text, lines kept. Tool output is fenced by the containment step.
func (r *run) renderMessage(it *item) string {
	m := it.msg
	if m.Role == "tool" {
		return ""
	}
	return messageLabel(m) + ": " + blockText(strings.TrimSpace(m.Content))
}

// messageLabel names who said a message: the speaker's name (quoted when
// it reads as structure) or the role.
func messageLabel(m *Message) string {
	if m.Speaker != "" {
		return speakerLabel(m.Speaker)
	}
	return m.Role
}

// oneLine collapses whitespace so that a rendered item is one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
