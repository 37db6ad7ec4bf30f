package compile

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// maxReplacementChain bounds how far a chain of supersessions is followed
// to the item that holds now.
const maxReplacementChain = 8

// noteReplacements records, for each past message that stated a
// structured-state item since superseded, the text of the item that holds
// now, so that the history line of the message says so: a decision reversed
// later in the conversation is then never read as standing, whatever the
// state section could hold. Only items the request may read count (those
// the gate kept), and only a replacement that holds: active, not itself
// superseded at the end of its chain.
func (r *run) noteReplacements() {
	byUID := map[string]*item{}
	var superseded []*item
	for _, it := range r.live() {
		s := it.obj.StateItem
		if it.origin != fromStore || s == nil || s.UID == "" {
			continue
		}
		if _, ok := byUID[s.UID]; !ok {
			byUID[s.UID] = it
		}
		if s.Status == "superseded" && s.ReplacedBy != "" && len(s.Refs) > 0 {
			superseded = append(superseded, it)
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
			r.replaced = map[string][]string{}
		}
		// The item replaced directly names what holds; the older ones of a
		// chain of changes only say they no longer do, so that a long chain
		// does not repeat one text on every line.
		text := ""
		if s.ReplacedBy == now.obj.StateItem.UID {
			text = now.obj.StateItem.Text
		}
		for _, ref := range s.Refs {
			k := s.ThreadID + "\x00" + ref
			if !slices.Contains(r.replaced[k], text) {
				r.replaced[k] = append(r.replaced[k], text)
			}
		}
	}
}

// replacementNote is the note of a history line whose message stated
// superseded state items: " [since replaced: …]" with the texts of the
// items that replaced them directly, rendered as untrusted inline text,
// or " [since replaced]" when each was replaced by an item that has
// changed again since.
func (r *run) replacementNote(m *tenure.ScoredMessage) string {
	texts := r.replaced[m.ThreadID+"\x00"+m.ID]
	if len(texts) == 0 {
		return ""
	}
	var named []string
	for _, t := range texts {
		if t != "" {
			named = append(named, inlineText(t))
		}
	}
	if len(named) == 0 {
		return " [since replaced]"
	}
	return " [since replaced: " + strings.Join(named, "; ") + "]"
}
