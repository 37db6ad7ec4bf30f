package extract_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

// TestRulesCoordinatedClauses reads a clause after ", and" that opens
// with its own subject and a binding modal as a statement of its own.
func TestRulesCoordinatedClauses(t *testing.T) {
	d := func(s string) item { return item{tenure.StateDecision, s} }
	c := func(s string) item { return item{tenure.StateConstraint, s} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/decision_and_limit", "Let's use Redis for caching, and the API must respond in under 200 ms.",
			[]item{d("Use Redis for caching"), c("The API must respond in under 200 ms")}},
		{"OK/have_to", "We're moving the standup to 10, and the notes have to go in the wiki.",
			[]item{d("Move the standup to 10"), c("The notes have to go in the wiki")}},
		{"OK/cant", "We're sticking with Postgres, and the schema can't change before the audit.",
			[]item{d("Stick with Postgres"), c("The schema can't change before the audit")}},
		{"NoMatch/must_have_been", "I had lunch at the new ramen place, and the broth must have been reheated.", nil},
		{"NoMatch/cant_wait", "The demo went well, and the client can't wait to see the next one.", nil},
		{"NoMatch/must_be", "I checked the logs, and the job must be stuck somewhere.", nil},
	})
}

// TestRulesChoicesWithoutCues reads a choice said without a cue word: a
// fragment that sets an option aside, a replacement in progress, and a
// sentence a remark after it says is settled.
func TestRulesChoicesWithoutCues(t *testing.T) {
	d := func(s string) []item { return []item{{tenure.StateDecision, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/fragment_instead", "Let's not, we'd never get the staff. Soft launch with members only instead.", d("Soft launch with members only instead")},
		{"OK/fragment_rather_than", "Kids' bikes rather than e-bikes in the window this month.", d("Kids' bikes rather than e-bikes in the window in May 2023")},
		{"OK/we_instead", "We're counting the stock on Sunday instead.", d("Count the stock on 14 May 2023 instead")},
		{"OK/replacing", "The old till is dying, we're replacing it with a Square terminal.", d("Replace it with a Square terminal")},
		{"OK/settled", "Then one camera and we shoot the dialogue scenes twice. That's settled.", d("One camera and we shoot the dialogue scenes twice")},
		{"NoMatch/past_fragment", "Went to the trade show instead, it was dull.", nil},
		{"NoMatch/one_thing", "Rain rather than sun, as usual for a Saturday.", nil},
		{"NoMatch/past_replaced", "My brother replaced his with a tablet, he hated it.", nil},
		{"NoMatch/final_proof", "The queue at lunch was mad. That's final proof we need a second mechanic.", nil},
		{"NoMatch/took_instead", "I was going to cycle in but took the bus instead.", nil},
	})
}
