package compile

import (
	"context"
	"net/url"
	"slices"
	"sort"

	"github.com/tenure-dev/tenure/retrieve"
)

// Subunit rescue parameters.
const (
	maxSelectedDocs = 3
	rescueMinLex    = 0.4  // a subunit is rescued if its lexical relevance is at least this
	rescueMinAff    = 0.35 // … and its affinity to a selected document at least this
)

// document groups the live subunits of one retrieved payload.
type document struct {
	id     string
	units  []*item
	best   float64
	source string
	// terms is the set of the units' terms, built when a rescue needs it.
	terms map[string]bool
}

// termSet returns the distinct terms of d's units.
func (d *document) termSet() map[string]bool {
	if d.terms == nil {
		d.terms = map[string]bool{}
		for _, u := range d.units {
			for _, t := range retrieve.Terms(u.text) {
				d.terms[t] = true
			}
		}
	}
	return d.terms
}

// documents groups live document subunits by document, best first.
func (r *run) documents() []*document {
	byID := map[string]*document{}
	var out []*document
	for _, it := range r.live(SectionDocuments) {
		d := byID[it.docID]
		if d == nil {
			d = &document{id: it.docID, source: it.obj.SourceOrigin}
			byID[it.docID] = d
			out = append(out, d)
		}
		d.units = append(d.units, it)
		d.best = max(d.best, it.score)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].best > out[j].best })
	return out
}

// rescue is step 6: the most relevant documents are selected (their
// relevant subunits, in order); from the others, a highly relevant subunit is attached
// to the selected document it has the most affinity with, without its
// parent. Affinity Aff(u, s | q) weighs the subunit's relevance to the
// query, its similarity to s, s's own relevance and a shared source.
func (r *run) rescue(context.Context) (int, int, error) {
	docs := r.documents()
	in := len(docs)
	if len(docs) == 0 {
		return 0, 0, nil
	}
	top := docs[0].best
	var selected, rest []*document
	for _, d := range docs {
		if len(selected) < maxSelectedDocs && d.best > 0 {
			selected = append(selected, d)
		} else {
			rest = append(rest, d)
		}
	}
	rescued := 0
	for _, d := range rest {
		for _, u := range d.units {
			// Only a relevant enough subunit can be rescued; the target
			// search analyzes the selected documents' text.
			var target *document
			aff := 0.0
			if u.lex >= rescueMinLex {
				target, aff = r.bestTarget(u, selected, top)
			}
			if target != nil && aff >= rescueMinAff {
				u.rescuedFrom, u.attachedTo = d.id, target.id
				rescued++
				continue
			}
			reason := OmitIrrelevant
			if u.tier != TierIrrelevant && u.tier != TierMinimal {
				reason = OmitBudget
			}
			r.omit(u, reason)
		}
	}
	return in, len(selected) + rescued, nil
}

func (r *run) bestTarget(u *item, selected []*document, top float64) (*document, float64) {
	var best *document
	bestAff := 0.0
	terms := retrieve.Terms(u.text)
	for _, s := range selected {
		set := s.termSet()
		shared := 0
		for _, t := range terms {
			if set[t] {
				shared++
			}
		}
		sim := 0.0
		if n := len(terms) + len(set) - shared; n > 0 {
			sim = float64(shared) / float64(n)
		}
		same := 0.0
		if host(u.obj.SourceOrigin) != "" && host(u.obj.SourceOrigin) == host(s.source) {
			same = 1
		}
		aff := 0.5*u.lex + 0.2*sim + 0.2*s.best/top + 0.1*same
		if aff > bestAff {
			best, bestAff = s, aff
		}
	}
	return best, bestAff
}

func host(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// selectedDocs returns the document blocks to render, in relevance order,
// each followed by the subunits rescued onto it.
func (r *run) selectedDocs() [][]*item {
	docs := r.documents()
	rescuedOnto := map[string][]*item{}
	var blocks [][]*item
	for _, d := range docs {
		var own []*item
		for _, u := range d.units {
			if u.attachedTo != "" {
				rescuedOnto[u.attachedTo] = append(rescuedOnto[u.attachedTo], u)
			} else {
				own = append(own, u)
			}
		}
		if len(own) > 0 {
			slices.SortFunc(own, func(a, b *item) int { return a.unit - b.unit })
			blocks = append(blocks, own)
		}
	}
	for i, b := range blocks {
		blocks[i] = append(b, rescuedOnto[b[0].docID]...)
	}
	return blocks
}
