package eval_test

import (
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/eval"
)

const tinyLME = "testdata/longmemeval/tiny.json"

func TestLoadLongMemEval(t *testing.T) {
	qs, st, err := eval.LoadLongMemEval(tinyLME, eval.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The abstention question is left out; the temporal one repeats a
	// session under another date, and the reader refuses its two turns.
	if diff := cmp.Diff(eval.LoadStats{Read: 5, Abstention: 1, InvalidTurns: 2}, st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	var ids []string
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	if diff := cmp.Diff([]string{"q-user", "q-assistant", "q-multi", "q-time"}, ids); diff != "" {
		t.Fatalf("questions (-want +got):\n%s", diff)
	}
	user, multi := qs[0], qs[2]
	if diff := cmp.Diff([]string{"s-hamster:0"}, user.Evidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s-basil:0", "s-tomato:0"}, multi.Evidence); diff != "" {
		t.Errorf("multi-session evidence (-want +got):\n%s", diff)
	}
	if got := user.Date.Format("2006-01-02 15:04"); got != "2023-05-30 23:40" {
		t.Errorf("question date = %s", got)
	}
	// Every turn but the empty one, in order, with its role, in the
	// question's thread and session, one second apart from its session's
	// date.
	if len(user.Messages) != 7 {
		t.Fatalf("%d messages, want 7", len(user.Messages))
	}
	m := user.Messages[2]
	if m.ThreadID != "q-user" || m.SessionID != "s-hamster" || m.ID != "s-hamster:0" || m.Role != "user" ||
		m.CreatedAt.Format("2006-01-02 15:04:05") != "2023-05-22 18:30:00" || !strings.Contains(m.Content, "Biscuit") {
		t.Errorf("message = %+v", m)
	}
	if a := user.Messages[3]; a.Role != "assistant" || a.CreatedAt.Sub(m.CreatedAt).Seconds() != 1 {
		t.Errorf("reply = %+v", a)
	}
}

func TestLoadLongMemEvalSelect(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "tiny.json.gz")
	writeGzip(t, gz, tinyLME)
	for _, c := range []struct {
		name string
		opt  eval.LoadOptions
		want []string
	}{
		{"OK", eval.LoadOptions{}, []string{"q-user", "q-assistant", "q-multi", "q-time"}},
		{"types", eval.LoadOptions{Types: []string{"multi-session", "single-session-user"}}, []string{"q-user", "q-multi"}},
		{"limit", eval.LoadOptions{Limit: 2}, []string{"q-user", "q-assistant"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{tinyLME, gz} {
				qs, _, err := eval.LoadLongMemEval(path, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, q := range qs {
					got = append(got, q.ID)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", path, diff)
				}
			}
		})
	}
	t.Run("ErrUnknownType", func(t *testing.T) {
		if _, _, err := eval.LoadLongMemEval(tinyLME, eval.LoadOptions{Types: []string{"multi"}}); err == nil {
			t.Error("want an error for an unknown type")
		}
	})
	t.Run("ErrDirectory", func(t *testing.T) {
		_, _, err := eval.LoadLongMemEval(dir, eval.LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), gz) {
			t.Errorf("err = %v, want one saying %s is a directory and naming %s", err, dir, gz)
		}
	})
	t.Run("ErrNotAList", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, []byte(`{"question_id": "x"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := eval.LoadLongMemEval(bad, eval.LoadOptions{}); err == nil {
			t.Error("want an error for a file that is not a list")
		}
	})
}

func writeGzip(t *testing.T, dst, src string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := gzip.NewWriter(f)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRunLongMemEval(t *testing.T) {
	qs, loaded, err := eval.LoadLongMemEval(tinyLME, eval.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.RunLongMemEval(t.Context(), qs, eval.LMEOptions{Budgets: []int{90, 1000}, TempDir: t.TempDir(),
		Variants: eval.Ablations[:1]})
	if err != nil {
		t.Fatal(err)
	}
	rep.Loaded = loaded
	want := []string{"tenure", "tenure-no-speaker", "bm25-turns", "bm25-sessions", "recency"}
	if diff := cmp.Diff(want, rep.Systems); diff != "" {
		t.Fatalf("systems (-want +got):\n%s", diff)
	}
	if rep.Questions != 4 || rep.Types["multi-session"] != 1 || rep.Ingest.Messages == 0 || rep.Haystack.MeanTokens == 0 {
		t.Errorf("report = %+v", rep)
	}
	for _, sys := range rep.Systems {
		for _, b := range rep.Budgets {
			r := rep.Results[sys][b]
			if r.Overall.Questions != 4 || len(r.Types) != 4 || r.Overall.Tokens > float64(b) || r.LatencyMS.P50 > r.LatencyMS.P99 {
				t.Errorf("%s@%d = %+v", sys, b, r)
			}
		}
		// The whole haystack fits 1,000 tokens: every system holds all
		// the evidence, and every answer session has a turn in it.
		if r := rep.Results[sys][1000].Overall; r.EvidenceRecall != 1 || r.RecallAll != 1 || r.SessionRecall != 1 {
			t.Errorf("%s@1000 = %+v, want recall 1", sys, r)
		}
	}
	// At 90 tokens the latest turns hold none of the hamster's or the
	// Lisbon bakery's evidence; Tenure finds the hamster and the plants.
	if r := rep.Results["tenure"][90]; r.Types["single-session-user"].EvidenceRecall != 1 || r.Types["multi-session"].RecallAll != 1 {
		t.Errorf("tenure@90 = %+v, want the hamster and the plants", r.Types)
	}
	if r := rep.Results["recency"][90].Types["single-session-user"]; r.EvidenceRecall != 0 {
		t.Errorf("recency@90 single-session-user = %+v, want recall 0", r)
	}
	// bm25-sessions ranks the basil and tomato sessions first for the
	// multi-session question: recall_all@5 and NDCG@5 are 1.
	if r := rep.Results["bm25-sessions"][90].Types["multi-session"]; r.SessionRecallAll5 != 1 || r.SessionNDCG5 != 1 {
		t.Errorf("bm25-sessions multi-session = %+v", r)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"LongMemEval: 4 questions (5 read; left out: 1 abstention", "2 turns the transcript reader refused",
		"recall_all @90", "bm25-sessions", "single-session-assistant", "latency p50/p95/p99"} {
		if !strings.Contains(table.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, table.String())
		}
	}
}

func TestSessionRanking(t *testing.T) {
	ranked := []string{"a", "x", "b", "y", "z", "c"}
	for _, c := range []struct {
		relevant []string
		k        int
		all      bool
		ndcg     float64
	}{
		{[]string{"a"}, 5, true, 1},
		{[]string{"a", "b"}, 5, true, (1 + 1/math.Log2(4)) / (1 + 1/math.Log2(3))},
		{[]string{"a", "c"}, 5, false, 1 / (1 + 1/math.Log2(3))},
		{[]string{"q"}, 5, false, 0},
		{nil, 5, true, 0},
	} {
		if got := eval.RankedRecallAll(ranked, c.relevant, c.k); got != c.all {
			t.Errorf("recall_all@%d of %v = %v, want %v", c.k, c.relevant, got, c.all)
		}
		if got := eval.NDCG(ranked, c.relevant, c.k); math.Abs(got-c.ndcg) > 1e-9 {
			t.Errorf("ndcg@%d of %v = %v, want %v", c.k, c.relevant, got, c.ndcg)
		}
	}
	if !slices.Equal(ranked, []string{"a", "x", "b", "y", "z", "c"}) {
		t.Error("ranking changed")
	}
}
