package eval

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/retrieve"
)

// Counter counts tokens like the budget does.
type Counter interface {
	Count(string) int
}

// System builds the context for a question within a budget.
type System interface {
	Name() string
	Context(ctx context.Context, question string, budget int) (string, error)
}

// TenureSystem compiles contexts with the Tenure compiler.
type TenureSystem struct {
	Label     string
	Compiler  *compile.Compiler
	Principal tenure.Principal
	Tokenizer string
	// Vectors, when set, counts how the compilations ranked history.
	Vectors *VectorStats
}

// Name implements System.
func (s TenureSystem) Name() string { return s.Label }

// Context implements System.
func (s TenureSystem) Context(ctx context.Context, q string, budget int) (string, error) {
	env, tr, err := s.Compiler.Compile(ctx, compile.Request{Principal: s.Principal, Query: q, Budget: budget,
		Tokenizer: s.Tokenizer, TaskType: tenure.TaskQuestionAnswering})
	if err != nil {
		return "", err
	}
	s.Vectors.count(tr)
	return env.Text(), nil
}

// turnLine is how the baselines show a turn: its date, speaker and text.
// A turn without a speaker is shown with its role.
func turnLine(m tenure.Message) string {
	who := m.Speaker
	if who == "" {
		who = m.Role
	}
	return fmt.Sprintf("[%s] %s: %s", m.CreatedAt.Format("2 January 2006"), who, m.Text())
}

// countLines counts each line once, when a baseline is built.
func countLines(c Counter, lines []string) []int {
	n := make([]int, len(lines))
	for i, l := range lines {
		n[i] = c.Count(l) + 1
	}
	return n
}

// pack adds lines in order while they fit, then returns them in display
// order.
func pack(lines []string, tokens []int, order []int, budget int) string {
	var chosen []int
	used := 0
	for _, i := range order {
		n := tokens[i]
		if used+n > budget {
			continue
		}
		used += n
		chosen = append(chosen, i)
	}
	sort.Ints(chosen)
	out := make([]string, len(chosen))
	for j, i := range chosen {
		out[j] = lines[i]
	}
	return strings.Join(out, "\n")
}

// RecencySystem shows the most recent turns that fit: what replaying the
// transcript, truncated, does.
type RecencySystem struct {
	lines  []string
	tokens []int
}

// NewRecency prepares the baseline over a conversation's messages.
func NewRecency(c Counter, msgs []tenure.Message) *RecencySystem {
	s := &RecencySystem{}
	for _, m := range msgs {
		s.lines = append(s.lines, turnLine(m))
	}
	s.tokens = countLines(c, s.lines)
	return s
}

// Name implements System.
func (s *RecencySystem) Name() string { return "recency" }

// Context implements System. Turns are taken newest first while they fit
// without skipping any.
func (s *RecencySystem) Context(_ context.Context, _ string, budget int) (string, error) {
	used, first := 0, len(s.lines)
	for i := len(s.lines) - 1; i >= 0; i-- {
		n := s.tokens[i]
		if used+n > budget {
			break
		}
		used += n
		first = i
	}
	return strings.Join(s.lines[first:], "\n"), nil
}

// BM25System ranks turns with plain BM25 and adds them best first until
// the budget is full.
type BM25System struct {
	lines  []string
	tokens []int
	index  *retrieve.BM25
}

// NewBM25 prepares the baseline over a conversation's messages.
func NewBM25(c Counter, msgs []tenure.Message) *BM25System {
	s := &BM25System{}
	var docs [][]string
	for _, m := range msgs {
		s.lines = append(s.lines, turnLine(m))
		docs = append(docs, retrieve.Terms(m.Speaker+" "+m.Text()))
	}
	s.tokens = countLines(c, s.lines)
	s.index = retrieve.NewBM25(docs)
	return s
}

// Name implements System.
func (s *BM25System) Name() string { return "bm25-turns" }

// Context implements System.
func (s *BM25System) Context(_ context.Context, q string, budget int) (string, error) {
	scores := s.index.Scores(retrieve.Terms(q))
	var matched []int
	for _, i := range byScore(scores) {
		if scores[i] > 0 {
			matched = append(matched, i)
		}
	}
	return pack(s.lines, s.tokens, matched, budget), nil
}

// byScore returns the indexes of scores, highest score first (ties in
// index order).
func byScore(scores []float64) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	return order
}
