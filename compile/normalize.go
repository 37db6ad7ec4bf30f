package compile

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// normalize is step 1: every input becomes a context object with an
// authority level and a target section.
func (r *run) normalize(ctx context.Context) (int, int, error) {
	if err := r.expandNames(ctx); err != nil {
		return 0, 0, err
	}
	objs, err := r.c.src.Candidates(ctx, tenure.CandidateQuery{Principal: r.p, Scope: r.scope, Text: r.search,
		Limit: r.c.opt.CandidateLimit, AsOfTx: r.req.AsOf})
	if err != nil {
		return 0, 0, err
	}
	for i := range objs {
		o := &objs[i]
		if o.TenantID != r.p.TenantID {
			continue // a Source bug must never become a leak
		}
		if isDocument(o) {
			r.addDocument(o, fromStore)
			continue
		}
		r.items = append(r.items, &item{obj: newObject(o), origin: fromStore, section: sectionFor(o)})
	}
	if err := r.addHistory(ctx); err != nil {
		return 0, 0, err
	}
	if err := r.addWorkflow(ctx); err != nil {
		return 0, 0, err
	}
	stored := len(r.items)
	for i, in := range r.req.Instructions {
		r.items = append(r.items, r.instruction(in, i, fromInstruction))
	}
	for i, in := range r.req.LateInstructions {
		r.items = append(r.items, r.instruction(in, i, fromLate))
	}
	for _, t := range r.req.Tools {
		content := "tool " + t.Name
		if t.Description != "" {
			content += ": " + t.Description
		}
		if len(t.Schema) > 0 {
			content += "\n  schema: " + string(tenure.CanonicalJSON(t.Schema))
		}
		o := r.inputObject("tool:"+t.Name, content, tenure.TypeToolSchema, tenure.LevelDeveloper, "tool://"+t.Name)
		r.items = append(r.items, &item{obj: newObject(&o), origin: fromTool, section: SectionTools})
	}
	for _, d := range r.req.Documents {
		o := r.inputObject("doc:"+d.ID, d.Content, tenure.TypeRetrievedPassage, tenure.LevelRetrieved, d.Source)
		o.Aliases = nil
		if d.Title != "" {
			o.Key = d.Title
		}
		r.addDocument(&o, fromDocument)
	}
	for i := range r.req.Tail {
		m := r.req.Tail[i]
		level := tenure.LevelUser
		switch m.Role {
		case "assistant":
			level = tenure.LevelInferred
		case "tool":
			level = tenure.LevelRetrieved
		}
		id := m.ID
		if id == "" {
			id = fmt.Sprint(i + 1)
		}
		o := r.inputObject("tail:"+id, m.Content, tenure.TypeFact, level, "message://"+id)
		r.items = append(r.items, &item{obj: newObject(&o), origin: fromTail, section: SectionTail, msg: &m})
	}
	r.trace.Retrieval.CandidateCount = len(r.items)
	return stored, len(r.items), nil
}

func (r *run) instruction(in Instruction, i int, from origin) *item {
	level := tenure.LevelDeveloper
	if in.Role == "system" {
		level = tenure.LevelPlatform
	}
	prefix := "instruction"
	section := SectionSystem
	if from == fromLate {
		prefix, section = "late_instruction", SectionLate
	}
	o := r.inputObject(fmt.Sprintf("%s:%d", prefix, i+1), in.Text, tenure.TypePolicyRule, level, "request://"+in.Role)
	return &item{obj: newObject(&o), origin: from, section: section}
}

// inputObject wraps a request input as a context object of the caller.
// The content is set after the defaults: they would add a JSON copy of it
// as the value and another in the normalized claim, which the compiler
// never reads (a document or a tool output can be megabytes).
func (r *run) inputObject(id, content string, t tenure.ObjectType, level int, origin string) tenure.Object {
	o := tenure.Object{ObjectID: id, Key: id, ObjectType: t, AuthorityLevel: tenure.Ptr(level),
		SourceOrigin: origin, TenantID: r.p.TenantID, Status: tenure.StatusActive, IsValid: true, ContradictionStatus: tenure.Clean}
	o.ApplyDefaults(r.at)
	o.Content = content
	return o
}

// isDocument reports whether a stored object is a retrieved payload
// (whatever authority it was stored with, content of an external origin
// is data).
func isDocument(o *tenure.Object) bool { return o.Retrieved() }

// sectionFor places a stored object. Only binding objects (written with
// the rules permission) reach the system-role sections; a policy or tool
// object without it (written before the write policy existed) is shown as
// memory.
func sectionFor(o *tenure.Object) SectionKind {
	switch {
	case o.StateItem != nil || o.Layer == tenure.LayerWorkingSet || isSummary(o):
		return SectionState
	case !o.Binding:
		return SectionMemory
	case o.ObjectType == tenure.TypeToolSchema || o.Layer == tenure.LayerTool:
		return SectionTools
	case isPolicy(o):
		return SectionPolicy
	}
	return SectionMemory
}

