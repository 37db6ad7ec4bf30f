package tenure_test

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestRelateAllThirteen(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	iv := func(from, until int) tenure.Interval {
		u := at(until)
		return tenure.Interval{From: at(from), Until: &u}
	}
	open := func(from int) tenure.Interval { return tenure.Interval{From: at(from)} }
	cases := []struct {
		a, b     tenure.Interval
		want     tenure.Relation
		disjoint bool
	}{
		{iv(1, 2), iv(3, 4), tenure.Before, true},
		{iv(3, 4), iv(1, 2), tenure.After, true},
		{iv(1, 2), iv(2, 4), tenure.Meets, true},
		{iv(2, 4), iv(1, 2), tenure.MetBy, true},
		{iv(1, 3), iv(2, 4), tenure.Overlaps, false},
		{iv(2, 4), iv(1, 3), tenure.OverlappedBy, false},
		{iv(1, 2), iv(1, 4), tenure.Starts, false},
		{iv(1, 4), iv(1, 2), tenure.StartedBy, false},
		{iv(2, 3), iv(1, 4), tenure.During, false},
		{iv(1, 4), iv(2, 3), tenure.Contains, false},
		{iv(3, 4), iv(1, 4), tenure.Finishes, false},
		{iv(1, 4), iv(3, 4), tenure.FinishedBy, false},
		{iv(1, 4), iv(1, 4), tenure.Equals, false},
		// Open-ended intervals end at +infinity.
		{open(1), open(1), tenure.Equals, false},
		{open(2), open(1), tenure.Finishes, false},
		{iv(1, 2), open(2), tenure.Meets, true},
		{iv(1, 3), open(2), tenure.Overlaps, false},
		{open(1), iv(2, 3), tenure.Contains, false},
	}
	for _, c := range cases {
		got := tenure.Relate(c.a, c.b)
		if got != c.want || got.Disjoint() != c.disjoint {
			t.Errorf("Relate(%v, %v) = %s (disjoint %v), want %s (disjoint %v)", c.a, c.b, got, got.Disjoint(), c.want, c.disjoint)
		}
	}
}

func TestDecayWeight(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := tenure.Object{LastConfirmed: t0, DecayRule: &tenure.DecayRule{HalfLifeDays: 14, MinimumThreshold: 0.2}}
	for _, c := range []struct {
		days    float64
		want    float64
		decayed bool
	}{{0, 1, false}, {14, 0.5, false}, {28, 0.25, false}, {42, 0.125, true}, {-3, 1, false}} {
		now := t0.Add(time.Duration(c.days * 24 * float64(time.Hour)))
		if got := o.DecayWeight(now); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("weight after %v days = %v, want %v", c.days, got, c.want)
		}
		if got := o.Decayed(now); got != c.decayed {
			t.Errorf("decayed after %v days = %v, want %v", c.days, got, c.decayed)
		}
	}
	if w := (&tenure.Object{}).DecayWeight(t0); w != 1 {
		t.Errorf("weight without a rule = %v, want 1", w)
	}
}
