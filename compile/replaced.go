package compile

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// maxReplacementChain bounds how far a chain of supersessions is followed
// to the item that holds now.
const maxReplacementChain = 8

// replacement is what a history note says of one superseded item: its
// text, and the text of the item that replaced it directly when that one
// holds ("" when it has changed again since).
type replacement struct{ old, now string }

// noteReplacements records, for each past message that stated a
// structured-state item since superseded, what replaced it, so that the
// history line of the message says so: a decision reversed later in the
// conversation is then never read as standing, whatever the state section
// could hold. Only items the request may read count (those the gate kept),
// and only a replacement that holds: active, not itself superseded at the
// end of its chain. A message that also states items that still hold is
// noted in r.holds, so that its note names the item replaced.
func (r *run) noteReplacements() {
	var byUID map[string]*item
	var superseded []*item
	for _, it := range r.items {
		s := it.obj.StateItem
		if it.dropped || it.origin != fromStore || s == nil || s.UID == "" {
			continue
		}
		if byUID == nil {
			byUID = map[string]*item{}
		}
		if _, ok := byUID[s.UID]; !ok {
			byUID[s.UID] = it
		}
		if s.Status == "superseded" && s.ReplacedBy != "" && len(s.Refs) > 0 {
			superseded = append(superseded, it)
		} else if s.Status != "superseded" && it.obj.Status == tenure.StatusActive {
			for _, ref := range s.Refs {
				if r.holds == nil {
					r.holds = map[string]bool{}
				}
				r.holds[s.ThreadID+"\x00"+ref] = true
			}
		}
	}
	for _, it := range superseded {
		s := it.obj.StateItem
		now := byUID[s.ReplacedBy]
		for i := 0; now != nil && now.obj.StateItem.Status == "superseded" && i < maxReplacementChain; i++ {
			now = byUID[now.obj.StateItem.ReplacedBy]
		}
		if now == nil || now.obj.StateItem.Status == "superseded" || now.obj.Status != tenure.StatusActive || !now.obj.Holds() {
			continue
		}
		if r.replaced == nil {
			r.replaced = map[string][]replacement{}
		}
		// The item replaced directly names what holds; the older ones of a
		// chain of changes only say they no longer do, so that a long chain
		// does not repeat one text on every line.
		rp := replacement{old: s.Text}
		if s.ReplacedBy == now.obj.StateItem.UID {
			rp.now = now.obj.StateItem.Text
		}
		for _, ref := range s.Refs {
			k := s.ThreadID + "\x00" + ref
			if !slices.Contains(r.replaced[k], rp) {
				r.replaced[k] = append(r.replaced[k], rp)
			}
		}
	}
}

// replacementNote is the note of a history line whose message stated
// superseded state items, its texts rendered as untrusted inline text:
// " [since replaced: X]" with the item that replaced one directly, or
// " [since replaced]" when it has changed again since. When the message
// also states items that still hold, the note names what was replaced:
// " [since replaced: A → X]", " [since replaced: A → changed again]".
func (r *run) replacementNote(m *tenure.ScoredMessage) string {
	k := m.ThreadID + "\x00" + m.ID
	rps := r.replaced[k]
	if len(rps) == 0 {
		return ""
	}
	var parts []string
	for _, rp := range rps {
		switch {
		case r.holds[k] && rp.now != "":
			parts = append(parts, inlineText(rp.old)+" → "+inlineText(rp.now))
		case r.holds[k]:
			parts = append(parts, inlineText(rp.old)+" → changed again")
		case rp.now != "":
			parts = append(parts, inlineText(rp.now))
		}
	}
	if len(parts) == 0 {
		return " [since replaced]"
	}
	return " [since replaced: " + strings.Join(parts, "; ") + "]"
}
