package extract_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

// TestRulesConditionsAsClauses reads a condition with a harm wherever it
// stands: after ", and" or ", so", with its consequence in the present, and
// after a sentence that names the worry it explains.
func TestRulesConditionsAsClauses(t *testing.T) {
	k := func(s string) []item { return []item{{tenure.StateRisk, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/and_if", "The hoist is booked for the 14th, and if the driver is off sick we lose our slot for a month.",
			k("If the driver is off sick we lose our slot for a month")},
		{"OK/present_harm", "If the engine mounts crack again the whole refit slips into June.", k("If the engine mounts crack again the whole refit slips into June")},
		{"OK/no_way_to", "If the paint doesn't arrive by Friday we'll have no way to launch on time.",
			k("If the paint doesn't arrive by Friday we'll have no way to launch on time")},
		{"OK/explained_worry", "My worry is the old generator. If it cuts out we lose the freezer stock.",
			k("If the old generator cuts out we lose the freezer stock")},
		{"NoMatch/so_if_no_harm", "The varnish came in, so if Tom's free we start on the brightwork tomorrow.", nil},
		{"NoMatch/harm_in_condition", "If we lose the toss we take the outer pontoon.", nil},
		{"NoMatch/worry_explained_without_harm", "My worry is the long weekend. If it stays sunny we eat outside.", nil},
	})
}
