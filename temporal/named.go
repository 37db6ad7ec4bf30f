package temporal

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tenure-dev/tenure"
)

var (
	// "the first week of March", "the last weekend in June 2023".
	weekOfMonth = regexp.MustCompile(`(?i)\b(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+(week|weekend)\s+(?:of|in)\s+` +
		monthRe + `\b\.?(?:,?\s+(\d{4})\b)?`)
	// "in March", "during early June", "since late Sept.", "the end of May".
	namedMonth = regexp.MustCompile(`(?i)\b(?:in|during|of|since|until|through|throughout)\s+(?:early\s+|mid-?\s*|late\s+)?` +
		monthRe + `\b\.?`)
)

// Named returns the periods text names by a month without its year, as a
// question about the past does: a month ("in March", "during early June")
// and a week or weekend of a month ("the first week of March", "the last
// weekend in June"). A month without its year is the latest one that began
// by ref ("in March" asked in May 2023 is March 2023, asked in February
// 2024 March 2023 too); a week of a month names days 1-7, 8-14, 15-21 or
// 22-28 of it, or its last seven (a week from the day it starts on, not
// from a Monday), and a weekend its Saturday and Sunday.
// A month followed by a day or a year is left to Absolute and Resolve, as
// is "may" in lower case, which is a verb more often than a month.
func Named(text string, ref time.Time) []tenure.ResolvedDate {
	type found struct {
		start int
		dates []tenure.ResolvedDate
	}
	var all []found
	taken := make([]bool, len(text))
	claim := func(start, end int) bool {
		if slices.Contains(taken[start:end], true) {
			return false
		}
		for i := start; i < end; i++ {
			taken[i] = true
		}
		return true
	}
	y, m, _ := ref.Date()
	latest := func(month time.Month) int {
		if month > m {
			return y - 1
		}
		return y
	}
	for _, sm := range weekOfMonth.FindAllStringSubmatchIndex(text, -1) {
		name := text[sm[6]:sm[7]]
		if !isMonth(text, sm[6], sm[7]) || !claim(sm[0], sm[1]) {
			continue
		}
		month := monthOf(name)
		year := latest(month)
		if sm[8] >= 0 {
			year, _ = strconv.Atoi(text[sm[8]:sm[9]])
		}
		first := time.Date(year, month, 1, 0, 0, 0, 0, time.UTC)
		if !tenure.InCalendar(first) {
			continue
		}
		n := ordinal(strings.ToLower(text[sm[2]:sm[3]]))
		expr := text[sm[0]:sm[1]]
		var dates []tenure.ResolvedDate
		if strings.EqualFold(text[sm[4]:sm[5]], "weekend") {
			// The n-th Saturday of the month, or its last.
			sat := first.AddDate(0, 0, (int(time.Saturday)-int(first.Weekday())+7)%7+7*(n-1))
			if n == 0 {
				last := first.AddDate(0, 1, -1)
				sat = last.AddDate(0, 0, -((int(last.Weekday()) - int(time.Saturday) + 7) % 7))
			}
			dates = []tenure.ResolvedDate{{Expr: expr, Date: sat, Granularity: Day}, {Expr: expr, Date: sat.AddDate(0, 0, 1), Granularity: Day}}
		} else {
			start := first.AddDate(0, 0, 7*(n-1))
			if n == 0 {
				start = first.AddDate(0, 1, -7)
			}
			dates = []tenure.ResolvedDate{{Expr: expr, Date: start, Granularity: Week}}
		}
		if tenure.InCalendar(dates[len(dates)-1].Date) {
			all = append(all, found{sm[0], dates})
		}
	}
	for _, sm := range namedMonth.FindAllStringSubmatchIndex(text, -1) {
		if !isMonth(text, sm[2], sm[3]) || followedByNumber(text[sm[1]:]) || !claim(sm[0], sm[1]) {
			continue
		}
		month := monthOf(text[sm[2]:sm[3]])
		first := time.Date(latest(month), month, 1, 0, 0, 0, 0, time.UTC)
		if tenure.InCalendar(first) {
			all = append(all, found{sm[0], []tenure.ResolvedDate{{Expr: text[sm[0]:sm[1]], Date: first, Granularity: Month}}})
		}
	}
	slices.SortFunc(all, func(a, b found) int { return a.start - b.start })
	var out []tenure.ResolvedDate
	for _, f := range all {
		out = append(out, f.dates...)
	}
	return out
}

// isMonth reports whether text[start:end] names a month: any spelling of
// one but "may", which must be capitalized.
func isMonth(text string, start, end int) bool {
	return !strings.EqualFold(text[start:end], "may") || unicode.IsUpper(rune(text[start]))
}

// followedByNumber reports whether rest starts with a day or a year ("
// 14", ", 2023").
func followedByNumber(rest string) bool {
	rest = strings.TrimLeft(rest, " ,")
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// ordinal returns 1-4 for the ordinals of weekOfMonth, 0 for "last".
func ordinal(w string) int {
	switch w {
	case "first", "1st":
		return 1
	case "second", "2nd":
		return 2
	case "third", "3rd":
		return 3
	case "fourth", "4th":
		return 4
	}
	return 0
}
