package sqlite

import (
	"cmp"
	"math"
	"slices"
)

// bm25 scores rows as FTS5's bm25() does (see message_rank.go), with
// statistics the search counted itself.
type bm25 struct {
	idf   []float64
	avgdl float64
}

// newBM25 returns the scorer for docs rows of tokens tokens in all, of
// which df[i] hold phrase i.
func newBM25(docs, tokens int64, df []float64) bm25 {
	n := float64(docs)
	b := bm25{idf: make([]float64, len(df)), avgdl: float64(tokens) / n}
	for i, hits := range df {
		b.idf[i] = math.Log((n - hits + 0.5) / (hits + 0.5))
		if b.idf[i] <= 0 {
			b.idf[i] = 1e-6
		}
	}
	return b
}

// score is the score of a row of d tokens whose phrases have the
// weighted frequencies freq.
func (b bm25) score(freq []float64, d float64) float64 {
	s := 0.0
	for i, f := range freq {
		s += b.idf[i] * ((f * (bm25K1 + 1.0)) / (f + bm25K1*(1-bm25B+bm25B*d/b.avgdl)))
	}
	return s
}

// reachable returns the rows that can be among the limit best, given
// bounds of their scores: those whose upper bound reaches the limit-th
// best lower bound (a row left out scores strictly less than limit rows
// kept, so it is neither among the best nor tied with them). The rows
// keep their order.
func reachable[R any](rows []R, limit int, bounds func(R) (lo, hi float64)) []R {
	if limit >= len(rows) {
		return rows
	}
	lows := make([]float64, len(rows))
	highs := make([]float64, len(rows))
	for j, r := range rows {
		lows[j], highs[j] = bounds(r)
	}
	sorted := slices.SortedFunc(slices.Values(lows), func(a, b float64) int { return cmp.Compare(b, a) })
	floor := sorted[limit-1]
	var out []R
	for j, r := range rows {
		if highs[j] >= floor {
			out = append(out, r)
		}
	}
	return out
}
