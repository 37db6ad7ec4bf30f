package compile

import (
	"context"
	"fmt"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

// normalize is step 1: every input becomes a context object with an
// authority level and a target section.
func (r *run) normalize(ctx context.Context) (int, int, error) {
	objs, err := r.c.src.Candidates(ctx, tenure.CandidateQuery{Principal: r.p, Scope: r.scope, Text: r.req.Query,
		Limit: r.c.opt.CandidateLimit, AsOfTx: r.req.AsOf})
	if err != nil {
		return 0, 0, err
	}
	for i := range objs {
		o := objs[i]
		if o.TenantID != r.p.TenantID {
			continue // a Source bug must never become a leak
		}
		if isDocument(&o) {
			r.addDocument(o, fromStore)
			continue
		}
		r.items = append(r.items, &item{obj: o, origin: fromStore, section: sectionFor(&o)})
	}
	if err := r.addHistory(ctx); err != nil {
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
		r.items = append(r.items, &item{obj: r.inputObject("tool:"+t.Name, content, tenure.TypeToolSchema, tenure.LevelDeveloper, "tool://"+t.Name),
			origin: fromTool, section: SectionTools})
	}
	for _, d := range r.req.Documents {
		o := r.inputObject("doc:"+d.ID, d.Content, tenure.TypeRetrievedPassage, tenure.LevelRetrieved, d.Source)
		o.Aliases = nil
		if d.Title != "" {
			o.Key = d.Title
		}
		r.addDocument(o, fromDocument)
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
		r.items = append(r.items, &item{obj: o, origin: fromTail, section: SectionTail, msg: &m})
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
	return &item{obj: o, origin: from, section: section}
}

// inputObject wraps a request input as a context object of the caller.
func (r *run) inputObject(id, content string, t tenure.ObjectType, level int, origin string) tenure.Object {
	o := tenure.Object{ObjectID: id, Key: id, Content: content, ObjectType: t, AuthorityLevel: tenure.Ptr(level),
		SourceOrigin: origin, TenantID: r.p.TenantID, Status: tenure.StatusActive, IsValid: true, ContradictionStatus: tenure.Clean}
	o.ApplyDefaults(r.at)
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
func (r *run) addDocument(o tenure.Object, from origin) {
	for i, u := range splitUnits(o.Content, maxUnitWords) {
		sub := o.Clone()
		sub.ObjectID = fmt.Sprintf("%s#%d", o.ObjectID, i+1)
		sub.Content = u
		r.items = append(r.items, &item{obj: sub, origin: from, section: SectionDocuments, docID: o.ObjectID, unit: i + 1})
	}
}

// maxUnitWords bounds a document subunit.
const maxUnitWords = 80

// splitUnits cuts text into paragraphs, and paragraphs longer than max
// words into runs of sentences of at most max words (a single longer
// sentence is cut at max words).
func splitUnits(text string, max int) []string {
	var units []string
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				units = append(units, strings.Join(cur, " "))
				cur = nil
			}
		}
		for _, sent := range sentences(para) {
			words := strings.Fields(sent)
			for len(words) > max {
				flush()
				units = append(units, strings.Join(words[:max], " "))
				words = words[max:]
			}
			if len(cur)+len(words) > max {
				flush()
			}
			cur = append(cur, words...)
		}
		flush()
	}
	if len(units) == 0 {
		units = []string{strings.TrimSpace(text)}
	}
	return units
}

// sentences splits on sentence-ending punctuation followed by space.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?' || s[i] == '\n') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func analyze(it *item) {
	it.text = it.obj.SearchText()
	if it.docID != "" {
		// A document's title would make every paragraph match it.
		it.text = it.obj.Content
	}
	it.terms = retrieve.Terms(it.text)
}

// isSummary reports whether a stored object is a narrative summary of a
// conversation (the engine files them under "summary/<thread>/...").
func isSummary(o *tenure.Object) bool {
	return o.Source == "summary" && strings.HasPrefix(o.Key, "summary/")
}
