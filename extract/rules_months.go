package extract

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// monthAheadRe is a month named without its day or year after a word that
// sets a deadline or a period ahead: "by June", "until January", "before
// the end of March", "from October". Names are title case: "may" and
// "march" in lower case are verbs.
var monthAheadRe = mustPattern(`\b(?i:(by|before|until|till|from|through)\s+(?:(?:early|mid|late)[\s-]+|the\s+(?:end|start|beginning|middle)\s+of\s+)?)(January|February|March|April|May|June|July|August|September|October|November|December)\b`)

// monthFollowRe is what, after a month, says it is no month or is dated
// by a day: a capitalised word ("by June Carter") or a number that is no
// year.
var monthFollowRe = mustPattern(`^(?:,?\s+\d{1,2}\b|\s+[A-Z]|'s\b)`)

// monthYearRe is the year after a month: "by June 2024".
var monthYearRe = mustPattern(`^,?\s+(\d{4})\b`)

// monthsAhead writes the months a deadline or a plan names without a year
// with the year they fall in — this one, or the next when the month has
// passed ("by June" in July 2025 is June 2026; "by June 2024" keeps its
// year) — and returns due, or when
// due is empty the month the first of them after a deadline word states.
func monthsAhead(text string, ref time.Time, due string) (string, string) {
	if !monthAheadRe.may(text) {
		return text, due
	}
	ms := monthAheadRe.re.FindAllStringSubmatchIndex(text, -1)
	if ms == nil {
		return text, due
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if monthFollowRe.MatchString(text[m[1]:]) {
			continue
		}
		month := monthNumber(text[m[4]:m[5]])
		year, dated := ref.Year(), false
		if y := monthYearRe.FindStringSubmatch(text[m[1]:]); y != nil {
			year, _ = strconv.Atoi(y[1])
			dated = true
		} else if month < ref.Month() {
			year++
		}
		if prep := lower(text[m[2]:m[3]]); due == "" && prep != "from" && prep != "through" {
			due = fmt.Sprintf("%04d-%02d", year, int(month))
		}
		if !dated {
			b.WriteString(text[last:m[1]])
			b.WriteString(" " + strconv.Itoa(year))
			last = m[1]
		}
	}
	b.WriteString(text[last:])
	return b.String(), due
}
