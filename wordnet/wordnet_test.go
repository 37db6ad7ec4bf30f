package wordnet_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/wordnet"
)

func TestLemmas(t *testing.T) {
	for _, c := range []struct {
		word string
		pos  wordnet.POS
		want []string
	}{
		{"children", wordnet.Noun, []string{"child"}},
		{"went", wordnet.Verb, []string{"go"}},
		{"approvals", wordnet.Noun, []string{"approval"}},
		{"approved", wordnet.Verb, []string{"approve"}},
		{"stopped", wordnet.Verb, []string{"stop"}},
		{"Boxes", wordnet.Noun, []string{"box"}},
		{"pass on", wordnet.Verb, []string{"pass_on"}},
		{"xyzzyq", wordnet.Noun, nil},
		{"", wordnet.Noun, nil},
	} {
		if got := wordnet.Lemmas(c.word, c.pos); !cmp.Equal(got, c.want) {
			t.Errorf("Lemmas(%q, %c) = %q, want %q", c.word, c.pos, got, c.want)
		}
	}
}

func TestSynonymous(t *testing.T) {
	for _, c := range []struct {
		a, b string
		pos  wordnet.POS
		want bool
	}{
		{"kids", "children", wordnet.Noun, true},
		{"car", "automobile", wordnet.Noun, true},
		{"purchase", "buy", wordnet.Verb, true},
		{"begin", "start", wordnet.Verb, true},
		{"car", "bicycle", wordnet.Noun, false},
		{"buy", "sell", wordnet.Verb, false},
		{"dog", "unknownword", wordnet.Noun, false},
	} {
		if got := wordnet.Synonymous(c.a, c.b, c.pos, 2); got != c.want {
			t.Errorf("Synonymous(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestDerived(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"sue", "lawsuit", true},
		{"expires", "expiry", true},
		{"signs", "signatory", true},
		{"approval", "approved", true},
		{"decision", "decided", true},
		{"approval", "delivery", false},
		{"sue", "contract", false},
		{"qwertyuiop", "lawsuit", false},
	} {
		if got := wordnet.Derived(c.a, c.b); got != c.want {
			t.Errorf("Derived(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestClass(t *testing.T) {
	for _, c := range []struct {
		word string
		pos  wordnet.POS
		want string
	}{
		{"landlord", wordnet.Noun, "noun.person"},
		{"cofounders", wordnet.Noun, "noun.person"},
		{"committee", wordnet.Noun, "noun.group"},
		{"walked", wordnet.Verb, "verb.motion"},
		{"told", wordnet.Verb, "verb.communication"},
		{"qwertyuiop", wordnet.Noun, ""},
	} {
		if got := wordnet.Class(c.word, c.pos); got != c.want {
			t.Errorf("Class(%q, %c) = %q, want %q", c.word, c.pos, got, c.want)
		}
	}
}

func BenchmarkSynonymous(b *testing.B) {
	for b.Loop() {
		wordnet.Synonymous("kids", "children", wordnet.Noun, 2)
	}
}
