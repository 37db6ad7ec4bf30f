package temporal

import "time"

// Granularities of a resolved date.
const (
	Day   = "day"
	Week  = "week"
	Month = "month"
	Year  = "year"
)

// phrase is a matched expression: the tokens up to end (exclusive) and the
// period they denote. An empty gran marks a phrase that is consumed without
// a date, such as "every Monday" or "the last week of June", so that its
// words are not matched again on their own.
type phrase struct {
	end  int
	date time.Time
	gran string
}

// scanner matches phrases over the words of one text.
type scanner struct {
	text string
	toks []token
	// unixDay is the reference's calendar date, in days since 1 January
	// 1970. It is not a time.Time, whose location pointer would make the
	// escape analysis move toks, usually a stack buffer, to the heap.
	unixDay int64
}

// newScanner returns a scanner of toks, words of text, resolving against
// the calendar date of ref in ref's location.
func newScanner(text string, toks []token, ref time.Time) scanner {
	y, m, d := ref.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return scanner{text: text, toks: toks, unixDay: day.Unix() / secondsPerDay}
}

const secondsPerDay = 24 * 60 * 60

// today is the reference's calendar date at 00:00 UTC.
func (s *scanner) today() time.Time {
	return time.Unix(s.unixDay*secondsPerDay, 0).UTC()
}

// at reports whether the word at i continues a phrase with a word of kind k.
func (s *scanner) at(i int, k kind) bool {
	return i < len(s.toks) && s.toks[i].spaced && s.toks[i].kind == k
}

// days is a day-granularity phrase ending before end, n days from the
// reference.
func (s *scanner) days(end, n int) (phrase, bool) {
	return phrase{end: end, date: s.today().AddDate(0, 0, n), gran: Day}, true
}

// match tries every rule that can start at word i, longest first.
func (s *scanner) match(i int) (phrase, bool) {
	t := s.toks[i]
	switch t.kind {
	case kToday, kTonight:
		return s.days(i+1, 0)
	case kYesterday:
		return s.days(i+1, -1)
	case kTomorrow:
		return s.days(i+1, 1)
	case kThe:
		// "the last week of June", "the next Monday we left": absolute or
		// narrative, not relative to the message. (Not a call to match:
		// recursion would move the scanner's words to the heap.)
		var p phrase
		ok := false
		switch {
		case s.at(i+1, kLast):
			p, ok = s.last(i + 2)
		case s.at(i+1, kNext):
			p, ok = s.next(i + 2)
		}
		if ok {
			return phrase{end: p.end}, true
		}
		if s.at(i+1, kUnit) {
			return s.dayBeforeAfter(i + 1)
		}
		if s.at(i+1, kOrdinal) {
			return s.calendar(i, i)
		}
	case kUnit:
		return s.dayBeforeAfter(i)
	case kNumber, kA, kCouple:
		if p, ok := s.calendar(i, i); ok {
			return p, true
		}
		return s.ago(i)
	case kOrdinal, kMonthName, kMonthAbbr:
		if p, ok := s.calendar(i, i); ok {
			return p, true
		}
		return s.bareMonth(i)
	case kIn:
		return s.in(i)
	case kLast:
		return s.last(i + 1)
	case kThis:
		switch {
		case s.at(i+1, kPast):
			return s.last(i + 2)
		case s.at(i+1, kComing) && s.at(i+2, kWeekday):
			return s.days(i+3, daysAhead(s.today(), time.Weekday(s.toks[i+2].n)))
		case s.at(i+1, kWeekday):
			return s.weekday(i, i+2, int(s.toks[i+1].n), ahead)
		}
		return s.this(i + 1)
	case kNext:
		return s.next(i + 1)
	case kOn:
		if p, ok := s.calendar(i, i+1); ok {
			return p, true
		}
		if s.at(i+1, kWeekday) {
			return s.weekday(i, i+2, int(s.toks[i+1].n), behind)
		}
	case kWeekday:
		if p, ok := s.calendar(i, i); ok {
			return p, true
		}
		return s.weekday(i, i+1, int(t.n), behind)
	case kEvery:
		if s.at(i+1, kWeekday) {
			return phrase{end: i + 2}, true
		}
	}
	return phrase{}, false
}

