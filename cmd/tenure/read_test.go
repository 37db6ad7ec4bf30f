package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
)

func TestAsOf(t *testing.T) {
	db := newDB(t)
	r1 := put(t, db, `{"key":"price","value":100,"valid_from":"2025-01-01T00:00:00Z"}`)
	r2 := put(t, db, `{"key":"price","value":120,"valid_from":"2025-06-01T00:00:00Z"}`)
	tx1 := r1.Object.TxStart.Format(time.RFC3339Nano)
	tx2 := r2.Object.TxStart.Format(time.RFC3339Nano)
	notFound := tenure.ExitCode(tenure.CodeNotFound)
	for _, tc := range []struct {
		name  string
		flags []string
		want  string // the value, or "" for not found
	}{
		{"Now", nil, "120"},
		{"ValidDate", []string{"--as-of-valid", "2025-03-01"}, "100"},
		{"ValidRFC3339", []string{"--as-of-valid", "2025-07-01T12:00:00+02:00"}, "120"},
		{"ValidBeforeAll", []string{"--as-of-valid", "2024-12-31"}, ""},
		{"TxFirstWrite", []string{"--as-of-tx", tx1}, "100"},
		{"TxSecondWrite", []string{"--as-of-tx", tx2}, "120"},
		{"TxBeforeAll", []string{"--as-of-tx", "2000-01-01"}, ""},
		{"Both", []string{"--as-of-tx", tx2, "--as-of-valid", "2025-02-01"}, "100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"get", "price", "--db", db, "--json"}, tc.flags...)
			r := tenureCLI(t, "", args...)
			if tc.want == "" {
				if r.code != notFound {
					t.Errorf("exit %d, want %d (not found); stdout %s", r.code, notFound, r.stdout)
				}
				return
			}
			if r.code != 0 || !strings.Contains(r.stdout, `"value": `+tc.want+",") {
				t.Errorf("exit %d, want value %s; stdout %s stderr %s", r.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
	t.Run("ID", func(t *testing.T) {
		id := r1.Object.ObjectID
		now := mustJSON[tenure.Object](t, "", "get", id, "--id", "--db", db)
		then := mustJSON[tenure.Object](t, "", "get", id, "--id", "--as-of-tx", tx1, "--db", db)
		got := []version{versionOf(then), versionOf(now)}
		want := []version{{"price", "100", tenure.StatusActive, 1}, {"price", "100", tenure.StatusSuperseded, 2}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("get --id then and now (-want +got):\n%s", diff)
		}
		if r := tenureCLI(t, "", "get", "price", "--id", "--db", db); r.code != notFound {
			t.Errorf("get --id with a key: exit %d, want not found", r.code)
		}
	})
}

func TestList(t *testing.T) {
	db := newDB(t)
	mustCLI(t, `[
		{"key":"pref.tone","value":"formal","object_type":"preference"},
		{"key":"pref.lang","value":"en","object_type":"preference"},
		{"key":"policy.refunds","value":"30 days","layer":"policy"},
		{"key":"draft.plan","value":"v0","scope":"draft","scope_id":"d1"}
	]`, "put", "--db", db)
	put(t, db, `{"key":"pref.lang","value":"fr","object_type":"preference"}`)
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"DefaultActive", nil, []string{`policy.refunds="30 days"`, `pref.lang="fr"`, `pref.tone="formal"`}},
		{"StatusAll", []string{"--status", "all"}, []string{`policy.refunds="30 days"`, `pref.lang="en"`, `pref.lang="fr"`, `pref.tone="formal"`}},
		{"StatusSuperseded", []string{"--status", "superseded"}, []string{`pref.lang="en"`}},
		{"Layer", []string{"--layer", "policy"}, []string{`policy.refunds="30 days"`}},
		{"Type", []string{"--type", "preference"}, []string{`pref.lang="fr"`, `pref.tone="formal"`}},
		{"Prefix", []string{"--prefix", "pref.", "--status", "all"}, []string{`pref.lang="en"`, `pref.lang="fr"`, `pref.tone="formal"`}},
		{"ScopeInSandbox", []string{"--scope", "draft", "--scope-id", "d1"}, []string{`draft.plan="v0"`}},
		{"ScopeOutsideSandbox", []string{"--scope", "draft"}, []string{}},
		{"ScopeGlobal", []string{"--scope", "global", "--prefix", "pol"}, []string{`policy.refunds="30 days"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, listed(t, db, tc.flags...)); diff != "" {
				t.Errorf("list %v (-want +got):\n%s", tc.flags, diff)
			}
		})
	}
	t.Run("Limit", func(t *testing.T) {
		for _, n := range []int{1, 2} {
			if got := listed(t, db, "--limit", strconv.Itoa(n)); len(got) != n {
				t.Errorf("--limit %d: got %d objects", n, len(got))
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if out := mustCLI(t, "", "list", "--db", db, "--prefix", "nothing").stdout; out != "no objects\n" {
			t.Errorf("human empty list: %q", out)
		}
		if out := mustCLI(t, "", "list", "--db", db, "--prefix", "nothing", "--json").stdout; out != "[]\n" {
			t.Errorf("JSON empty list: %q", out)
		}
	})
}
