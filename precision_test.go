package tenure_test

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestPrecisionPeriod(t *testing.T) {
	// Wednesday 10 January 2024, in the evening of a zone east of UTC:
	// periods are UTC calendar periods.
	at := time.Date(2024, 1, 10, 23, 30, 0, 0, time.FixedZone("X", -2*3600))
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		p           tenure.Precision
		from, until time.Time
	}{
		{tenure.PrecisionDay, d(2024, 1, 11), d(2024, 1, 12)},
		{tenure.PrecisionWeek, d(2024, 1, 8), d(2024, 1, 15)},
		{tenure.PrecisionMonth, d(2024, 1, 1), d(2024, 2, 1)},
		{tenure.PrecisionYear, d(2024, 1, 1), d(2025, 1, 1)},
		{tenure.PrecisionExact, at, at},
	} {
		from, until := c.p.Period(at)
		if !from.Equal(c.from) || !until.Equal(c.until) {
			t.Errorf("%q.Period(%v) = [%v, %v), want [%v, %v)", c.p, at, from, until, c.from, c.until)
		}
	}
}

func TestSamePeriod(t *testing.T) {
	dated := func(y int, m time.Month, d int, p tenure.Precision) *tenure.Object {
		return &tenure.Object{ValidFrom: time.Date(y, m, d, 12, 0, 0, 0, time.UTC), ValidPrecision: p}
	}
	for _, c := range []struct {
		name string
		a, b *tenure.Object
		want bool
	}{
		{"MonthHoldsDay", dated(2025, 1, 1, tenure.PrecisionMonth), dated(2025, 1, 10, ""), true},
		{"Symmetric", dated(2025, 1, 10, ""), dated(2025, 1, 1, tenure.PrecisionMonth), true},
		{"MonthMissesNextMonth", dated(2025, 1, 1, tenure.PrecisionMonth), dated(2025, 2, 1, ""), false},
		{"YearHoldsMonth", dated(2025, 6, 1, tenure.PrecisionMonth), dated(2025, 1, 1, tenure.PrecisionYear), true},
		{"DaysApart", dated(2025, 1, 9, tenure.PrecisionDay), dated(2025, 1, 10, tenure.PrecisionDay), false},
		{"SameDay", dated(2025, 1, 10, tenure.PrecisionDay), dated(2025, 1, 10, ""), true},
		// Two exact times share no period, even when equal.
		{"ExactEqual", dated(2025, 1, 10, ""), dated(2025, 1, 10, ""), false},
	} {
		if got := tenure.SamePeriod(c.a, c.b); got != c.want {
			t.Errorf("%s: SamePeriod = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestInCalendar(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want bool
	}{
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC), false},
		{time.Date(-3000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		// 1 January 10000 at 01:00 two hours east of UTC is still 9999 in UTC.
		{time.Date(10000, 1, 1, 1, 0, 0, 0, time.FixedZone("X", 2*3600)), true},
	} {
		if got := tenure.InCalendar(c.t); got != c.want {
			t.Errorf("InCalendar(%v) = %v, want %v", c.t, got, c.want)
		}
	}
}
