package entity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/entity"
)

// TestExpandQuery: a query's names expand through exact aliases, labels
// and surface forms of active and pending entities, never through a
// fuzzy resemblance or a merged entity's leftovers.
func TestExpandQuery(t *testing.T) {
	reg := []entity.Entity{
		{ID: "person:mukesh", Type: entity.Person, Label: "Mukesh", Aliases: []string{"person:mukesh", "person:makesh"},
			Names: []string{"Mukesh", "Makesh"}, Status: entity.StatusActive},
		{ID: "person:makesh", Type: entity.Person, Status: entity.StatusMerged, MergedInto: "person:mukesh"},
		{ID: "org:acme", Type: entity.Org, Label: "Acme Corp", Aliases: []string{"org:acme_corp", "org:acme_corporation"},
			Names: []string{"Acme Corp", "Acme Corporation"}, Status: entity.StatusActive},
		{ID: "person:lena", Type: entity.Person, Label: "Lena", Aliases: []string{"person:lena"}, Status: entity.StatusActive},
	}
	for _, tc := range []struct {
		name, query string
		want        []entity.Expansion
	}{
		{"OK", "what does Mukesh own", []entity.Expansion{{Name: "Mukesh", Entity: "person:mukesh", Names: []string{"Makesh"}}}},
		{"OKMergedName", "Makesh's bike", []entity.Expansion{{Name: "Makesh", Entity: "person:mukesh", Names: []string{"Mukesh"}}}},
		{"OKLongestFirst", "does Acme Corp hire", []entity.Expansion{{Name: "Acme Corp", Entity: "org:acme", Names: []string{"Acme Corporation"}}}},
		{"OKInOrder", "Acme Corporation and mukesh", []entity.Expansion{
			{Name: "Acme Corporation", Entity: "org:acme", Names: []string{"Acme Corp"}},
			{Name: "mukesh", Entity: "person:mukesh", Names: []string{"Makesh"}}}},
		{"NoFuzzy", "what does Mukesch own", nil},
		{"NoOtherNames", "where is Lena", nil},
		{"NothingKnown", "which database", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, entity.ExpandQuery(tc.query, reg)); diff != "" {
				t.Errorf("ExpandQuery(%q) (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}