// dayBeforeAfter matches "day before yesterday" and "day after tomorrow"
// with the unit word at i.
func (s *scanner) dayBeforeAfter(i int) (phrase, bool) {
	if s.toks[i].n != unitDay {
		return phrase{}, false
	}
	switch {
	case s.at(i+1, kBefore) && s.at(i+2, kYesterday):
		return s.days(i+3, -2)
	case s.at(i+1, kAfter) && s.at(i+2, kTomorrow):
		return s.days(i+3, 2)
	}
	return phrase{}, false
}

// ago matches "<count> <unit> ago" and "<count> <unit> from now" with the
// count at i.
func (s *scanner) ago(i int) (phrase, bool) {
	n, j, ok := s.count(i)
	if !ok || !(s.at(j, kUnit) || s.at(j, kUnits)) {
		return phrase{}, false
	}
	switch {
	case s.at(j+1, kAgo):
		return s.units(j+2, j, -n)
	case s.at(j+1, kFrom) && s.at(j+2, kNow):
		return s.units(j+3, j, n)
	}
	return phrase{}, false
}

// in matches "in <count> <unit>" with "in" at i: a time ahead ("in two
// weeks"), unless the clause tells of the past, where it is a duration ("I
// read it in a day") and consumed without a date.
func (s *scanner) in(i int) (phrase, bool) {
	if !s.at(i+1, kNumber) && !s.at(i+1, kA) && !s.at(i+1, kCouple) {
		return phrase{}, false
	}
	n, j, ok := s.count(i + 1)
	if !ok || !(s.at(j, kUnit) || s.at(j, kUnits)) || s.at(j+1, kAgo) {
		// "in a month ago" is "in" before "a month ago": the rule at the
		// next word reads it.
		return phrase{}, false
	}
	if s.direction(i, j+1) == behind {
		return phrase{end: j + 1}, true
	}
	return s.units(j+1, j, n)
}

// units is the phrase ending before end that lies n units of the unit word
// at u from the reference, at that unit's granularity.
func (s *scanner) units(end, u, n int) (phrase, bool) {
	switch s.toks[u].n {
	case unitDay:
		return s.days(end, n)
	case unitWeek:
		return phrase{end: end, date: weekStart(s.today().AddDate(0, 0, 7*n)), gran: Week}, true
	case unitMonth:
		return phrase{end: end, date: s.month(n), gran: Month}, true
	default:
		return phrase{end: end, date: s.year(n), gran: Year}, true
	}
}

// count reads a count at i: digits, one to ten, "a", "a couple (of)",
// "couple of" or "a few". It returns the count and the word after it.
func (s *scanner) count(i int) (n, next int, ok bool) {
	t := s.toks[i]
	switch t.kind {
	case kNumber:
		if s.partOfNumber(i) {
			return 0, 0, false
		}
		return int(t.n), i + 1, true
	case kA:
		switch {
		case s.at(i+1, kCouple) && s.at(i+2, kOf):
			return 2, i + 3, true
		case s.at(i+1, kCouple):
			return 2, i + 2, true
		case s.at(i+1, kFew):
			return 3, i + 2, true
		}
		return 1, i + 1, true
	case kCouple:
		if s.at(i+1, kOf) {
			return 2, i + 2, true
		}
	}
	return 0, 0, false
}

// partOfNumber reports whether the number at i is the tail of a larger one
// ("1.5", "1,000", "1/2", "twenty two", "twenty-two"), which the rules do
// not read; the tail alone would give a wrong count.
func (s *scanner) partOfNumber(i int) bool {
	if i == 0 {
		return false
	}
	prev, t := s.toks[i-1], s.toks[i]
	gap := s.text[prev.end:t.start]
	if prev.kind == kBigNumber && (t.spaced || gap == "-") {
		return true
	}
	if len(gap) == 1 && (gap == "." || gap == "," || gap == "/") {
		c := s.text[prev.end-1]
		return '0' <= c && c <= '9'
	}
	return false
}

// last matches what follows "last" or "this past", the word at i.
func (s *scanner) last(i int) (phrase, bool) {
	if i >= len(s.toks) || !s.toks[i].spaced {
		return phrase{}, false
	}
	t := s.toks[i]
	switch t.kind {
	case kWeekday:
		return s.days(i+1, -daysBack(s.today(), time.Weekday(t.n), false))
	case kUnit:
		return s.unit(i, -1)
	case kNight:
		return s.days(i+1, -1)
	case kWeekend:
		return phrase{end: i + 1, date: weekStart(s.today()).AddDate(0, 0, -2), gran: Day}, true
	case kMonthName:
		// The modal verb ("the last may be") is written in lower case; the
		// month is a proper noun.
		if time.Month(t.n) == time.May && s.text[t.start] != 'M' {
			return phrase{}, false
		}
		y, m, _ := s.today().Date()
		if time.Month(t.n) >= m {
			y--
		}
		return phrase{end: i + 1, date: time.Date(y, time.Month(t.n), 1, 0, 0, 0, 0, time.UTC), gran: Month}, true
	}
	return phrase{}, false
}

