package compile

import (
	"math"

	"github.com/tenure-dev/tenure/retrieve"
)

// focusMax is the most a turn raised by speaker focus scores, against 1 for
// the best full-text match: above name-only mentions, below good matches of
// the query's other words.
const focusMax = 0.3

// focusSpeakers raises the turns of the speakers a query names. A question
// about a person ("What activities does Melanie partake in?") is mostly
// answered by that person's own turns, which often share no word with it
// but the name ("I'm off to go swimming with the kids"); full-text ranking
// scores them by the name alone, below short turns that only mention it
// ("Thanks, Melanie!"). Among the named speakers' turns that match no other
// query word, those that say more — the rarer words they use, summed —
// score higher, up to focusMax.
func focusSpeakers(items []*item, query string, qwords map[string]bool) {
	named, nameTerms := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		if sp := it.hist.Speaker; sp != "" && !named[sp] && namedIn(sp, qwords) {
			named[sp] = true
			for _, t := range retrieve.Terms(sp) {
				nameTerms[t] = true
			}
		}
	}
	if len(named) == 0 {
		return
	}
	asked := map[string]bool{}
	for _, t := range retrieve.Terms(query) {
		if !nameTerms[t] {
			asked[t] = true
		}
	}
	// Rarity is measured among the named speakers' own candidate turns:
	// what sets a turn apart from the rest of what that person says.
	terms := make([][]string, len(items))
	df := map[string]int{}
	pool := 0
	seen := map[string]bool{}
	for i, it := range items {
		if !named[it.hist.Speaker] {
			continue
		}
		pool++
		clear(seen)
		for _, t := range retrieve.Terms(it.hist.Text()) {
			if !seen[t] && !nameTerms[t] {
				seen[t] = true
				terms[i] = append(terms[i], t)
				df[t]++
			}
		}
	}
	n := float64(pool)
	said := make([]float64, len(items))
	most := 0.0
	for i, it := range items {
		if !named[it.hist.Speaker] || sharesAny(terms[i], asked) {
			continue
		}
		for _, t := range terms[i] {
			said[i] += math.Log(1 + n/float64(df[t]))
		}
		most = math.Max(most, said[i])
	}
	if most == 0 {
		return
	}
	for i, it := range items {
		it.score = math.Max(it.score, focusMax*said[i]/most)
	}
}

func sharesAny(terms []string, set map[string]bool) bool {
	for _, t := range terms {
		if set[t] {
			return true
		}
	}
	return false
}
