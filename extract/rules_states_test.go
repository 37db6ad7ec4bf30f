package extract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestRulesStates reads a diet or an allergy said with "be" in any
// aspect, of the speaker or of someone else.
func TestRulesStates(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content string
		want          []fact
	}{
		{"OK/been_since", "I've been vegetarian since I was fifteen.", []fact{{"Sam", "diet", "vegetarian"}}},
		{"OK/adjective", "I'm vegan, by the way.", []fact{{"Sam", "diet", "vegan"}}},
		{"OK/named", "Daniel is vegetarian and the kids are picky.", []fact{{"Daniel", "diet", "vegetarian"}}},
		{"OK/relative", "My wife is strictly pescatarian.", []fact{{"Sam's wife", "diet", "pescatarian"}}},
		{"OK/intolerant", "I'm lactose intolerant.", []fact{{"Sam", "diet", "lactose intolerant"}}},
		{"OK/allergy_noun", "I have a severe nut allergy.", []fact{{"Sam", "allergic_to", "nut"}}},
		{"OK/allergic_adverb", "I'm seriously allergic to shellfish.", []fact{{"Sam", "allergic_to", "shellfish"}}},
		{"OK/relative_allergy", "My son has a peanut allergy.", []fact{{"Sam's son", "allergic_to", "peanut"}}},
		{"OK/drink", "I don't drink alcohol.", []fact{{"Sam", "diet", "no alcohol"}}},
		{"OK/been_a_job", "I've been a nurse for twenty years.", []fact{{"Sam", "job", "nurse"}}},
		{"OK/we_live", "We live in Bristol, near the docks.", []fact{{"Sam", "lives_in", "Bristol"}}},
		{"NoMatch/negated", "I'm not vegetarian.", nil},
		{"NoMatch/past", "Dana used to be vegan.", nil},
		{"NoMatch/question", "Is anyone vegan?", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{say("m1", tc.content)}})
			if diff := cmp.Diff(tc.want, facts(res)); diff != "" {
				t.Errorf("facts of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}
