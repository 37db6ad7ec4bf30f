package retrieve

import "math"

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