// this matches what follows "this", the word at i, but a weekday (see
// match).
func (s *scanner) this(i int) (phrase, bool) {
	if i >= len(s.toks) || !s.toks[i].spaced {
		return phrase{}, false
	}
	switch s.toks[i].kind {
	case kUnit:
		return s.unit(i, 0)
	case kWeekend:
		return phrase{end: i + 1, date: weekStart(s.today()).AddDate(0, 0, 5), gran: Day}, true
	case kPartOfDay:
		return s.days(i+1, 0)
	}
	return phrase{}, false
}

// next matches what follows "next", the word at i.
func (s *scanner) next(i int) (phrase, bool) {
	if i >= len(s.toks) || !s.toks[i].spaced {
		return phrase{}, false
	}
	t := s.toks[i]
	switch t.kind {
	case kWeekday:
		return s.days(i+1, daysAhead(s.today(), time.Weekday(t.n)))
	case kUnit:
		return s.unit(i, 1)
	case kWeekend:
		// The weekend of next week, as "next week" is; "this weekend" is
		// the coming one.
		return phrase{end: i + 1, date: weekStart(s.today()).AddDate(0, 0, 12), gran: Day}, true
	}
	return phrase{}, false
}

// unit resolves "last/this/next <unit>" for the unit word at i, delta units
// from the reference. "last day" is not "yesterday" ("the last day of
// school"), so days are not matched.
func (s *scanner) unit(i, delta int) (phrase, bool) {
	end := i + 1
	switch s.toks[i].n {
	case unitWeek:
		return phrase{end: end, date: weekStart(s.today()).AddDate(0, 0, 7*delta), gran: Week}, true
	case unitMonth:
		return phrase{end: end, date: s.month(delta), gran: Month}, true
	case unitYear:
		return phrase{end: end, date: s.year(delta), gran: Year}, true
	}
	return phrase{}, false
}

// weekday resolves the weekday wd of the phrase from start to end ("on
// Friday", "Friday", "this Friday") in the direction its context gives
// (see direction), or def when the context gives none: ahead, the
// reference day itself when it is that weekday, else the next one; behind,
// the reference day or the most recent one before it.
func (s *scanner) weekday(start, end, wd int, def direction) (phrase, bool) {
	dir := s.direction(start, end)
	if dir == undirected {
		dir = def
	}
	if dir == ahead {
		return s.days(end, daysAhead(s.today(), time.Weekday(wd))%7)
	}
	return s.days(end, -daysBack(s.today(), time.Weekday(wd), true))
}

// month is the first day of the month delta months from the reference's.
func (s *scanner) month(delta int) time.Time {
	y, m, _ := s.today().Date()
	return time.Date(y, m+time.Month(delta), 1, 0, 0, 0, 0, time.UTC)
}

// year is 1 January of the year delta years from the reference's.
func (s *scanner) year(delta int) time.Time {
	return time.Date(s.today().Year()+delta, time.January, 1, 0, 0, 0, 0, time.UTC)
}

// daysBack is how many days before d the most recent wd is: 0 to 6 when
// sameDay allows d itself, else 1 to 7.
func daysBack(d time.Time, wd time.Weekday, sameDay bool) int {
	n := (int(d.Weekday()) - int(wd) + 7) % 7
	if n == 0 && !sameDay {
		n = 7
	}
	return n
}

// daysAhead is how many days after d the next wd is, 1 to 7.
func daysAhead(d time.Time, wd time.Weekday) int {
	n := (int(wd) - int(d.Weekday()) + 7) % 7
	if n == 0 {
		n = 7
	}
	return n
}

// mondayOffset is wd's position in a week that starts on Monday, 0 to 6.
func mondayOffset(wd time.Weekday) int {
	return (int(wd) + 6) % 7
}

// weekStart is the Monday of d's week.
func weekStart(d time.Time) time.Time {
	return d.AddDate(0, 0, -mondayOffset(d.Weekday()))
}
