package summarize_test

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure/summarize"
)

func TestDueRolling(t *testing.T) {
	for _, tt := range []struct {
		turns, every int
		want         bool
	}{
		{0, 4, false}, {3, 4, false}, {4, 4, true}, {5, 4, true},
		{9, 0, false}, {summarize.DefaultRollingEvery, 0, true}, {10, -1, true},
	} {
		if got := summarize.DueRolling(tt.turns, tt.every); got != tt.want {
			t.Errorf("DueRolling(%d, %d) = %v, want %v", tt.turns, tt.every, got, tt.want)
		}
	}
}

func TestSessionClosed(t *testing.T) {
	last := time.Date(2024, 5, 8, 18, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		last, now  time.Time
		inactivity time.Duration
		want       bool
	}{
		{"Active", last, last.Add(29 * time.Minute), 0, false},
		{"ClosedAtDefault", last, last.Add(summarize.DefaultInactivity), 0, true},
		{"Closed", last, last.Add(2 * time.Hour), 0, true},
		{"CustomOpen", last, last.Add(5 * time.Minute), 10 * time.Minute, false},
		{"CustomClosed", last, last.Add(11 * time.Minute), 10 * time.Minute, true},
		{"ClockSkew", last, last.Add(-time.Hour), 0, false},
		{"NoSession", time.Time{}, last, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize.SessionClosed(tt.last, tt.now, tt.inactivity); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
