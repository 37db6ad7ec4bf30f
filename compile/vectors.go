package compile

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// Fusion says how the history combines the relevance of a past message to
// the query by its words (full-text, BM25) and by its meaning (the cosine
// similarity of their vectors).
type Fusion string

// Fusions. Each scales vector relevance alike: a message's similarity to
// the query between the least and the most similar of the query's nearest
// messages, from 0 to 1 (0 below them); lexical relevance is the BM25
// score over the best match's.
const (
	// FusionOr, the default, combines the two as independent evidence:
	// 1 − (1 − lexical) × (1 − 0.6 × vector). Vectors add; they never take
	// from what the words found: a message no vector favours keeps its
	// lexical score, the nearest message that matches no word scores 0.6,
	// and one both favour scores highest. Of the three it lost least to a
	// poor embedder (docs/semantic.md).
	FusionOr Fusion = "or"
	// FusionConvex averages the two: 0.5 × lexical + 0.5 × vector. A
	// message both favour wins, but one that only the words find loses
	// half its score.
	FusionConvex Fusion = "convex"
	// FusionRRF is reciprocal-rank fusion (Cormack et al., 2009): the sum
	// of 1/(60 + rank) over the two rankings, scaled to the best. It needs
	// no calibration but flattens the scores, which the mechanisms that
	// follow (neighbours, sessions, roles, the temporal and speaker
	// boosts) were calibrated on: the 50th nearest message, however far,
	// scores more than half as much as the nearest.
	FusionRRF Fusion = "rrf"
)

// Fusion weights.
const (
	lexShare = 0.5
	orVector = 0.6
	rrfK     = 60
)

// embedQuery adds the query's vector to q when the compiler has a
// MessageEmbedder and the query can be embedded; otherwise it records why
// history is ranked lexically (and warns when the endpoint failed: the
// compilation goes on without it).
func (r *run) embedQuery(ctx context.Context, q *tenure.MessageQuery) {
	me := r.c.opt.MessageEmbedder
	h := r.c.opt.History
	if me == nil || h.DisableVectors {
		return
	}
	meta := &VectorsMeta{}
	r.trace.Retrieval.HistoryVectors = meta
	if strings.TrimSpace(r.req.Query) == "" {
		meta.Reason = VectorsNoQuery
		return
	}
	vec, model, err := me.EmbedQuery(ctx, r.p.TenantID, r.req.Query)
	meta.Model = model
	switch {
	case tenure.ErrorCode(err) == tenure.CodeForbidden:
		meta.Reason = VectorsKeptLocal
		return
	case err != nil:
		meta.Reason = VectorsFailed
		r.trace.Warnings = append(r.trace.Warnings, fmt.Sprintf("history ranked lexically only: the query could not be embedded (%v)", err))
		r.c.opt.Logger.Debug("embed query", "trace_id", r.trace.TraceID, "err", err)
		return
	}
	limit := h.VectorLimit
	if limit <= 0 {
		limit = q.Limit
	}
	q.Vector, q.Model, q.VectorLimit = vec, model, min(limit, 10_000)
	meta.Fused = true
}

// countVectors counts the candidates the vector leg found; with none,
// history is ranked lexically.
func (r *run) countVectors(msgs []tenure.ScoredMessage) {
	meta := r.trace.Retrieval.HistoryVectors
	if meta == nil || !meta.Fused {
		return
	}
	for i := range msgs {
		if msgs[i].Near > 0 {
			meta.Nearest++
		}
		if msgs[i].Embedded {
			meta.Embedded++
		}
	}
	if meta.Nearest == 0 {
		meta.Fused, meta.Reason = false, VectorsMissing
	}
}

// fuse replaces each item's lexical relevance (it.lex, the BM25 score over
// the best) with its fused relevance, the best scaled to 1. A message
// without a vector (not embedded yet, or kept local) keeps its lexical
// relevance, or under FusionRRF its lexical rank alone.
func fuse(items []*item, f Fusion) {
	switch f {
	case FusionRRF:
		fuseRanks(items)
	case FusionConvex:
		fuseScores(items, func(lex, vec float64) float64 { return lexShare*lex + (1-lexShare)*vec })
	default:
		fuseScores(items, func(lex, vec float64) float64 { return 1 - (1-lex)*(1-orVector*vec) })
	}
	best := 0.0
	for _, it := range items {
		best = math.Max(best, it.lex)
	}
	if best > 0 {
		for _, it := range items {
			it.lex /= best
		}
	}
}

// fuseScores scales the similarities of embedded items into it.vec and
// combines them with their lexical relevance.
func fuseScores(items []*item, combine func(lex, vec float64) float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, it := range items {
		if it.hist.Near > 0 {
			lo, hi = math.Min(lo, it.hist.Similarity), math.Max(hi, it.hist.Similarity)
		}
	}
	for _, it := range items {
		if !it.hist.Embedded {
			continue
		}
		switch {
		case hi > lo:
			it.vec = math.Max(0, math.Min(1, (it.hist.Similarity-lo)/(hi-lo)))
		case it.hist.Near > 0:
			it.vec = 1
		}
		it.lex = combine(it.lex, it.vec)
	}
}

// fuseRanks implements FusionRRF.
func fuseRanks(items []*item) {
	var matched []*item
	for _, it := range items {
		if it.hist.Score > 0 {
			matched = append(matched, it)
		}
	}
	slices.SortStableFunc(matched, func(a, b *item) int { return cmp.Compare(b.hist.Score, a.hist.Score) })
	rank := make(map[*item]int, len(matched))
	for i, it := range matched {
		rank[it] = i + 1
	}
	for _, it := range items {
		s := 0.0
		if n := rank[it]; n > 0 {
			s += 1 / float64(rrfK+n)
		}
		if n := it.hist.Near; n > 0 {
			s += 1 / float64(rrfK+n)
		}
		it.lex = s
	}
}
