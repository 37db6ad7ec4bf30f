package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/semantic"
)

// LexicalSystem is the name of Tenure with its vectors turned off, run
// beside "tenure" when the run has an embedding model: the difference is
// what semantic retrieval adds.
const LexicalSystem = "tenure-lexical"

// VectorStats reports a run's semantic retrieval: the embedding of the
// stores' messages and how the compilations with the model ranked
// history.
type VectorStats struct {
	Model string `json:"model"`
	// Messages embedded (Cached of them without a request), Requests
	// sent, and the Seconds embedding took.
	Messages int     `json:"messages"`
	Cached   int     `json:"cached"`
	Requests int     `json:"requests"`
	Seconds  float64 `json:"seconds"`
	// Compilations with the model; Fused of them fused vector and
	// lexical ranks, Lexical ranked history lexically, by reason.
	Compilations int            `json:"compilations"`
	Fused        int            `json:"fused"`
	Lexical      map[string]int `json:"lexical,omitempty"`
}

// newVectorStats returns the stats of a run with model m (nil: none).
func newVectorStats(m *semantic.Model) *VectorStats {
	if m == nil {
		return nil
	}
	return &VectorStats{Model: m.Name(), Lexical: map[string]int{}}
}

// embed embeds a store's messages, adding to the stats.
func (v *VectorStats) embed(ctx context.Context, st *Store) error {
	if v == nil {
		return nil
	}
	start := time.Now()
	rep, err := st.EmbedMessages(ctx, "", "", nil)
	v.Seconds += time.Since(start).Seconds()
	v.Messages += rep.Embedded
	v.Cached += rep.Cached
	v.Requests += rep.Requests
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	return nil
}

// count adds a compilation's trace to the stats.
func (v *VectorStats) count(tr compile.Trace) {
	if v == nil || tr.Retrieval.HistoryVectors == nil {
		return
	}
	v.Compilations++
	if h := tr.Retrieval.HistoryVectors; h.Fused {
		v.Fused++
	} else {
		v.Lexical[string(h.Reason)]++
	}
}

// FusionAblations run each way of fusing vector and lexical relevance,
// with the ablation of a run that has a model.
var FusionAblations = []Variant{
	{"tenure-fusion-convex", compile.HistoryOptions{Fusion: compile.FusionConvex}},
	{"tenure-fusion-or", compile.HistoryOptions{Fusion: compile.FusionOr}},
	{"tenure-fusion-rrf", compile.HistoryOptions{Fusion: compile.FusionRRF}},
}

// withLexical adds LexicalSystem after "tenure" when the run has a model,
// and the fusion ablations after the others when the run has any.
func withLexical(variants []Variant, m *semantic.Model) []Variant {
	if m == nil {
		return variants
	}
	out := append([]Variant{variants[0], {Name: LexicalSystem, History: compile.HistoryOptions{DisableVectors: true}}}, variants[1:]...)
	if len(variants) > 1 {
		out = append(out, FusionAblations...)
	}
	return out
}

// compilerOptions returns the options of a Tenure system: its history
// options and, with a model, semantic retrieval.
func compilerOptions(v Variant, m *semantic.Model) compile.Options {
	opt := compile.Options{History: v.History}
	if m != nil {
		opt.MessageEmbedder = m
	}
	return opt
}

// note is the line the reports print about semantic retrieval.
func (v *VectorStats) note() string {
	s := fmt.Sprintf("vectors (%s): %d messages embedded (%d from the cache) in %d requests, %.2f s; history fused in %d of %d compilations",
		v.Model, v.Messages, v.Cached, v.Requests, v.Seconds, v.Fused, v.Compilations)
	reasons := slices.Sorted(maps.Keys(v.Lexical))
	for i, r := range reasons {
		sep := ", "
		if i == 0 {
			sep = "; lexical: "
		}
		s += fmt.Sprintf("%s%d %s", sep, v.Lexical[r], r)
	}
	return s
}
