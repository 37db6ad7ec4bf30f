package retrieve

import (
	"math"
	"slices"
)

// BM25 parameters.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25 scores documents against queries with Okapi BM25 over analyzed
// terms (see Terms). Build it once per document set; Score is then cheap.
type BM25 struct {
	docs   []map[string]int
	lens   []int
	avgLen float64
	df     map[string]int
}

// NewBM25 indexes docs, each given as its analyzed terms.
func NewBM25(docs [][]string) *BM25 {
	b := &BM25{docs: make([]map[string]int, len(docs)), lens: make([]int, len(docs)), df: map[string]int{}}
	total := 0
	for i, terms := range docs {
		tf := make(map[string]int, len(terms))
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			b.df[t]++
		}
		b.docs[i], b.lens[i] = tf, len(terms)
		total += len(terms)
	}
	if len(docs) > 0 {
		b.avgLen = float64(total) / float64(len(docs))
	}
	return b
}

// Len returns the number of documents.
func (b *BM25) Len() int { return len(b.docs) }

// IDF returns the inverse document frequency of an analyzed term.
func (b *BM25) IDF(term string) float64 {
	n, df := float64(len(b.docs)), float64(b.df[term])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Score returns document i's BM25 score for the analyzed query terms.
// Repeated query terms count once.
func (b *BM25) Score(i int, query []string) float64 {
	if b.avgLen == 0 {
		return 0
	}
	tf, dl := b.docs[i], float64(b.lens[i])
	score := 0.0
	seen := make(map[string]bool, len(query))
	for _, q := range query {
		if seen[q] {
			continue
		}
		seen[q] = true
		f := float64(tf[q])
		if f == 0 {
			continue
		}
		score += b.IDF(q) * f * (BM25K1 + 1) / (f + BM25K1*(1-BM25B+BM25B*dl/b.avgLen))
	}
	return score
}

// Scores returns every document's score for the query.
func (b *BM25) Scores(query []string) []float64 {
	out := make([]float64, len(b.docs))
	for i := range b.docs {
		out[i] = b.Score(i, query)
	}
	return out
}

// ScoreBM25 returns the BM25 score of each of n documents for the query:
// exactly NewBM25(docs).Scores(query) where terms(dst, i) appends the
// terms of document i to dst, without an index. NewBM25 keeps a
// term-frequency map per document, several times the size of the text;
// ScoreBM25 keeps a length per document and the query's terms, and asks
// for each document's terms twice instead, into one reused slice, so that
// its memory does not grow with the documents' text.
func ScoreBM25(n int, terms func(dst []string, i int) []string, query []string) []float64 {
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	// Repeated query terms count once, in the order of their first use.
	index := map[string]int{}
	for _, q := range query {
		if _, ok := index[q]; !ok {
			index[q] = len(index)
		}
	}
	df := make([]int, len(index))
	last := make([]int, len(index)) // 1 + the last document that counted a term
	lens := make([]int, n)
	total := 0
	var ts []string
	for i := range n {
		ts = terms(ts[:0], i)
		lens[i] = len(ts)
		total += len(ts)
		for _, t := range ts {
			if k, ok := index[t]; ok && last[k] != i+1 {
				last[k] = i + 1
				df[k]++
			}
		}
	}
	avgLen := float64(total) / float64(n)
	if avgLen == 0 {
		return out
	}
	idf := make([]float64, len(index))
	for k := range idf {
		nd, d := float64(n), float64(df[k])
		idf[k] = math.Log(1 + (nd-d+0.5)/(d+0.5))
	}
	tf := make([]int, len(index))
	var hit []int
	for i := range n {
		if lens[i] == 0 {
			continue
		}
		hit = hit[:0]
		ts = terms(ts[:0], i)
		for _, t := range ts {
			if k, ok := index[t]; ok {
				if tf[k] == 0 {
					hit = append(hit, k)
				}
				tf[k]++
			}
		}
		// Sum in query order, as Score does: floating-point addition is
		// not associative.
		slices.Sort(hit)
		dl := float64(lens[i])
		score := 0.0
		for _, k := range hit {
			f := float64(tf[k])
			score += idf[k] * f * (BM25K1 + 1) / (f + BM25K1*(1-BM25B+BM25B*dl/avgLen))
			tf[k] = 0
		}
		out[i] = score
	}
	return out
}
