package engine_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
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
			o, err := st.CurrentValue(ctx, p, "profile/sam/lives_in", tenure.Read{})
			if err != nil {
				t.Fatal(err)
			}
			if o.Content != tc.want {
				t.Errorf("current lives_in = %q, want %q", o.Content, tc.want)
			}
			hist, err := st.History(ctx, p, "profile/sam/lives_in", tenure.Scope{})
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
