package extract_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

// TestRulesRelayedRules reads a rule someone is reported to have stated as
// a rule, and nothing else a report says.
func TestRulesRelayedRules(t *testing.T) {
	c := func(s string) []item { return []item{{tenure.StateConstraint, s}} }
	runItemCases(t, []struct {
		name, content string
		want          []item
	}{
		{"OK/said_no_allowed", "The warden said no fires are allowed past the car park.", c("No fires are allowed past the car park")},
		{"OK/says_cant_passive", "Our insurer says the climbing frame can't be used in the rain.", c("The climbing frame can't be used in the rain")},
		{"OK/told_us_must", "The council told us dogs must be kept on leads in the meadow.", c("Dogs must be kept on leads in the meadow")},
		{"OK/said_we_cant", "The head said we can't use the car park for stalls, it has to stay clear.", c("We can't use the car park for stalls")},
		{"NoMatch/said_opinion", "Priya said the new rota looks fine.", nil},
		{"NoMatch/said_cant_make", "Jo said she can't make Saturday.", nil},
		{"NoMatch/asked", "The ranger asked whether campers can't park on the verge.", nil},
		{"NoMatch/question", "So the warden said no fires are allowed past the car park?", nil},
	})
}
