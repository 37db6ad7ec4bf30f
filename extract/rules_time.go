package extract

import (
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

// deadlinePreps are the words after which a bare weekday is a date ("by
// Friday"); elsewhere it may be part of a name ("Black Friday").
var deadlinePreps = map[string]bool{"by": true, "before": true, "until": true, "till": true,
	"due": true, "on": true, "from": true, "after": true, "through": true, "is": true}

// datesExplicit rewrites the relative dates of an action or constraint as
// calendar dates, so that "ship the report by Friday" still means the same
// day when it is read a month later. A bare weekday counts forward: a task
// is due on the coming Friday, where a story's "on Friday" was the last
// one, which is how the temporal package reads it.
func (r *Rules) datesExplicit(text string, ref time.Time) string {
	if ref.IsZero() {
		return text
	}
	var b strings.Builder
	rest := text
	for _, d := range r.resolve(text, ref) {
		k := strings.Index(rest, d.Expr)
		if k < 0 || d.Expr == "" {
			continue
		}
		prev := lastWord(rest[:k])
		bare := isWeekday(d.Expr)
		if bare && !deadlinePreps[prev] {
			continue
		}
		if bare || strings.HasPrefix(lower(d.Expr), "on ") {
			d.Date = forward(d.Date, ref)
		}
		b.WriteString(rest[:k])
		b.WriteString(datePhrase(d, prev))
		rest = rest[k+len(d.Expr):]
	}
	b.WriteString(rest)
	return b.String()
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
