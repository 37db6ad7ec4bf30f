package temporal

import (
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// calendar matches a calendar day named without its year, the phrase
// starting at start and its words at i: "March 14", "Mar. 14th", "14
// March", "the 14th of March", each after an optional weekday ("Friday,
// March 14") and, from start, an optional "on". The year is the one that
// puts the day nearest the reference in the direction the context gives
// (see direction and monthDay). A day followed by a year ("March 14,
// 2025") is Absolute's: the phrase is consumed without a date.
func (s *scanner) calendar(start, i int) (phrase, bool) {
	wd := -1
	if i < len(s.toks) && s.toks[i].kind == kWeekday {
		wd = int(s.toks[i].n)
		if !s.joined(i + 1) {
			return phrase{}, false
		}
		i++
	}
	if i >= len(s.toks) || i > start && !s.joined(i) {
		return phrase{}, false
	}
	m, d, end, ok := s.monthAndDay(i)
	if !ok {
		return phrase{}, false
	}
	if end < len(s.toks) && s.joined(end) && s.toks[end].kind == kNumber && s.toks[end].end-s.toks[end].start == 4 {
		return phrase{end: end + 1}, true
	}
	date, ok := s.monthDay(m, d, wd, s.direction(start, end))
	if !ok {
		return phrase{end: end}, true
	}
	return phrase{end: end, date: date, gran: Day}, true
}

// monthAndDay reads a month and a day of it at i, in either order, and
// returns them with the word after them.
func (s *scanner) monthAndDay(i int) (m time.Month, d, end int, ok bool) {
	t := s.toks[i]
	switch t.kind {
	case kMonthName, kMonthAbbr:
		if !s.properMonth(i) {
			return 0, 0, 0, false
		}
		j := i + 1
		if j < len(s.toks) && (s.toks[j].spaced || t.kind == kMonthAbbr && s.gapIs(j, ".")) && s.dayOfMonth(j) {
			return time.Month(t.n), int(s.toks[j].n), j + 1, true
		}
	case kThe:
		if s.at(i+1, kOrdinal) && s.at(i+2, kOf) && s.monthAt(i+3) {
			return time.Month(s.toks[i+3].n), int(s.toks[i+1].n), i + 4, true
		}
	case kNumber, kOrdinal:
		if !s.dayOfMonth(i) {
			return 0, 0, 0, false
		}
		j := i + 1
		if t.kind == kOrdinal && s.at(j, kOf) {
			j++
		}
		if s.monthAt(j) {
			return time.Month(s.toks[j].n), int(t.n), j + 1, true
		}
	}
	return 0, 0, 0, false
}

// monthAt reports whether the word at i continues a phrase with a month.
func (s *scanner) monthAt(i int) bool {
	return (s.at(i, kMonthName) || s.at(i, kMonthAbbr)) && s.properMonth(i)
}

// properMonth reports whether the month word at i reads as a month: "may"
// and "march" are verbs unless capitalised.
func (s *scanner) properMonth(i int) bool {
	t := s.toks[i]
	if t.kind == kMonthName && (time.Month(t.n) == time.May || time.Month(t.n) == time.March) {
		return s.text[t.start] == 'M'
	}
	return true
}

// dayOfMonth reports whether the word at i can be a day of a month: an
// ordinal, or a number of one or two digits from 1 to 31 that is not the
// tail of a larger number.
func (s *scanner) dayOfMonth(i int) bool {
	t := s.toks[i]
	switch t.kind {
	case kOrdinal:
		return true
	case kNumber:
		return t.end-t.start <= 2 && t.n >= 1 && t.n <= 31 && '0' <= s.text[t.start] && s.text[t.start] <= '9' &&
			!s.partOfNumber(i)
	}
	return false
}

// joined reports whether only white space, or a comma and white space,
// separates the word at i from the one before: "Friday, March 14".
func (s *scanner) joined(i int) bool {
	return i < len(s.toks) && (s.toks[i].spaced || s.gapIs(i, ","))
}

// gapIs reports whether the text between the word at i and the one before
// is sep, possibly followed by white space.
func (s *scanner) gapIs(i int, sep string) bool {
	if i == 0 {
		return false
	}
	gap := s.text[s.toks[i-1].end:s.toks[i].start]
	rest, ok := strings.CutPrefix(gap, sep)
	return ok && onlySpace(rest)
}

// monthDay is day d of month m in the year, within one of the reference's,
// that puts it nearest the reference day in direction dir: on or after it
// ahead, on or before it behind, either side when undirected. A weekday wd
// (-1 for none) prefers the years in which the day falls on it ("Friday
// March 14"). It reports false when no such year has that day (30
// February) within the calendar every store holds.
func (s *scanner) monthDay(m time.Month, d, wd int, dir direction) (time.Time, bool) {
	today := s.today()
	var best time.Time
	found, bestOnWeekday := false, false
	for y := today.Year() - 1; y <= today.Year()+1; y++ {
		t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d || !tenure.InCalendar(t) ||
			dir == ahead && t.Before(today) || dir == behind && t.After(today) {
			continue
		}
		onWeekday := wd >= 0 && int(t.Weekday()) == wd
		switch {
		case !found, onWeekday && !bestOnWeekday,
			onWeekday == bestOnWeekday && distance(t, today) < distance(best, today):
			best, found, bestOnWeekday = t, true, onWeekday
		}
	}
	return best, found
}

// distance is how far apart a and b are.
func distance(a, b time.Time) time.Duration {
	if d := a.Sub(b); d >= 0 {
		return d
	}
	return b.Sub(a)
}
