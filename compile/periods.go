package compile

import (
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

// span is a run of calendar days, first and last included, as dates at
// midnight UTC.
type span struct{ first, last time.Time }

// civil returns the calendar date of t as written: in t's own location,
// the day its writer called "today".
func civil(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// queryPeriods returns the periods a query names: the dates it spells out
// ("in July 2022", "on 3 June, 2023"), months and weeks of months without
// their year, the latest by at, the time of the compilation ("in March",
// "the first week of March"), and the past it gives relative to at ("two
// weeks ago", "last month", "yesterday"). A relative day is one either
// side too ("two days ago" is said loosely, and an evening's event may be
// told the next morning), but never today or later: "what should I watch
// tonight" or "this weekend" asks about what is coming, which says
// nothing of which past turns matter.
func queryPeriods(query string, at time.Time) []span {
	var out []span
	for _, d := range append(temporal.Absolute(query), temporal.Named(query, at)...) {
		out = append(out, spanOf(d, 0))
	}
	today := civil(at)
	for _, d := range temporal.New().Resolve(query, at) {
		slack := 0
		if d.Granularity == temporal.Day {
			slack = 1
		}
		p := spanOf(d, slack)
		if p.last.Before(today) || civil(d.Date).Before(today) {
			if !p.last.Before(today) {
				p.last = today.AddDate(0, 0, -1)
			}
			out = append(out, p)
		}
	}
	return out
}

// spanOf returns the days of a resolved date's period, widened by slack
// days on each side.
func spanOf(d tenure.ResolvedDate, slack int) span {
	first := civil(d.Date)
	last := first
	switch d.Granularity {
	case temporal.Week:
		last = first.AddDate(0, 0, 6)
	case temporal.Month:
		last = first.AddDate(0, 1, -1)
	case temporal.Year:
		last = first.AddDate(1, 0, -1)
	}
	return span{first.AddDate(0, 0, -slack), last.AddDate(0, 0, slack)}
}

// holds reports whether t's calendar date is in the span.
func (s span) holds(t time.Time) bool {
	c := civil(t)
	return !c.Before(s.first) && !c.After(s.last)
}

// inPeriods reports whether a message was written in, or resolves a date
// in, one of the periods.
func inPeriods(m *tenure.ScoredMessage, periods []span) bool {
	for _, p := range periods {
		if p.holds(m.CreatedAt) {
			return true
		}
		for _, d := range m.Dates {
			if p.holds(d.Date) {
				return true
			}
		}
	}
	return false
}
