package extract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestRulesOrganisationPronouns reads "they" after a name, and "we" after
// "we're <name>", as an organisation's.
func TestRulesOrganisationPronouns(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name    string
		content string
		want    []fact
	}{
		{"OK/they_after_subject", "Kestrel Print confirmed the proofs, they're a co-op out of Hebden Bridge.",
			[]fact{{"Kestrel Print", "based_in", "Hebden Bridge"}}},
		{"OK/they_after_is", "The caterer this time is Olive Branch, they're a deli in Frome that's been going since 2004.",
			[]fact{{"Olive Branch", "founded", "2004"}, {"Olive Branch", "based_in", "Frome"}}},
		{"OK/possessive_name", "Dot's Donuts is doing the stall again, they're based in Whitby.",
			[]fact{{"Dot's Donuts", "based_in", "Whitby"}}},
		{"OK/we_are_name", "We're Fernleaf, we make booking software. We're based in Tallinn and we're twelve people.",
			[]fact{{"Fernleaf", "based_in", "Tallinn"}, {"Fernleaf", "employees", "twelve"}}},
		{"OK/place_kind", "The buyer is probably Harbour Capital, a Glasgow fund that backs hardware.",
			[]fact{{"Harbour Capital", "based_in", "Glasgow"}}},
		{"NoMatch/people_and", "Sam and Jo are coming, they're based in Leeds.", nil},
		{"NoMatch/nationality", "Olive Branch is an Italian bakery.", nil},
		{"NoMatch/acronym", "The Riverside is an NHS clinic.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := tenure.Message{ThreadID: "t", ID: "m1", Role: "user", Speaker: "Ana", Content: tc.content, CreatedAt: monday}
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{msg}})
			if diff := cmp.Diff(tc.want, facts(res)); diff != "" {
				t.Errorf("facts of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}
