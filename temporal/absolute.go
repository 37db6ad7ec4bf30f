package temporal

import (
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/tenure-dev/tenure"
)

var (
	monthRe = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`
	// "3 June, 2023", "3rd of June 2023", "June 3, 2023", "June 2023".
	dayMonthYear = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+` + monthRe + `\.?,?\s+(\d{4})\b`)
	monthDayYear = regexp.MustCompile(`(?i)\b` + monthRe + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	monthYear    = regexp.MustCompile(`(?i)\b` + monthRe + `\.?,?\s+(\d{4})\b`)
)

// monthOf returns the month a name or abbreviation monthRe matched denotes,
// from the lexer's table.
func monthOf(name string) time.Month {
	_, n := classify(name)
	return time.Month(n)
}

// Absolute returns the calendar dates and months text names outright ("3
// June, 2023", "June 3 2023", "July 2022"), in order of appearance, as
// days or months. Relative expressions are Resolve's. A year no store
// holds (0000) names no date.
func Absolute(text string) []tenure.ResolvedDate {
	type found struct {
		start int
		date  tenure.ResolvedDate
	}
	var all []found
	taken := make([]bool, len(text))
	add := func(start, end int, d time.Time, gran string) {
		if !tenure.InCalendar(d) {
			return
		}
		for i := start; i < end; i++ {
			if taken[i] {
				return
			}
		}
		for i := start; i < end; i++ {
			taken[i] = true
		}
		all = append(all, found{start, tenure.ResolvedDate{Expr: text[start:end], Date: d, Granularity: gran}})
	}
	for _, m := range dayMonthYear.FindAllStringSubmatchIndex(text, -1) {
		if d, ok := day(text[m[6]:m[7]], text[m[4]:m[5]], text[m[2]:m[3]]); ok {
			add(m[0], m[1], d, Day)
		}
	}
	for _, m := range monthDayYear.FindAllStringSubmatchIndex(text, -1) {
		if d, ok := day(text[m[6]:m[7]], text[m[2]:m[3]], text[m[4]:m[5]]); ok {
			add(m[0], m[1], d, Day)
		}
	}
	for _, m := range monthYear.FindAllStringSubmatchIndex(text, -1) {
		y, _ := strconv.Atoi(text[m[4]:m[5]])
		add(m[0], m[1], time.Date(y, monthOf(text[m[2]:m[3]]), 1, 0, 0, 0, 0, time.UTC), Month)
	}
	slices.SortFunc(all, func(a, b found) int { return a.start - b.start })
	var out []tenure.ResolvedDate
	for _, f := range all {
		out = append(out, f.date)
	}
	return out
}

// day builds a valid calendar date from year, month name and day strings.
func day(year, month, dayOfMonth string) (time.Time, bool) {
	y, _ := strconv.Atoi(year)
	d, _ := strconv.Atoi(dayOfMonth)
	t := time.Date(y, monthOf(month), d, 0, 0, 0, 0, time.UTC)
	if d < 1 || t.Day() != d {
		return time.Time{}, false
	}
	return t, true
}
