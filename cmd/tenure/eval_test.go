package main

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/eval"
	"github.com/tenure-dev/tenure/internal/pgtest"
)

func TestEvalLoCoMo(t *testing.T) {
	data := "../../eval/testdata/locomo"
	rep := mustJSON[eval.Report](t, "", "eval", "locomo", "--data", data, "--budgets", "60,400", "--dir", t.TempDir())
	if rep.Questions != 5 || len(rep.Budgets) != 2 || len(rep.Systems) != 3 {
		t.Fatalf("report = %+v", rep)
	}
	for _, sys := range []string{"tenure", "recency", "bm25-turns"} {
		for _, b := range []int{60, 400} {
			r := rep.Results[sys][b]
			if r == nil || r.Overall.Questions != 4 || r.Categories["temporal"] == nil {
				t.Errorf("%s@%d = %+v", sys, b, r)
			}
		}
	}
	table := mustCLI(t, "", "eval", "locomo", "--data", data, "--budgets", "100", "--ablation", "--dir", t.TempDir()).stdout
	for _, want := range []string{"LoCoMo: 1 conversation, 5 questions", "tenure-no-neighbors", "evidence recall @100"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

func TestEvalLongMemEval(t *testing.T) {
	data := "../../eval/testdata/longmemeval/tiny.json"
	rep := mustJSON[eval.LMEReport](t, "", "eval", "longmemeval", "--data", data, "--budgets", "90,400", "--dir", t.TempDir())
	if rep.Questions != 4 || rep.Loaded.Abstention != 1 || len(rep.Budgets) != 2 || len(rep.Systems) != 4 {
		t.Fatalf("report = %+v", rep)
	}
	for _, sys := range []string{"tenure", "bm25-turns", "bm25-sessions", "recency"} {
		for _, b := range []int{90, 400} {
			if r := rep.Results[sys][b]; r == nil || r.Overall.Questions != 4 || r.Types["multi-session"] == nil {
				t.Errorf("%s@%d = %+v", sys, b, r)
			}
		}
	}
	table := mustCLI(t, "", "eval", "longmemeval", "--data", data, "--budgets", "100", "--types", "multi-session, temporal-reasoning",
		"--limit", "1", "--ablation", "--dir", t.TempDir()).stdout
	for _, want := range []string{"LongMemEval: 1 questions (3 read; left out: 0 abstention, 2 of other types", "tenure-no-neighbors",
		"evidence recall @100", "multi-session"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// The bare side runs in a process of its own: this test binary, as the
// CLI (see TestMain).
func TestEvalBench(t *testing.T) {
	t.Setenv(cliEnv, "1")
	rep := mustJSON[eval.BenchReport](t, "", "eval", "bench", "--data", "../../eval/testdata/locomo", "--sizes", "40",
		"--queries", "3", "--rounds", "1", "--dir", t.TempDir())
	if len(rep.Compile) != 1 || rep.Compile[0].Messages != 40 || rep.Ingest.Ratio.Min <= 0 || rep.Bare != "process" ||
		rep.Compile[0].BareFTS.P99 <= 0 {
		t.Errorf("report = %+v", rep)
	}
}

// eval bench --db runs both sides on PostgreSQL, each store and bare
// table in a schema of its own, the bare queries in a process of their
// own.
func TestEvalBenchPostgres(t *testing.T) {
	t.Setenv(cliEnv, "1")
	db := pgtest.Server(t)
	rep := mustJSON[eval.BenchReport](t, "", "eval", "bench", "--db", db, "--data", "../../eval/testdata/locomo", "--sizes", "40",
		"--queries", "3", "--rounds", "1", "--dir", t.TempDir())
	if len(rep.Compile) != 1 || rep.Compile[0].Messages != 40 || rep.Ingest.Ratio.Min <= 0 || rep.Bare != "process" ||
		rep.Database != "postgres" || rep.Compile[0].BareFTS.P99 <= 0 || rep.Compile[0].RatioP99.Min <= 0 {
		t.Errorf("report = %+v", rep)
	}
}

func TestEvalInvalid(t *testing.T) {
	for _, c := range []struct {
		args  []string
		field string
	}{
		{[]string{"eval", "locomo", "--budgets", "500,x"}, "--budgets"},
		{[]string{"eval", "locomo", "--budgets", "0"}, "--budgets"},
		{[]string{"eval", "locomo", "--data", "/nonexistent"}, "data"},
		{[]string{"eval", "longmemeval", "--data", "/nonexistent.json"}, "data"},
		{[]string{"eval", "longmemeval", "--data", "../../eval/testdata/longmemeval/tiny.json", "--types", "multi"}, "types"},
		{[]string{"eval", "longmemeval", "--limit", "-1"}, "--limit"},
		{[]string{"eval", "longmemeval", "--extract", "rules"}, "--extract"},
		{[]string{"eval", "bench", "--sizes", "-5"}, "--sizes"},
		{[]string{"eval", "bench", "--queries", "0"}, "--queries"},
		{[]string{"eval", "bench", "--giant", "x"}, "--giant"},
		{[]string{"eval", "bench", "--rounds", "0"}, "--rounds"},
		{[]string{"eval", "bench", "--bare", "thread"}, "--bare"},
		{[]string{"eval", "bench", "--db", "tenure.db"}, "--db"},
		{[]string{"eval", "bench", "--server", "--db", "postgres://localhost/x"}, "--db"},
		{[]string{"eval", "sideways"}, ""},
		{[]string{"eval"}, ""},
	} {
		r := tenureCLI(t, "", c.args...)
		if r.code != 2 {
			t.Errorf("tenure %s: exit %d, stderr %q; want 2", strings.Join(c.args, " "), r.code, r.stderr)
		}
		j := tenureCLI(t, "", append(c.args, "--json")...)
		if !strings.Contains(j.stderr, `"field": "`+c.field+`"`) {
			t.Errorf("tenure %s --json: stderr %q, want field %q", strings.Join(c.args, " "), j.stderr, c.field)
		}
	}
}
