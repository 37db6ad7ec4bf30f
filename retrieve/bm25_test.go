package retrieve_test

import (
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
