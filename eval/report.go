package eval

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// categoryOrder is the order categories are shown in.
var categoryOrder = []string{"single-hop", "multi-hop", "temporal", "open-domain", "adversarial"}

// WriteTable writes the report as readable tables: evidence and
// answer-token recall per system and budget, evidence recall per category
// at each budget, and envelope size and compile latency.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	minFull, maxFull, sumFull := 0, 0, 0
	for _, id := range r.Conversations {
		n := r.FullTokens[id]
		if minFull == 0 || n < minFull {
			minFull = n
		}
		maxFull = max(maxFull, n)
		sumFull += n
	}
	meanFull := 0
	if len(r.Conversations) > 0 {
		meanFull = sumFull / len(r.Conversations)
	}
	convs := "conversations"
	if len(r.Conversations) == 1 {
		convs = "conversation"
	}
	fmt.Fprintf(w, "LoCoMo: %d %s, %d questions, tokenizer %s\n", len(r.Conversations), convs, r.Questions, r.Tokenizer)
	fmt.Fprintf(w, "full conversation: %d to %d tokens (mean %d)\n", minFull, maxFull, meanFull)
	if x := r.Extraction; x != nil {
		fmt.Fprintf(w, "state extraction: %d items and %d facts from %d messages; ingest+extract %.0f msg/s (ingest alone %.0f msg/s)\n",
			x.Items, x.Facts, x.Messages, x.MessagesPerSecond, x.IngestOnlyPerSecond)
	}
	if r.Vectors != nil {
		fmt.Fprintln(w, r.Vectors.note())
	}
	fmt.Fprintln(w)

	bySystem := func(title string, cell func(*Result) string) {
		writeBySystem(tw, title, r.Systems, r.Budgets, func(s string, b int) string { return cell(r.Results[s][b]) })
	}
	bySystem("evidence recall", func(x *Result) string { return f3(x.Overall.EvidenceRecall) })
	bySystem("answer-token recall", func(x *Result) string { return f3(x.Overall.AnswerTokenRecall) })
	bySystem("mean tokens", func(x *Result) string { return fmt.Sprintf("%.0f", x.Overall.Tokens) })
	bySystem("latency p50/p95/p99 ms", func(x *Result) string {
		return fmt.Sprintf("%.2f/%.2f/%.2f", x.LatencyMS.P50, x.LatencyMS.P95, x.LatencyMS.P99)
	})
	for _, b := range r.Budgets {
		p("evidence recall @%d\t", b)
		for _, s := range r.Systems {
			p("%s\t", s)
		}
		p("\n")
		for _, c := range r.categories() {
			n := 0
			p("%s\t", c)
			for _, s := range r.Systems {
				m := r.Results[s][b].Categories[c]
				if m == nil || m.Questions == 0 {
					p("-\t")
					continue
				}
				n = m.Questions
				p("%s\t", f3(m.EvidenceRecall))
			}
			p("%d\n", n)
		}
		p("all\t")
		for _, s := range r.Systems {
			p("%s\t", f3(r.Results[s][b].Overall.EvidenceRecall))
		}
		p("\n\t\n")
	}
	return tw.Flush()
}

// categories lists the categories present, in the usual order.
func (r *Report) categories() []string {
	var out []string
	for _, c := range categoryOrder {
		if r.hasCategory(c) {
			out = append(out, c)
		}
	}
	return out
}

func (r *Report) hasCategory(c string) bool {
	for _, bySys := range r.Results {
		for _, res := range bySys {
			if res.Categories[c] != nil {
				return true
			}
		}
	}
	return false
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

// writeBySystem writes a table of one row per system and one column per
// budget, then a blank row.
func writeBySystem(w io.Writer, title string, systems []string, budgets []int, cell func(system string, budget int) string) {
	fmt.Fprintf(w, "%s\t", title)
	for _, b := range budgets {
		fmt.Fprintf(w, "%d\t", b)
	}
	fmt.Fprintln(w)
	for _, s := range systems {
		fmt.Fprintf(w, "%s\t", s)
		for _, b := range budgets {
			fmt.Fprintf(w, "%s\t", cell(s, b))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\t\n")
}
