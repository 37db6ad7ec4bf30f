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
