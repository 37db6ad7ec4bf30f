package temporal_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/temporal"
)

// FuzzResolveStorable checks that every date the resolver finds in any
// text is storable: it marshals as JSON, and the SQLite store accepts a
// message carrying it and gives the same dates back. The message's own
// time stays within the years the store's time columns hold (1678 to
// 2261, nanoseconds since 1970 in an int64); the dates it resolves to may
// lie anywhere.
func FuzzResolveStorable(f *testing.F) {
	for _, s := range []string{
		"The pyramids were built about 6000 years ago.", "Writing began around 3000 BCE.",
		"the first millennium", "the year 12000", "9999 years ago, 9999 years from now, in 9999 years",
		"Marco will set up the ingestion pipeline by Friday March 14.", "I moved to Denver last month.",
		"by Wednesday", "Friday, March 14, 2025", "on the 31st of December", "February 29",
	} {
		f.Add(s, monday.Unix())
	}
	st := sqlite.New(filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{})
	if err := st.Open(f.Context()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	p := tenure.Principal{UserID: "u", TenantID: "t"}
	r := temporal.New()
	n := 0
	f.Fuzz(func(t *testing.T, text string, sec int64) {
		at := timeIn(sec, 1678, 2261)
		got := r.Resolve(text, at)
		for _, d := range got {
			if _, err := json.Marshal(d); err != nil {
				t.Fatalf("Resolve(%q): date of %q does not marshal: %v", text, d.Expr, err)
			}
		}
		// A message needs visible content, and the store reads it back
		// as valid UTF-8.
		if strings.TrimSpace(text) == "" || !utf8.ValidString(text) {
			return
		}
		n++
		m := tenure.Message{ThreadID: fmt.Sprint("fuzz", n), ID: "m", Role: "user", Content: text, CreatedAt: at}
		if _, err := st.AppendMessages(t.Context(), p, []tenure.Message{m}); err != nil {
			t.Fatalf("append %q at %v: %v", text, at, err)
		}
		back, err := st.Messages(t.Context(), p, tenure.MessageFilter{ThreadID: m.ThreadID})
		if err != nil || len(back) != 1 {
			t.Fatalf("read back %q: %d messages, %v", text, len(back), err)
		}
		if diff := cmp.Diff(got, back[0].Dates); diff != "" {
			t.Fatalf("stored dates of %q (-resolved +stored):\n%s", text, diff)
		}
	})
}
