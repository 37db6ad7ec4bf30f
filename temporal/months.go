package temporal

import (
	"strings"
	"time"
)

// monthPreps are the words after which a month named alone is a date:
// "by June", "in June", "since March", "until October".
var monthPreps = map[string]bool{"by": true, "before": true, "in": true, "since": true, "until": true, "till": true,
	"during": true, "from": true, "after": true, "through": true}

// deadlinePreps make the month after them a deadline, which lies ahead.
var deadlinePreps = map[string]bool{"by": true, "until": true, "till": true}

// bareMonth matches a month named alone after one of monthPreps, at i: the
// month ahead of the message or behind it as its clause tells ("We need
// the venue booked by June" is the coming June, "We moved in June" the
// last one; after "by", "until" or "till" always the coming one), at month
// granularity; this month either way. A month with a
// day or a year after it is calendar's or Absolute's, one before a
// capitalised word is a name ("by June Carter"), and one whose
// direction nothing tells is consumed without a date. Lowercase "may" and
// "march" are verbs (properMonth), and abbreviations are left alone.
func (s *scanner) bareMonth(i int) (phrase, bool) {
	t := s.toks[i]
	if i == 0 || t.kind != kMonthName || !t.spaced || !s.properMonth(i) {
		return phrase{}, false
	}
	prep := strings.ToLower(s.text[s.toks[i-1].start:s.toks[i-1].end])
	if !monthPreps[prep] || s.at(i+1, kNumber) || s.surname(i+1) {
		return phrase{}, false
	}
	y, now, _ := s.today().Date()
	m := time.Month(t.n)
	dir := s.direction(i, i+1)
	if deadlinePreps[prep] {
		// "Let's have the roof fixed by February": a deadline, whatever
		// the participle before it reads as.
		dir = ahead
	}
	switch dir {
	case ahead:
		if m < now {
			y++
		}
	case behind:
		if m > now {
			y--
		}
	default:
		return phrase{end: i + 1}, true
	}
	return phrase{end: i + 1, date: time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), gran: Month}, true
}

// surname reports whether the word at i is capitalised and follows the
// one before it in the sentence: "by June Carter" names a person.
func (s *scanner) surname(i int) bool {
	if i >= len(s.toks) || !s.toks[i].spaced {
		return false
	}
	c := s.text[s.toks[i].start]
	return c >= 'A' && c <= 'Z'
}
