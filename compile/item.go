package compile

import (
	"github.com/tenure-dev/tenure"
)

// origin says where a candidate came from.
type origin int

const (
	fromStore origin = iota
	fromInstruction
	fromLate
	fromTool
	fromDocument
	fromTail
	fromMessage
)

// object is the context object an item carries. The subunits of a
// document share their document's object and carry their own id and text
// here, shadowing the shared object's: a whole copy of the object per
// subunit was most of a large document's compile memory. The shared
// object is read-only. Its methods, promoted here, and functions given
// obj.Object read the shared id and content: for a subunit, use them only
// where those are not read (SearchText, for one, is not).
type object struct {
	*tenure.Object
	ObjectID string
	Content  string
}

func newObject(o *tenure.Object) object {
	return object{Object: o, ObjectID: o.ObjectID, Content: o.Content}
}

// item is a candidate flowing through the pipeline.
type item struct {
	obj     object
	origin  origin
	section SectionKind
	// text is what ranking reads (see analyze).
	text string
	// scores in [0, 1]
	lex, vec, entity, rec, score float64
	tier                         Tier
	as                           CompiledAs
	line                         string
	tokens                       int
	msg                          *Message              // tail messages
	hist                         *tenure.ScoredMessage // past messages
	// document subunits
	docID       string
	unit        int
	rescuedFrom string
	attachedTo  string
	dropped     bool
	// noFill keeps an item that failed the why_it_matters gate from
	// filling free budget; fill says why an item that matched nothing was
	// kept ("foundation" or "fill").
	noFill bool
	fill   string
}

func (r *run) omit(it *item, reason OmitReason) {
	it.dropped = true
	o := OmittedObject{ObjectID: it.obj.ObjectID, Reason: reason}
	switch reason {
	case OmitExpired:
		o.ValidUntil = it.obj.ValidUntil
	case OmitSuperseded, OmitOverridden, OmitShadowed:
		o.SupersededBy = it.obj.SupersessionLink
	case OmitIrrelevant, OmitBudget, OmitDuplicate:
		o.PriorityTier = it.tier
	}
	r.trace.Omitted = append(r.trace.Omitted, o)
}

// live returns the items not dropped, in the given sections (all if none).
func (r *run) live(sections ...SectionKind) []*item {
	var out []*item
	for _, it := range r.items {
		if it.dropped {
			continue
		}
		if len(sections) == 0 {
			out = append(out, it)
			continue
		}
		for _, s := range sections {
			if it.section == s {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

func (r *run) liveCount() int {
	n := 0
	for _, it := range r.items {
		if !it.dropped {
			n++
		}
	}
	return n
}