// isPolicy reports whether an object belongs to the static policy section:
// platform and developer rules, policy rules, and tenant-wide policy.
func isPolicy(o *tenure.Object) bool {
	return o.Level() <= tenure.LevelDeveloper || o.ObjectType == tenure.TypePolicyRule ||
		o.Layer == tenure.LayerPolicy || o.Layer == tenure.LayerTenant ||
		(o.IsConstraint && o.ConstraintType == tenure.ConstraintPolicy)
}

// addDocument splits a retrieved payload into subunits, each an item.
// The subunits share the payload's object (see object): a copy per
// subunit, value included, made memory grow with the square of the
// payload's size.
// Nothing downstream reads the value or the normalized claim, copies of
// the content: they are dropped.
func (r *run) addDocument(o *tenure.Object, from origin) {
	o.Value, o.NormalizedClaim = nil, ""
	for i, u := range splitUnits(o.Content, maxUnitWords) {
		sub := object{Object: o, ObjectID: o.ObjectID + "#" + strconv.Itoa(i+1), Content: u}
		r.items = append(r.items, &item{obj: sub, origin: from, section: SectionDocuments, docID: o.ObjectID, unit: i + 1})
	}
}

// maxUnitWords bounds a document subunit.
const maxUnitWords = 80

// splitUnits cuts text into paragraphs, and paragraphs longer than max
// words into runs of sentences of at most max words (a single longer
// sentence is cut at max words). A unit is its words joined by single
// spaces; it is a slice of text, not a copy, wherever text already
// separates them so, and the words are scanned in place, so that splitting
// allocates about a string header per unit.
func splitUnits(text string, max int) []string {
	var u unitWriter
	for para := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		u.para = para
		for start, end := range sentences(para) {
			n := 0
			for range words(para, start, end) {
				n++
			}
			at := start
			if n > max {
				// A sentence longer than a unit: whole units of max words,
				// then the rest joins the next unit like a sentence.
				u.flush()
				for ; n > max; n -= max {
					k := 0
					for ws, we := range words(para, at, end) {
						u.add(ws, we)
						if k++; k == max {
							at = we
							break
						}
					}
					u.flush()
				}
			}
			if len(u.cur)+n > max {
				u.flush()
			}
			for ws, we := range words(para, at, end) {
				u.add(ws, we)
			}
		}
		u.flush()
	}
	if len(u.units) == 0 {
		return []string{strings.TrimSpace(text)}
	}
	return u.units
}

// unitWriter collects the words of a paragraph into units.
type unitWriter struct {
	para  string
	cur   [][2]int // the spans of the current unit's words
	units []string
}

func (u *unitWriter) add(start, end int) { u.cur = append(u.cur, [2]int{start, end}) }

// flush ends the current unit: a slice of the paragraph when its words
// are separated by single spaces there, else a copy that joins them so.
func (u *unitWriter) flush() {
	if len(u.cur) == 0 {
		return
	}
	single := true
	for i := 1; i < len(u.cur) && single; i++ {
		single = u.cur[i][0] == u.cur[i-1][1]+1 && u.para[u.cur[i-1][1]] == ' '
	}
	if single {
		u.units = append(u.units, u.para[u.cur[0][0]:u.cur[len(u.cur)-1][1]])
	} else {
		var b strings.Builder
		for i, w := range u.cur {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(u.para[w[0]:w[1]])
		}
		u.units = append(u.units, b.String())
	}
	u.cur = u.cur[:0]
}

// sentences yields the spans of s's sentences: they end at sentence-ending
// punctuation or a line break followed by a space or a line break.
func sentences(s string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		start := 0
		for i := 0; i < len(s); i++ {
			if (s[i] == '.' || s[i] == '!' || s[i] == '?' || s[i] == '\n') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
				if !yield(start, i+1) {
					return
				}
				start = i + 1
			}
		}
		if start < len(s) {
			yield(start, len(s))
		}
	}
}

// words yields the spans of the words of s[start:end]: what strings.Fields
// returns, as offsets into s.
func words(s string, start, end int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		w := -1
		for i := start; i < end; {
			r, size := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:end])
			}
			if unicode.IsSpace(r) {
				if w >= 0 && !yield(w, i) {
					return
				}
				w = -1
			} else if w < 0 {
				w = i
			}
			i += size
		}
		if w >= 0 {
			yield(w, end)
		}
	}
}

// analyze sets the text ranking reads. Its terms are not kept (see
// relevance).
func analyze(it *item) {
	if it.docID != "" {
		// A document's title would make every paragraph match it.
		it.text = it.obj.Content
		return
	}
	it.text = it.obj.SearchText()
}

// SpineKey is the key of a user's summary spine (the engine files it so,
// scoped to the user).
const SpineKey = "summary/spine"

// isSpine reports whether a stored object is a user's summary spine.
func isSpine(o *tenure.Object) bool { return isSummary(o) && o.Key == SpineKey }

// isSummary reports whether a stored object is a narrative summary of a
// conversation (the engine files them under "summary/<thread>/...").
func isSummary(o *tenure.Object) bool {
	return o.Source == "summary" && strings.HasPrefix(o.Key, "summary/")
}
