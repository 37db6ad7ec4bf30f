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
		// Round 8: "they" opening the next sentence, a town WordNet
		// spells as a common noun, and sizes in the teens.
		{"OK/they_next_sentence", "Brightlite installed our lighting last year. They're a Reading company with eighteen people.",
			[]fact{{"Brightlite", "based_in", "Reading"}, {"Brightlite", "employees", "eighteen"}}},
		{"OK/common_noun_town", "Aqua-Tech are a Derby outfit with about fifteen engineers, they know the plant well.",
			[]fact{{"Aqua-Tech", "based_in", "Derby"}, {"Aqua-Tech", "employees", "fifteen"}}},
		{"NoMatch/people_next_sentence", "Emma and Joe moved to York. They're a lovely couple.", nil},
		{"NoMatch/no_name_before", "Our caterers are lovely. They're always early.", nil},
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

// TestRulesEmployerInContext reads a person's employer where the clause
// that gives their role does not name it: "their" after an organisation,
// an organisation's possessive, a name "from" an organisation.
func TestRulesEmployerInContext(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name   string
		before []string
		last   string
		want   []fact
	}{
		{"OK/their_after_question", []string{"Who's our account contact at Brightwater Foods?"}, "It's Lena Moss now, she's their head of sales.",
			[]fact{{"Lena Moss", "role", "head of sales"}, {"Lena Moss", "works_at", "Brightwater Foods"}}},
		{"OK/their_partner", []string{"The buyer is probably Harbour Capital, a Glasgow fund."}, "Their partner Ewan Bell is the one we've met.",
			[]fact{{"Ewan Bell", "role", "partner"}, {"Ewan Bell", "works_at", "Harbour Capital"}}},
		{"OK/org_possessive", []string{"Kerr Logistics is a haulier out of Perth with about 80 staff."}, "Kerr's planning contact is Ravi Dutt.",
			[]fact{{"Ravi Dutt", "works_at", "Kerr"}}},
		{"OK/from_in_apposition", nil, "Our solicitor, Mia Roth from Hale & Co, said the lease is fine.",
			[]fact{{"Mia Roth", "role", "solicitor"}, {"Mia Roth", "works_at", "Hale & Co"}}},
		{"OK/acronym_role", nil, "His GP is Dr. Omar Haddad at the Elm Street surgery.",
			[]fact{{"Dr. Omar Haddad", "role", "GP"}, {"Dr. Omar Haddad", "works_at", "the Elm Street surgery"}}},
		{"OK/shifts", nil, "Our neighbour Mrs Hale works night shifts at the infirmary.",
			[]fact{{"Mrs Hale", "works_at", "the infirmary"}}},
		{"OK/past_employer_not_kept", nil, "My cofounder is Ada Park, she's our CTO and used to be at Monzo.",
			[]fact{{"Sam's cofounder", "name", "Ada Park"}, {"Ada Park", "role", "cofounder"}, {"Ada Park", "role", "CTO"}}},
		{"NoMatch/their_too_far_back", []string{"Kerr Logistics is a haulier out of Perth with about 80 staff.", "Lunch?", "Sure.", "Pizza again.", "Fine."},
			"Their manager is Ravi Dutt.", []fact{{"Ravi Dutt", "role", "manager"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var msgs []tenure.Message
			for i, c := range tc.before {
				sp := "Ana"
				if i%2 == 1 {
					sp = "Ben"
				}
				msgs = append(msgs, tenure.Message{ThreadID: "t", ID: "b" + string(rune('0'+i)), Role: "user", Speaker: sp, Content: c, CreatedAt: monday})
			}
			msgs = append(msgs, say("m1", tc.last))
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: msgs})
			var got []fact
			for _, f := range res.Facts {
				if f.Refs[0] == "m1" {
					got = append(got, fact{f.Subject, f.Attribute, f.Value})
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("facts of %q (-want +got):\n%s", tc.last, diff)
			}
		})
	}
}
