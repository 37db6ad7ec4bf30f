package extract_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestRulesReportedChanges: a report that a value was changed ("Finance
// raised the budget ceiling to 95k euros") is the changed item — of the
// type of the item it changes, naming it as superseded — whether that
// item is already in the thread's state or earlier in the batch. What is
// proposed, asked, denied or about something else changes nothing.
func TestRulesReportedChanges(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	budget := tenure.StateItem{UID: "c_budget", Type: tenure.StateConstraint, Text: "The budget can't go over 80k euros",
		Status: "active", Subject: "budget", TopicTags: []string{"budget"}}
	launch := tenure.StateItem{UID: "a_launch", Type: tenure.StateAction, Text: "Launch the beta on 4 May 2023",
		Status: "open", Owner: "Omar", Due: "2023-05-04", Subject: "launch", TopicTags: []string{"launch"}}
	standup := tenure.StateItem{UID: "d_standup", Type: tenure.StateDecision, Text: "Hold the standup at 9:30",
		Status: "active", Subject: "standup", TopicTags: []string{"standup"}}
	invoice := tenure.StateItem{UID: "a_invoice", Type: tenure.StateAction, Text: "Send the invoice by 12 May 2023",
		Status: "open", Subject: "invoice", TopicTags: []string{"invoice"}}
	existing := []tenure.StateItem{budget, launch, standup, invoice}
	for _, tc := range []struct {
		content string
		// supersedes is the uid the change names, "" when the sentence
		// is no change of a known item.
		supersedes string
		typ        tenure.StateType
		owner, due string
	}{
		{"Finance raised the budget ceiling to 95k euros.", "c_budget", tenure.StateConstraint, "", ""},
		{"Update: we pushed the beta launch to May 18.", "a_launch", tenure.StateAction, "Omar", "2023-05-18"},
		{"Heads up, the beta launch slipped to next month.", "a_launch", tenure.StateAction, "Omar", "2023-06"},
		{"We moved the standup to 10:15.", "d_standup", tenure.StateDecision, "", ""},
		{"The invoice got pushed to Friday the 19th.", "a_invoice", tenure.StateAction, "", "2023-05-19"},
		// Proposed, asked, denied: no change.
		{"We might push the beta launch to May 18.", "", "", "", ""},
		{"Should we move the standup to 10:15?", "", "", "", ""},
		{"We didn't move the standup to 10:15 in the end.", "", "", "", ""},
		{"If finance raises the budget ceiling to 95k euros we can add a track.", "", "", "", ""},
		// Another thing moved: no shared noun.
		{"We moved the team lunch to 12:30.", "", "", "", ""},
		// The same value: nothing changed.
		{"We moved the standup to 9:30.", "", "", "", ""},
	} {
		t.Run(tc.content, func(t *testing.T) {
			res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{say("m1", tc.content)}, Existing: existing})
			var got *extract.Candidate
			for i := range res.Items {
				if res.Items[i].Supersedes != "" {
					got = &res.Items[i]
				}
			}
			if tc.supersedes == "" {
				if got != nil {
					t.Fatalf("got a change of %s: %+v", got.Supersedes, got.Item)
				}
				return
			}
			if got == nil {
				t.Fatalf("no change found; items: %v", items(res))
			}
			it := got.Item
			if got.Supersedes != tc.supersedes || it.Type != tc.typ || it.Owner != tc.owner || it.Due != tc.due {
				t.Errorf("got supersedes %q, %s, owner %q, due %q; want %q, %s, %q, %q (%q)",
					got.Supersedes, it.Type, it.Owner, it.Due, tc.supersedes, tc.typ, tc.owner, tc.due, it.Text)
			}
		})
	}
}

// TestRulesReportedChangeInBatch: the item a report changes may be one the
// same batch states first.
func TestRulesReportedChangeInBatch(t *testing.T) {
	r := extract.NewRules(extract.RulesOptions{})
	res := extractBatch(t, r, extract.Batch{ThreadID: "t", Messages: []tenure.Message{
		say("m1", "The budget can't go over 80k euros."),
		say("m2", "Good news: finance raised the budget ceiling to 95k euros."),
	}})
	if len(res.Items) != 2 {
		t.Fatalf("want 2 items, got %v", items(res))
	}
	old, changed := res.Items[0], res.Items[1]
	if changed.Item.Type != tenure.StateConstraint || changed.Supersedes != old.Item.UID {
		t.Errorf("want the second a constraint superseding %s, got %s superseding %q", old.Item.UID, changed.Item.Type, changed.Supersedes)
	}
}
