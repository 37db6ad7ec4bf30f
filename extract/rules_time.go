package extract

import (
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

// deadlinePreps are the words after which a bare weekday is a date ("by
// Friday"); elsewhere it may be part of a name ("Black Friday").
var deadlinePreps = map[string]bool{"by": true, "before": true, "until": true, "till": true,
	"due": true, "on": true, "from": true, "after": true, "through": true, "is": true, "for": true}

// datesExplicit rewrites the relative dates of an action or constraint as
// calendar dates, so that "ship the report by Friday" still means the same
// day when it is read a month later, and returns the due date it states:
// the first date after a deadline preposition ("by", "before", "on" ...)
// or a day named by itself ("today", "tomorrow"), as YYYY-MM-DD, YYYY-MM
// or YYYY by its precision (a week is no due date), or "". A bare weekday
// counts forward: a task is due on the coming Friday, where a story's "on
// Friday" was the last one, which is how the temporal package reads it. A
// day of a month without a year ("by March 14", "by Friday March 14") is
// the next such day, or this year's when it passed less than a month ago.
func (r *Rules) datesExplicit(text string, ref time.Time) (string, string) {
	if ref.IsZero() {
		return text, ""
	}
	text, due := monthDays(text, ref)
	text, due = ordinalDays(text, ref, due)
	text, due = monthsAhead(text, ref, due)
	var b strings.Builder
	rest := text
	dated := false
	for _, d := range r.resolve(text, ref) {
		k := strings.Index(rest, d.Expr)
		if k < 0 || d.Expr == "" {
			continue
		}
		prev := lastWord(rest[:k])
		bare := isWeekday(d.Expr)
		// "on Saturday and Sunday": a weekday joined to the date before
		// it is read as that one is.
		joined := dated && coordinators[strings.TrimSpace(lower(rest[:k]))]
		if bare && !deadlinePreps[prev] && !joined {
			dated = false
			continue
		}
		dated = true
		if bare || strings.HasPrefix(lower(d.Expr), "on ") {
			d.Date = forward(d.Date, ref)
		}
		// "on Friday" resolves with its preposition, which makes it a due
		// date as "by Friday" does.
		if due == "" && (dueWords[prev] || dayWords[lower(d.Expr)] || strings.HasPrefix(lower(d.Expr), "on ")) {
			due = dueOf(d)
		}
		b.WriteString(rest[:k])
		b.WriteString(datePhrase(d, prev))
		rest = rest[k+len(d.Expr):]
	}
	b.WriteString(rest)
	return b.String(), due
}

// coordinators join a date to the one before it.
var coordinators = map[string]bool{"and": true, "or": true, "&": true, ",": true, "and on": true, "or on": true}

// dueWords are the words after which a date is when something is due.
var dueWords = map[string]bool{"by": true, "before": true, "until": true, "till": true, "due": true,
	"on": true, "than": true, "for": true}

// dayWords name a day by themselves.
var dayWords = map[string]bool{"today": true, "tonight": true, "tomorrow": true}

// dueOf renders a resolved date as a due date at its precision.
func dueOf(d tenure.ResolvedDate) string {
	switch d.Granularity {
	case temporal.Day:
		return d.Date.Format("2006-01-02")
	case temporal.Month:
		return d.Date.Format("2006-01")
	case temporal.Year:
		return d.Date.Format("2006")
	}
	return ""
}

// monthDayRe is a day of a month without a year, with the weekday it may
// follow: "March 14", "14th of March", "Friday March 14".
var monthDayRe = mustPattern(`(?i)\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:(` + monthNames + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?|(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+(` + monthNames + `)\.?)\b(,?\s+\d{4})?`)

const monthNames = `january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec`

// staleDays is how long ago this year's date of a month-day may be and
// still be meant: later than that, the next year's is.
const staleDays = 31

// monthDays writes the days of a month text names without a year as full
// dates and returns the due date the first of them after a deadline word
// states.
func monthDays(text string, ref time.Time) (string, string) {
	ms := monthDayRe.re.FindAllStringSubmatchIndex(text, -1)
	return writeDays(text, ms, "", func(m []int) (time.Time, bool) {
		if m[10] >= 0 {
			return time.Time{}, false // it has a year
		}
		var mon, day string
		if m[2] >= 0 {
			mon, day = text[m[2]:m[3]], text[m[4]:m[5]]
		} else {
			mon, day = text[m[8]:m[9]], text[m[6]:m[7]]
		}
		month := monthNumber(mon)
		dn, err := strconv.Atoi(day)
		if month == 0 || err != nil || dn < 1 || dn > 31 {
			return time.Time{}, false
		}
		d := time.Date(ref.Year(), month, dn, 0, 0, 0, 0, time.UTC)
		if d.Day() != dn {
			return time.Time{}, false // 31 April
		}
		today := time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC)
		if d.Before(today.AddDate(0, 0, -staleDays)) {
			d = d.AddDate(1, 0, 0)
		}
		return d, true
	})
}

// writeDays writes the matches ms of text that dayOf reads as a day as
// full dates, and returns due, or when due is empty the date the first of
// them after a deadline word states.
func writeDays(text string, ms [][]int, due string, dayOf func(m []int) (time.Time, bool)) (string, string) {
	if ms == nil {
		return text, due
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		d, ok := dayOf(m)
		if !ok {
			continue
		}
		rd := tenure.ResolvedDate{Expr: text[m[0]:m[1]], Date: d, Granularity: temporal.Day}
		before := text[:m[0]]
		if isWeekday(lastWord(before)) {
			// "on Monday the 22nd": the weekday names the same day.
			f := strings.Fields(before)
			before = strings.Join(f[:len(f)-1], " ")
		}
		if due == "" && dueWords[lower(lastWord(before))] {
			due = dueOf(rd)
		}
		b.WriteString(text[last:m[0]])
		b.WriteString(temporal.Format(rd))
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String(), due
}

// monthNumber is the month a name or abbreviation names, or 0.
func monthNumber(name string) time.Month {
	name = lower(name)
	for m := time.January; m <= time.December; m++ {
		full := lower(m.String())
		if name == full || len(name) >= 3 && strings.HasPrefix(full, name) {
			return m
		}
	}
	return 0
}

// forward moves a date before the reference day a week ahead.
func forward(d, ref time.Time) time.Time {
	y, m, day := ref.Date()
	if d.Before(time.Date(y, m, day, 0, 0, 0, 0, time.UTC)) {
		return d.AddDate(0, 0, 7)
	}
	return d
}

// datePhrase renders a resolved date for the place of its expression: bare
// after a preposition ("by 12 May 2023"), else with one ("on 9 May 2023",
// "in June 2023").
func datePhrase(d tenure.ResolvedDate, prev string) string {
	s := temporal.Format(d)
	if strings.HasPrefix(lower(d.Expr), "on ") {
		return "on " + s
	}
	if deadlinePreps[prev] || prev == "of" || prev == "since" || prev == "in" {
		if d.Granularity == temporal.Week {
			return "the " + s
		}
		return s
	}
	switch d.Granularity {
	case temporal.Week:
		return "in the " + s
	case temporal.Month, temporal.Year:
		return "in " + s
	}
	return "on " + s
}

// validFrom is when a change a clause reports took effect: the first date
// the clause resolves to, or nil. Weekdays are left out: "visiting on
// Friday" dates a visit, not the fact.
func (r *Rules) validFrom(clause string, ref time.Time) *tenure.ResolvedDate {
	if ref.IsZero() {
		return nil
	}
	for _, d := range r.resolve(clause, ref) {
		if !isWeekday(d.Expr) {
			return &d
		}
	}
	return nil
}

func isWeekday(s string) bool {
	return calendarWords[lower(s)] && strings.HasSuffix(lower(s), "day")
}

func lastWord(s string) string {
	w := words(s)
	if len(w) == 0 {
		return ""
	}
	return w[len(w)-1]
}

// ordinalDayRe is a day of the month named by its ordinal alone: "by the
// 9th". monthDays has already written out those with a month.
var ordinalDayRe = mustPattern(`(?i)\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b`)

// ordinalDays writes the days of the month a text names by their ordinal
// alone as full dates: the next such day from ref, today included. It
// returns due, or when due is empty the date the first of them after a
// deadline word states.
func ordinalDays(text string, ref time.Time, due string) (string, string) {
	if !ordinalDayRe.may(text) {
		return text, due
	}
	ms := ordinalDayRe.re.FindAllStringSubmatchIndex(text, -1)
	return writeDays(text, ms, due, func(m []int) (time.Time, bool) {
		dn, err := strconv.Atoi(text[m[2]:m[3]])
		if err != nil || dn < 1 || dn > 31 {
			return time.Time{}, false
		}
		y, mon, day := ref.Date()
		if dn < day {
			mon++
		}
		d := time.Date(y, mon, dn, 0, 0, 0, 0, time.UTC)
		return d, d.Day() == dn // not the 31st of a short month
	})
}

// thenTimeRe is "then" standing for a time after a preposition that takes
// one: "don't ship before then".
var thenTimeRe = mustPattern(`(?i)\b(` + thenPreps + `)\s+then\b`)

// thenPreps are the prepositions after which "then" stands for a time.
const thenPreps = `before|until|till|by|after|since|from`

// thenAsDate writes the date a "before then" points back to in its place,
// so that "I'm away until June 10, so don't ship before then" yields "don't
// ship before June 10" and not a rule cut short: the last date stated
// before it in the message. Without one, the text is returned as it is.
func (r *Rules) thenAsDate(text string, ref time.Time) string {
	// (A "then" after a preposition is lower case; looking for it first
	// spares folding every message for the pattern's prefilter.)
	if ref.IsZero() || !strings.Contains(text, "then") || !thenTimeRe.MatchString(text) {
		return text
	}
	var b strings.Builder
	done := 0
	for _, m := range thenTimeRe.re.FindAllStringSubmatchIndex(text, -1) {
		expr, at := "", -1
		for _, d := range r.resolve(text[:m[0]], ref) {
			if k := strings.LastIndex(text[:m[0]], d.Expr); d.Expr != "" && k > at {
				expr, at = d.Expr, k
			}
		}
		if expr == "" {
			continue
		}
		if p, rest, ok := strings.Cut(expr, " "); ok && deadlinePreps[lower(p)] {
			expr = rest
		}
		b.WriteString(text[done:m[3]])
		b.WriteString(" ")
		b.WriteString(expr)
		done = m[1]
	}
	b.WriteString(text[done:])
	return b.String()
}
