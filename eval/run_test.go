package eval_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/eval"
)

func TestRunLoCoMo(t *testing.T) {
	convs, err := eval.LoadLoCoMo("testdata/locomo")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.RunLoCoMo(t.Context(), convs, eval.Options{Budgets: []int{60, 400}, TempDir: t.TempDir(),
		Variants: eval.Ablations[:1]})
	if err != nil {
		t.Fatal(err)
	}
	wantSystems := "tenure,tenure-no-speaker,recency,bm25-turns"
	if got := strings.Join(rep.Systems, ","); got != wantSystems {
		t.Fatalf("systems = %s, want %s", got, wantSystems)
	}
	if rep.Questions != 5 || rep.FullTokens["tiny"] == 0 {
		t.Errorf("questions = %d, full tokens = %v", rep.Questions, rep.FullTokens)
	}
	for _, sys := range rep.Systems {
		for _, b := range rep.Budgets {
			r := rep.Results[sys][b]
			// Four questions have evidence; the open-domain one has none
			// and counts only for answer-token recall.
			if r.Overall.Questions != 4 || r.Overall.AnswerQuestions != 4 {
				t.Errorf("%s@%d: %d evidence and %d answer questions, want 4 and 4", sys, b, r.Overall.Questions, r.Overall.AnswerQuestions)
			}
			if r.Overall.Tokens > float64(b) {
				t.Errorf("%s@%d: mean tokens %v over budget", sys, b, r.Overall.Tokens)
			}
			if r.LatencyMS.P50 > r.LatencyMS.P99 {
				t.Errorf("%s@%d: p50 %v > p99 %v", sys, b, r.LatencyMS.P50, r.LatencyMS.P99)
			}
		}
	}
	// At 400 tokens the whole conversation fits: Tenure's matches plus
	// the recent turns that fill the budget cover every evidence turn.
	if got := rep.Results["tenure"][400].Overall.EvidenceRecall; got != 1 {
		t.Errorf("tenure evidence recall at 400 = %v, want 1", got)
	}
	// At 60 tokens one turn fits: for "When did Ben adopt Rex?" the
	// matching turn beats the latest one.
	if r := rep.Results["tenure"][60].Categories["temporal"]; r == nil || r.EvidenceRecall != 1 || r.AnswerTokenRecall != 1 {
		t.Errorf("tenure temporal at 60 = %+v, want evidence and answer recall 1 (the date resolved)", r)
	}
	if r := rep.Results["recency"][60].Categories["temporal"]; r == nil || r.EvidenceRecall != 0 {
		t.Errorf("recency temporal at 60 = %+v, want recall 0", r)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"evidence recall", "answer-token recall", "bm25-turns", "evidence recall @60", "single-hop"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

func TestRunBench(t *testing.T) {
	convs, err := eval.LoadLoCoMo("testdata/locomo")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.RunBench(t.Context(), eval.BenchOptions{Corpus: convs, Sizes: []int{30}, Giant: []int{25}, ThreadSize: 10,
		ThreadsPerTenant: 2, IngestMessages: 20, Rounds: 2, Queries: 5, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if in := rep.Ingest; in.Messages != 20 || in.TenureRate.Min <= 0 || in.BareRate.Min <= 0 || in.Ratio.Min <= 0 || in.Ratio.Max < in.Ratio.Min {
		t.Errorf("ingest = %+v", rep.Ingest)
	}
	if len(rep.Compile) != 2 {
		t.Fatalf("compile = %+v", rep.Compile)
	}
	if c := rep.Compile[0]; c.Messages != 30 || c.Threads != 3 || c.Tenants != 2 || c.Giant || c.Tenure.P99 <= 0 || c.BareFTS.P99 <= 0 ||
		c.RatioP99.Min <= 0 || c.TenureP99.Median < c.TenureP99.Min {
		t.Errorf("compile = %+v", c)
	}
	if c := rep.Compile[1]; c.Messages != 25 || c.Threads != 1 || c.Tenants != 1 || !c.Giant || c.Tenure.P99 <= 0 {
		t.Errorf("giant = %+v", c)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"30 msgs (2 tenants, 3 threads)", "25 msgs in one thread of one tenant", "ratio   p50"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}
