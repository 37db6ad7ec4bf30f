package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
)

var cursorRE = regexp.MustCompile(`--cursor (\S+)`)

// TestListPaging checks the listing flags (--author, --valid-at, --tx-from,
// --tx-until, --newest) and --cursor, on the embedded store and through a
// server.
func TestListPaging(t *testing.T) {
	db := newDB(t)
	var ws []tenure.WriteResult
	for i, w := range []struct{ obj, user string }{
		{`{"key":"a.one","value":1,"valid_from":"2026-01-01T00:00:00Z","valid_until":"2026-02-01T00:00:00Z"}`, ""},
		{`{"key":"a.two","value":2,"valid_from":"2026-01-15T00:00:00Z"}`, "ann"},
		{`{"key":"a.three","value":3,"valid_from":"2026-03-01T00:00:00Z"}`, ""},
		{`{"key":"a.four","value":4,"valid_from":"2026-01-01T00:00:00Z"}`, "ann"},
		{`{"key":"a.five","value":5,"valid_from":"2026-01-01T00:00:00Z"}`, ""},
	} {
		var flags []string
		if w.user != "" {
			flags = []string{"--user", w.user, "--authority", tenure.DefaultHierarchy.Top()}
		}
		ws = append(ws, put(t, db, w.obj, flags...))
		if i > 0 && !ws[i].Object.TxStart.After(ws[i-1].Object.TxStart) {
			t.Fatalf("writes %d and %d stored at the same time", i-1, i)
		}
	}
	tx := func(i int) string { return ws[i].Object.TxStart.Format(time.RFC3339Nano) }
	srv := serve(t, db, "--digest=false")
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string // keys, in order
	}{
		{"All", nil, []string{"a.one", "a.two", "a.three", "a.four", "a.five"}},
		{"Author", []string{"--author", "ann"}, []string{"a.two", "a.four"}},
		{"ValidAt", []string{"--valid-at", "2026-02-10"}, []string{"a.two", "a.four", "a.five"}},
		{"TxFrom", []string{"--tx-from", tx(3)}, []string{"a.four", "a.five"}},
		{"TxUntil", []string{"--tx-until", tx(2)}, []string{"a.one", "a.two"}},
		{"Newest", []string{"--newest", "--limit", "2"}, []string{"a.five", "a.four"}},
		{"Combined", []string{"--author", "ann", "--newest", "--valid-at", "2026-01-10"}, []string{"a.four"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, where := range [][]string{{"--db", db}, {"--server", srv.url, "--key", srv.key}} {
				objs := mustJSON[[]tenure.Object](t, "", append(append([]string{"list"}, tc.flags...), where...)...)
				var got []string
				for _, o := range objs {
					got = append(got, o.Key)
				}
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("list %v %s (-want +got):\n%s", tc.flags, where[0], d)
				}
			}
		})
	}
	t.Run("Cursor", func(t *testing.T) {
		for _, where := range [][]string{{"--db", db}, {"--server", srv.url, "--key", srv.key}} {
			var got []string
			args := append([]string{"list", "--limit", "2", "--json"}, where...)
			for page := 0; ; page++ {
				if page > 5 {
					t.Fatalf("%s: more than 5 pages", where[0])
				}
				r := mustCLI(t, "", args...)
				got = append(got, listedKeys(t, r.stdout)...)
				m := cursorRE.FindStringSubmatch(r.stderr)
				if m == nil {
					break
				}
				args = append([]string{"list", "--limit", "2", "--json", "--cursor", m[1]}, where...)
			}
			if d := cmp.Diff([]string{"a.one", "a.two", "a.three", "a.four", "a.five"}, got); d != "" {
				t.Errorf("%s: paged keys (-want +got):\n%s", where[0], d)
			}
		}
		if r := mustCLI(t, "", "list", "--db", db); strings.Contains(r.stderr, "--cursor") {
			t.Errorf("a complete listing offers a cursor: %q", r.stderr)
		}
	})
}

func listedKeys(t *testing.T, out string) []string {
	t.Helper()
	var objs []tenure.Object
	if err := json.Unmarshal([]byte(out), &objs); err != nil {
		t.Fatalf("decode list output: %v\n%s", err, out)
	}
	keys := []string{}
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	return keys
}
