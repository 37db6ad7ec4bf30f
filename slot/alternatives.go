package slot

import (
	"slices"

	"github.com/tenure-dev/tenure"
)

// A decision sets options aside: the other sides of the question it
// answers (its Alternatives) and what it says it replaces ("instead of
// PostgreSQL"). A later decision that takes one of them, and not what the
// old one chose, reverses it, though the two share no word: "Would you
// like a replacement or a refund?" "A replacement." … "I'd prefer a
// refund instead."

// takesSetAside reports whether c, a decision, takes an option old set
// aside: every word of the option is in c's frame, no word of what old
// chose is, c is not negated, and either the message reverses something
// or c says nothing besides the option and the verbs of choosing it.
func takesSetAside(old, c *Item, cues Cues) bool {
	if old.StateItem.Type != tenure.StateDecision || c.Negated || len(old.Alternatives)+len(old.Instead) == 0 {
		return false
	}
	cued := cues.Reversal != "" || c.InsteadCue
	for _, p := range slices.Concat(old.Alternatives, old.Instead) {
		opt := Analyze(tenure.StateDecision, p)
		if !slices.ContainsFunc(opt.Frame, plain) || slices.ContainsFunc(opt.Frame, func(w Word) bool { return !containsWord(c.Frame, w) }) {
			continue
		}
		chose := slices.DeleteFunc(slices.Clone(old.Frame), func(w Word) bool { return w.Verb || containsWord(opt.Frame, w) })
		if len(chose) == 0 || slices.ContainsFunc(chose, func(w Word) bool { return containsWord(c.Frame, w) }) {
			continue
		}
		if cued || !slices.ContainsFunc(c.Frame, func(w Word) bool { return plain(w) && !containsWord(opt.Frame, w) }) {
			return true
		}
	}
	return false
}

// plain reports whether w names a thing rather than an act.
func plain(w Word) bool { return !w.Verb }
