package temporal

import (
	"time"

	"github.com/tenure-dev/tenure"
)

// Resolver finds and resolves relative temporal expressions. It holds no
// state: the zero value is ready, and one Resolver is safe for concurrent
// use.
type Resolver struct{}

// New returns a Resolver.
func New() *Resolver {
	return &Resolver{}
}

// Resolve returns every relative temporal expression of text resolved
// against ref, the time the text was written, in order of appearance, or
// nil when there is none. Expr is the expression exactly as written. An
// expression that denotes the same period (date and granularity) as an
// earlier one is dropped, so "yesterday ... on Sunday" written on a Monday
// yields one date: the result lists the periods a message talks about.
//
// The calendar date of ref in ref's own location is the reference day,
// since that is the day the writer calls "today". Whether an expression
// such as "on Friday" or "March 14" lies ahead of it or behind is read
// from its context (see the package documentation). Every date is in
// tenure.InCalendar.
func (r *Resolver) Resolve(text string, ref time.Time) []tenure.ResolvedDate {
	if !hasTrigger(text) {
		return nil
	}
	// Most messages have fewer words than buf holds, and buf stays on the
	// stack.
	var buf [stackWords]token
	s := newScanner(text, tokenize(text, buf[:0]), ref)
	var out []tenure.ResolvedDate
	var seen map[period]bool
	for i := 0; i < len(s.toks); {
		p, ok := s.match(i)
		if !ok {
			i++
			continue
		}
		// A period out of the calendar every store holds ("6000 years
		// ago") stays text: its words are consumed, no date is listed.
		if p.gran != "" && tenure.InCalendar(p.date) {
			key := period{p.date.Unix(), p.gran}
			if !contains(out, seen, key) {
				out = append(out, tenure.ResolvedDate{
					Expr:        text[s.toks[i].start:s.toks[p.end-1].end],
					Date:        p.date,
					Granularity: p.gran,
				})
				seen = remember(out, seen, key)
			}
		}
		i = p.end
	}
	return out
}

// stackWords is how many words Resolve tokenizes without allocating.
const stackWords = 96

// period identifies a resolved date for deduplication.
type period struct {
	unix int64
	gran string
}

// linearMax is how many results are searched linearly before a map is
// built; a message has a handful of dates, but a huge adversarial text must
// not cost quadratic time.
const linearMax = 8

// contains reports whether key is among the dates found so far.
func contains(out []tenure.ResolvedDate, seen map[period]bool, key period) bool {
	if seen != nil {
		return seen[key]
	}
	for _, d := range out {
		if d.Date.Unix() == key.unix && d.Granularity == key.gran {
			return true
		}
	}
	return false
}

// remember records key, just appended to out, building the map once out
// outgrows a linear search.
func remember(out []tenure.ResolvedDate, seen map[period]bool, key period) map[period]bool {
	switch {
	case seen != nil:
		seen[key] = true
	case len(out) > linearMax:
		seen = make(map[period]bool, 2*len(out))
		for _, d := range out {
			seen[period{d.Date.Unix(), d.Granularity}] = true
		}
	}
	return seen
}
