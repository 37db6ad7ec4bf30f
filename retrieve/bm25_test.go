package retrieve_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tenure-dev/tenure/retrieve"
)

func TestTerms(t *testing.T) {
	got := retrieve.Terms("The cats were RUNNING to the 2023 meetings, didn't they?")
	want := []string{"cat", "run", "2023", "meet"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
	if got := retrieve.Terms(""); len(got) != 0 {
		t.Errorf("Terms(\"\") = %q", got)
	}
}

func TestContentWords(t *testing.T) {
	got := retrieve.ContentWords("What did Caroline research, and what did CAROLINE paint?")
	want := []string{"caroline", "research", "paint"}
	if !slices.Equal(got, want) {
		t.Errorf("ContentWords = %q, want %q", got, want)
	}
}

func TestBM25Ranks(t *testing.T) {
	docs := []string{
		"Caroline went to the LGBTQ support group yesterday",
		"Melanie painted a sunrise over the lake",
		"We talked about support for the charity race",
	}
	var terms [][]string
	for _, d := range docs {
		terms = append(terms, retrieve.Terms(d))
	}
	b := retrieve.NewBM25(terms)
	s := b.Scores(retrieve.Terms("When did Caroline go to the support group?"))
	if !(s[0] > s[2] && s[2] > s[1]) {
		t.Errorf("scores %v: want doc 0 > doc 2 > doc 1", s)
	}
	if s[1] != 0 {
		t.Errorf("unrelated doc scored %v", s[1])
	}
	// A rare term weighs more than a common one.
	if b.IDF("carolin") <= b.IDF("support") {
		t.Errorf("idf(caroline)=%v <= idf(support)=%v", b.IDF("carolin"), b.IDF("support"))
	}
	if got := retrieve.NewBM25(nil).Scores([]string{"x"}); len(got) != 0 {
		t.Errorf("empty index scored %v", got)
	}
}

// TestScoreBM25MatchesIndex: the index-free scorer returns exactly the
// index's scores, bit for bit, for random documents and queries with
// repeated, missing and shared terms.
func TestScoreBM25MatchesIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	for round := range 500 {
		docs := make([][]string, rng.IntN(8))
		for i := range docs {
			for range rng.IntN(12) {
				docs[i] = append(docs[i], vocab[rng.IntN(len(vocab))])
			}
		}
		var query []string
		for range rng.IntN(6) {
			query = append(query, vocab[rng.IntN(len(vocab))])
		}
		calls := 0
		got := retrieve.ScoreBM25(len(docs), func(dst []string, i int) []string { calls++; return append(dst, docs[i]...) }, query)
		want := retrieve.NewBM25(docs).Scores(query)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: docs %q query %q: ScoreBM25 = %v, NewBM25 = %v", round, docs, query, got, want)
		}
		if calls > 2*len(docs) {
			t.Fatalf("round %d: terms called %d times for %d documents", round, calls, len(docs))
		}
	}
}
