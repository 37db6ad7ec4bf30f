package extract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestRulesAddressedTasks reads an order or a request to a person
// addressed by name as that person's task, with or without a deadline,
// and nothing from a remark to a person or a word that only looks like a
// name.
func TestRulesAddressedTasks(t *testing.T) {
	type task struct{ Text, Owner, Due string }
	r := extract.NewRules(extract.RulesOptions{})
	for _, tc := range []struct {
		name, content string
		want          []task
	}{
		{"OK/order", "Hana, reprint the menus for the Golden Goose by Thursday.", []task{{"Reprint the menus for the Golden Goose by 11 May 2023", "Hana", "2023-05-11"}}},
		{"OK/order_particle", "Joel, book the van in with Dev by Friday.", []task{{"Book the van in with Dev by 12 May 2023", "Joel", "2023-05-12"}}},
		{"OK/request_undated", "Owen, can you call the paper merchant about the late delivery?", []task{{"Call the paper merchant about the late delivery", "Owen", ""}}},
		{"OK/request_name_last", "Could you check the proofs for the flyers, Hana?", []task{{"Check the proofs for the flyers", "Hana", ""}}},
		{"NoMatch/thanks", "Hana, thanks for covering Saturday.", nil},
		{"NoMatch/welcome", "Owen, welcome back, hope the trip was good.", nil},
		{"NoMatch/feeling", "Priya, enjoy the long weekend!", nil},
		{"NoMatch/perception", "Owen, look at this, the blade is chipped.", nil},
		{"NoMatch/not_a_name", "Right, order a new blade then.", nil},
		{"NoMatch/interjection", "Ha, fair enough.", nil},
		{"NoMatch/favour_unnamed", "Can you help me plan a trip to Lisbon?", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{say("m1", tc.content)}})
			var got []task
			for _, c := range res.Items {
				got = append(got, task{c.Item.Text, c.Item.Owner, c.Item.Due})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tasks of %q (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}
