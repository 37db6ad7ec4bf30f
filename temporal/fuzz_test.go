package temporal_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

// FuzzResolve checks the invariants every result must keep, whatever the
// text: no panic, each Expr is the input's own text, in order of
// appearance, dates are midnights in UTC aligned to their granularity and
// in the calendar every store holds (they marshal as JSON), and no period
// is listed twice.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"Yesterday I went hiking, and last Saturday we had a picnic.",
		"the day before yesterday", "a couple of days ago", "a few weeks ago",
		"this past weekend", "next Sunday", "last May", "on Friday",
		"twenty-two days ago", "1.5 weeks ago", "9999 years ago",
		"every Monday", "the last week of June", "\xfflast\xfe week",
		"last\u00a0week", "LAST WEEK", "",
		"Marco will set up the pipeline by Friday March 14", "by Wednesday", "this Friday",
		"in two weeks", "10 days from now", "the 14th of March", "Mar. 14th, 2025", "February 29",
		"I went there on Friday and will go again on Sunday", "We won't be there on Friday",
		"6000 years ago", "in 9999 years", "3000 BCE", "year 12000",
		"by Fri", "next Tues", "Sat down on Sat", "until Sun.", "Wed 5 March",
	} {
		f.Add(s, monday.Unix())
	}
	r := temporal.New()
	f.Fuzz(func(t *testing.T, text string, sec int64) {
		// Years 1 to 9999: the range a message's timestamp can have.
		got := r.Resolve(text, timeIn(sec, 1, 9999))
		if got != nil && len(got) == 0 {
			t.Fatalf("Resolve(%q) = empty non-nil slice", text)
		}
		seen := map[string]bool{}
		lower := strings.ToLower(text)
		pos := 0
		for _, d := range got {
			// Exact containment, stronger than the case-insensitive kind,
			// holds because Expr is a slice of the input.
			if d.Expr == "" || !strings.Contains(lower, strings.ToLower(d.Expr)) {
				t.Fatalf("Resolve(%q): Expr %q is not in the text", text, d.Expr)
			}
			i := strings.Index(text[pos:], d.Expr)
			if i < 0 {
				t.Fatalf("Resolve(%q): Expr %q is out of order", text, d.Expr)
			}
			pos += i + len(d.Expr)
			if d.Date.Location() != time.UTC || d.Date.Hour() != 0 || d.Date.Minute() != 0 || d.Date.Second() != 0 || d.Date.Nanosecond() != 0 {
				t.Fatalf("Resolve(%q): date %v of %q is not 00:00 UTC", text, d.Date, d.Expr)
			}
			switch d.Granularity {
			case "day":
			case "week":
				if d.Date.Weekday() != time.Monday {
					t.Fatalf("Resolve(%q): week %v of %q is not a Monday", text, d.Date, d.Expr)
				}
			case "month":
				if d.Date.Day() != 1 {
					t.Fatalf("Resolve(%q): month %v of %q is not a first", text, d.Date, d.Expr)
				}
			case "year":
				if d.Date.Day() != 1 || d.Date.Month() != time.January {
					t.Fatalf("Resolve(%q): year %v of %q is not 1 January", text, d.Date, d.Expr)
				}
			default:
				t.Fatalf("Resolve(%q): granularity %q of %q", text, d.Granularity, d.Expr)
			}
			if !tenure.InCalendar(d.Date) {
				t.Fatalf("Resolve(%q): date %v of %q is out of the calendar", text, d.Date, d.Expr)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Fatalf("Resolve(%q): date of %q does not marshal: %v", text, d.Expr, err)
			}
			key := d.Date.String() + d.Granularity
			if seen[key] {
				t.Fatalf("Resolve(%q): period %s listed twice", text, key)
			}
			seen[key] = true
			_ = temporal.Format(d)
		}
	})
}

// timeIn maps sec, seconds since 1970, onto a time in the years from lo to
// hi: itself when it is there, else wrapped into the range.
func timeIn(sec int64, lo, hi int) time.Time {
	from := time.Date(lo, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	until := time.Date(hi, 12, 31, 0, 0, 0, 0, time.UTC).Unix()
	if sec < from || sec > until {
		sec = from + (sec%(until-from)+(until-from))%(until-from)
	}
	return time.Unix(sec, 0).UTC()
}

// FuzzNamed checks that Named never panics and that each result is the
// input's own text, a midnight in UTC in the calendar every store holds,
// a day, a week or a month (on its first).
func FuzzNamed(f *testing.F) {
	for _, s := range []string{"in March", "the first week of March", "the last weekend in June 2023", "since Sept.",
		"in May 14", "during mid-July", "the 4th week of Dec 9999", "the last weekend of Feb 0001", ""} {
		f.Add(s, monday.Unix())
	}
	f.Fuzz(func(t *testing.T, text string, sec int64) {
		for _, d := range temporal.Named(text, timeIn(sec, 1, 9999)) {
			if d.Expr == "" || !strings.Contains(text, d.Expr) {
				t.Fatalf("Named(%q): Expr %q is not in the text", text, d.Expr)
			}
			if d.Date.Location() != time.UTC || d.Date.Hour() != 0 || !tenure.InCalendar(d.Date) {
				t.Fatalf("Named(%q): date %v of %q", text, d.Date, d.Expr)
			}
			if g := d.Granularity; g != "day" && g != "week" && (g != "month" || d.Date.Day() != 1) {
				t.Fatalf("Named(%q): %s %v of %q", text, g, d.Date, d.Expr)
			}
		}
	})
}
