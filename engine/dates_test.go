package engine_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/sqlite"
)

// TestFactPrecisionSupersedes replays the report of issue 14: "I live in
// Austin" said on 10 January, then "I moved to Denver last month" said on
// 5 February. The move is dated to January at month precision, which
// holds 10 January, so the later report wins: the store says Denver.
func TestFactPrecisionSupersedes(t *testing.T) {
	p := tenure.Principal{UserID: "sam", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	jan10 := time.Date(2025, 1, 10, 17, 0, 0, 0, time.UTC)
	feb5 := time.Date(2025, 2, 5, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		later string
		want  string
		prec  tenure.Precision
		from  time.Time
	}{
		{"OK/last_month", "I moved to Denver last month.", "Sam lives in Denver since January 2025", tenure.PrecisionMonth,
			time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		// A day before the older report is outside its period: the older
		// report is the later state.
		{"OK/earlier_day", "I moved to Denver 30 days ago.", "Sam lives in Austin", tenure.PrecisionDay,
			time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)},
		{"OK/no_date", "I moved to Denver.", "Sam lives in Denver", tenure.PrecisionExact, feb5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
			if err := st.Open(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			ctx := t.Context()
			rules := extract.NewRules(extract.RulesOptions{})
			for _, m := range []tenure.Message{
				{ThreadID: "th", ID: "m1", Role: "user", Speaker: "Sam", Content: "I live in Austin.", CreatedAt: jan10},
				{ThreadID: "th", ID: "m2", Role: "user", Speaker: "Sam", Content: tc.later, CreatedAt: feb5},
			} {
				// One extraction per message, as a live conversation
				// digests them: each report is written when it was said.
				if _, err := st.AppendMessages(ctx, p, []tenure.Message{m}); err != nil {
					t.Fatal(err)
				}
				if _, err := st.ExtractState(ctx, p, "th", rules); err != nil {
					t.Fatal(err)
				}
			}
			o, err := st.CurrentValue(ctx, p, "profile|person|sam|fact:lives_in", tenure.Read{})
			if err != nil {
				t.Fatal(err)
			}
			if o.Content != tc.want {
				t.Errorf("current lives_in = %q, want %q", o.Content, tc.want)
			}
			hist, err := st.History(ctx, p, "profile|person|sam|fact:lives_in", tenure.Scope{})
			if err != nil {
				t.Fatal(err)
			}
			var denver *tenure.Object
			for i := range hist.Versions {
				if v := &hist.Versions[i]; v.Version == 1 && v.Content != "Sam lives in Austin" {
					denver = v
				}
			}
			if denver == nil {
				t.Fatalf("no Denver claim in the history: %+v", hist.Versions)
			}
			if denver.ValidPrecision != tc.prec || !denver.ValidFrom.Equal(tc.from) {
				t.Errorf("Denver valid from %v at precision %q, want %v at %q", denver.ValidFrom, denver.ValidPrecision, tc.from, tc.prec)
			}
		})
	}
}

// TestMessageDates checks the dates a stored message carries, as the
// history annotations show them: plans resolve forward from the message,
// reports backward, and a date no calendar holds stays text without
// failing the append.
func TestMessageDates(t *testing.T) {
	p := tenure.Principal{UserID: "sam", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	sat := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC) // a Saturday
	st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
	if err := st.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	msgs := []tenure.Message{
		{ID: "m1", Content: "Marco will set up the ingestion pipeline by Friday March 14."},
		{ID: "m2", Content: "Can you send me the cost estimate by Wednesday?"},
		{ID: "m3", Content: "Marco will finish the dashboard by Friday."},
		{ID: "m4", Content: "On Friday I went to the planetarium."},
		{ID: "m5", Content: "The pyramids were built about 6000 years ago, around 3000 BCE; year 12000 is far off."},
	}
	for i := range msgs {
		msgs[i].ThreadID, msgs[i].Role, msgs[i].CreatedAt = "th", "user", sat.Add(time.Duration(i)*time.Minute)
	}
	if _, err := st.AppendMessages(t.Context(), p, msgs); err != nil {
		t.Fatal(err)
	}
	got, err := st.Messages(t.Context(), p, tenure.MessageFilter{ThreadID: "th"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"m1": "Friday March 14 = 2025-03-14",
		"m2": "Wednesday = 2025-03-05",
		"m3": "Friday = 2025-03-07",
		"m4": "On Friday = 2025-02-28",
		"m5": "",
	}
	for _, m := range got {
		var s string
		for _, d := range m.Dates {
			s += d.Expr + " = " + d.Date.Format(time.DateOnly)
		}
		if s != want[m.ID] {
			t.Errorf("%s %q: dates %q, want %q", m.ID, m.Content, s, want[m.ID])
		}
	}
	if len(got) != len(msgs) {
		t.Errorf("read %d messages, want %d", len(got), len(msgs))
	}
}

// TestResolveDatesOutOfCalendar checks that a resolver of one's own cannot
// fail an append with a date no store holds: the engine drops it.
func TestResolveDatesOutOfCalendar(t *testing.T) {
	p := tenure.Principal{UserID: "sam", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
	if err := st.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ok := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	e := engine.New(st.Backend(), engine.Options{ResolveDates: func(string, time.Time) []tenure.ResolvedDate {
		return []tenure.ResolvedDate{
			{Expr: "3000 BCE", Date: time.Date(-2999, 1, 1, 0, 0, 0, 0, time.UTC), Granularity: "year"},
			{Expr: "yesterday", Date: ok, Granularity: "day"},
			{Expr: "year 12000", Date: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), Granularity: "year"},
		}
	}})
	m := tenure.Message{ThreadID: "th", ID: "m1", Role: "user", Content: "Writing began around 3000 BCE; yesterday I read of year 12000.",
		CreatedAt: ok.Add(24 * time.Hour)}
	if _, err := e.AppendMessages(t.Context(), p, []tenure.Message{m}); err != nil {
		t.Fatalf("append: %v", err)
	}
	got, err := e.Messages(t.Context(), p, tenure.MessageFilter{ThreadID: "th"})
	if err != nil || len(got) != 1 {
		t.Fatalf("messages = %+v, %v", got, err)
	}
	if len(got[0].Dates) != 1 || got[0].Dates[0].Expr != "yesterday" {
		t.Errorf("dates = %+v, want only yesterday", got[0].Dates)
	}
}
