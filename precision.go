package tenure

import "time"

// Precision is how exactly a valid time is known: "I moved here last
// month" dates the move to a month, not to its first day. The empty
// precision means the time is exact.
type Precision string

// Precisions of a valid time. Each names the calendar period, in UTC, that
// holds the time: the day, the week (from its Monday), the month or the
// year.
const (
	PrecisionExact Precision = ""
	PrecisionDay   Precision = "day"
	PrecisionWeek  Precision = "week"
	PrecisionMonth Precision = "month"
	PrecisionYear  Precision = "year"
)

// Precisions lists the allowed precisions other than exact.
var Precisions = []Precision{PrecisionDay, PrecisionWeek, PrecisionMonth, PrecisionYear}

// Period returns the calendar period of precision p that holds t, as a
// half-open interval [from, until) in UTC. An exact (or unknown) precision
// has no period: from and until are both t.
func (p Precision) Period(t time.Time) (from, until time.Time) {
	y, m, d := t.UTC().Date()
	switch p {
	case PrecisionDay:
		from = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(0, 0, 1)
	case PrecisionWeek:
		from = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		from = from.AddDate(0, 0, -((int(from.Weekday()) + 6) % 7))
		return from, from.AddDate(0, 0, 7)
	case PrecisionMonth:
		from = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(0, 1, 0)
	case PrecisionYear:
		from = time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(1, 0, 0)
	}
	return t, t
}

// ValidPeriod returns when the object's valid time may have started, given
// its precision: the period of ValidPrecision that holds ValidFrom, or
// ValidFrom alone (from == until) when the precision is exact.
func (o *Object) ValidPeriod() (from, until time.Time) {
	return o.ValidPrecision.Period(o.ValidFrom)
}

// SamePeriod reports whether the valid times of a and b, at least one of
// them imprecise, may be the same instant at their precisions: their
// periods overlap, or an exact time lies inside the other's period. "Last
// month" (all of January) and 10 January are the same period. Two exact
// times have no period to share: SamePeriod is false, and their order is
// plain.
func SamePeriod(a, b *Object) bool {
	if a.ValidPrecision == PrecisionExact && b.ValidPrecision == PrecisionExact {
		return false
	}
	af, au := a.ValidPeriod()
	bf, bu := b.ValidPeriod()
	// Half-open periods overlap when each starts before the other ends; an
	// exact time is a point, inside a period when from <= t < until.
	return within(af, bf, bu) || within(bf, af, au) || af.Equal(bf)
}

// within reports whether t lies in [from, until).
func within(t, from, until time.Time) bool {
	return !t.Before(from) && t.Before(until)
}

// MinYear and MaxYear bound the years a stored time may have: JSON's
// RFC 3339 form holds years 0 to 9999 and PostgreSQL has no year 0.
const (
	MinYear = 1
	MaxYear = 9999
)

// InCalendar reports whether t's year in UTC is within MinYear and MaxYear,
// so that every store can hold it.
func InCalendar(t time.Time) bool {
	y := t.UTC().Year()
	return MinYear <= y && y <= MaxYear
}
