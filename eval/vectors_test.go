package eval_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure/eval"
	"github.com/tenure-dev/tenure/internal/embedtest"
	"github.com/tenure-dev/tenure/llm/openai"
	"github.com/tenure-dev/tenure/semantic"
)

// With a model every haystack is embedded, the Tenure systems fuse, and
// tenure-lexical runs beside them (with the fusions in the ablation).
func TestRunLongMemEvalWithModel(t *testing.T) {
	srv := embedtest.NewServer(t)
	m, err := semantic.New(openai.NewEmbedder(openai.EmbedderOptions{BaseURL: srv.URL(), Model: "fake", MaxRetries: -1}), semantic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs, _, err := eval.LoadLongMemEval(tinyLME, eval.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.RunLongMemEval(t.Context(), qs, eval.LMEOptions{Budgets: []int{90}, TempDir: t.TempDir(),
		Variants: eval.Ablations[:1], Embedding: m})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tenure", eval.LexicalSystem, "tenure-no-speaker", "tenure-fusion-convex", "tenure-fusion-or", "tenure-fusion-rrf",
		"bm25-turns", "bm25-sessions", "recency"}
	if diff := cmp.Diff(want, rep.Systems); diff != "" {
		t.Fatalf("systems (-want +got):\n%s", diff)
	}
	v := rep.Vectors
	if v == nil || v.Messages != rep.Ingest.Messages || v.Compilations != 4*5 || v.Fused != v.Compilations {
		t.Errorf("vectors = %+v, want every message embedded and 20 compilations fused (%d messages)", v, rep.Ingest.Messages)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "vectors (openai:fake): ") {
		t.Errorf("table lacks the vectors line:\n%s", table.String())
	}
}
