package eval_test

import (
	"math"
	"testing"

	"github.com/tenure-dev/tenure/eval"
)

func TestEvidenceRecall(t *testing.T) {
	turns := map[string]string{
		"D1:1": "I adopted a beagle called Rex.",
		"D1:2": "A blue vase  for my\ngrandmother.",
		"D1:3": "Good luck!",
	}
	for _, c := range []struct {
		name, context string
		evidence      []string
		want          float64
		ok            bool
	}{
		{"all present", "Ann: I adopted a beagle called Rex.\nBen: A blue vase for my grandmother.", []string{"D1:1", "D1:2"}, 1, true},
		{"whitespace differs", "A blue vase for my grandmother. (yesterday = 7 May 2023)", []string{"D1:2"}, 1, true},
		{"invisible characters", "A blue\u00a0vase for\u200b my\tgrandmother.", []string{"D1:2"}, 1, true},
		{"case differs", "a blue vase for my grandmother.", []string{"D1:2"}, 0, true},
		{"one of two", "I adopted a beagle called Rex.", []string{"D1:1", "D1:2"}, 0.5, true},
		{"partial text is a miss", "I adopted a beagle", []string{"D1:1"}, 0, true},
		{"unknown id is a miss", "Good luck!", []string{"D1:3", "D9:9"}, 0.5, true},
		{"no evidence", "anything", nil, 0, false},
	} {
		got, ok := eval.EvidenceRecall(c.context, c.evidence, turns)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: EvidenceRecall = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestAnswerTokenRecall(t *testing.T) {
	for _, c := range []struct {
		context, answer string
		want            float64
		ok              bool
	}{
		// "the" and "a" are not content tokens; case and punctuation fold.
		{"We went to the Beach, then to Berlin.", "The beach and a forest", 0.5, true},
		{"Rex is 3 years old", "3", 1, true},
		{"nothing relevant", "Sweden", 0, true},
		{"anything", "the a an", 0, false},
		{"7 May 2023", "7 May, 2023", 1, true},
	} {
		got, ok := eval.AnswerTokenRecall(c.context, c.answer)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("AnswerTokenRecall(%q, %q) = %v, %v; want %v, %v", c.context, c.answer, got, ok, c.want, c.ok)
		}
	}
}
