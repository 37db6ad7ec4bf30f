package eval

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes the report as readable tables: per system and budget
// the turn evidence recall, recall_all, session recall, the session
// ranking, envelope size and compile latency; then per question type at
// each budget.
func (r *LMEReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	fmt.Fprintf(w, "LongMemEval: %d questions (%d read; left out: %d abstention, %d of other types, %d without evidence), tokenizer %s\n",
		r.Questions, r.Loaded.Read, r.Loaded.Abstention, r.Loaded.OtherTypes, r.Loaded.NoEvidence, r.Tokenizer)
	if r.Loaded.InvalidTurns > 0 {
		fmt.Fprintf(w, "%d turns the transcript reader refused were left out of their haystacks\n", r.Loaded.InvalidTurns)
	}
	h := r.Haystack
	fmt.Fprintf(w, "haystack: %.1f sessions, %.0f turns, %d to %d tokens (mean %d)\n", h.Sessions, h.Messages, h.MinTokens, h.MaxTokens, h.MeanTokens)
	in := r.Ingest
	fmt.Fprintf(w, "ingest (write path + full-text index): %d messages in %.2f s, %.0f msg/s; per question p50/p95/p99 %.1f/%.1f/%.1f ms\n",
		in.Messages, in.Seconds, in.MessagesPerSecond, in.PerQuestionMS.P50, in.PerQuestionMS.P95, in.PerQuestionMS.P99)
	if r.Vectors != nil {
		fmt.Fprintln(w, r.Vectors.note())
	}
	fmt.Fprintln(w)

	bySystem := func(title string, cell func(*LMEResult) string) {
		writeBySystem(tw, title, r.Systems, r.Budgets, func(s string, b int) string { return cell(r.Results[s][b]) })
	}
	bySystem("evidence recall (turns)", func(x *LMEResult) string { return f3(x.Overall.EvidenceRecall) })
	bySystem("recall_all (turns)", func(x *LMEResult) string { return f3(x.Overall.RecallAll) })
	bySystem("session recall", func(x *LMEResult) string { return f3(x.Overall.SessionRecall) })
	bySystem("sessions recall_all@5/@10, ndcg@5", func(x *LMEResult) string {
		m := x.Overall
		return fmt.Sprintf("%.3f/%.3f %.3f", m.SessionRecallAll5, m.SessionRecallAll10, m.SessionNDCG5)
	})
	bySystem("mean tokens", func(x *LMEResult) string { return fmt.Sprintf("%.0f", x.Overall.Tokens) })
	bySystem("latency p50/p95/p99 ms", func(x *LMEResult) string {
		return fmt.Sprintf("%.2f/%.2f/%.2f", x.LatencyMS.P50, x.LatencyMS.P95, x.LatencyMS.P99)
	})
	for _, metric := range []struct {
		name string
		get  func(*LMEMetrics) float64
	}{
		{"evidence recall", func(m *LMEMetrics) float64 { return m.EvidenceRecall }},
		{"recall_all", func(m *LMEMetrics) float64 { return m.RecallAll }},
	} {
		for _, b := range r.Budgets {
			p("%s @%d\t", metric.name, b)
			for _, s := range r.Systems {
				p("%s\t", s)
			}
			p("\n")
			for _, t := range LongMemEvalTypes {
				if r.Types[t] == 0 {
					continue
				}
				p("%s\t", t)
				for _, s := range r.Systems {
					if m := r.Results[s][b].Types[t]; m != nil {
						p("%s\t", f3(metric.get(m)))
					} else {
						p("-\t")
					}
				}
				p("%d\n", r.Types[t])
			}
			p("all\t")
			for _, s := range r.Systems {
				p("%s\t", f3(metric.get(&r.Results[s][b].Overall)))
			}
			p("%d\n\t\n", r.Questions)
		}
	}
	return tw.Flush()
}
