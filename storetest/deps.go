package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testDependencies checks transitive dependency repair.
func testDependencies(t *testing.T, f Factory) {
	e := newEnv(t, f)
	e.put(employee, fact("budget", "10k"))
	b := e.put(employee, tenure.Object{Key: "plan", Value: []byte(`"rent the big room"`), DependsOn: []string{"budget"}})
	c := e.put(employee, tenure.Object{Key: "invite", Value: []byte(`"200 guests"`), DependsOn: []string{"plan"}})
	u := e.put(employee, tenure.Object{Key: "unrelated", Value: []byte(`"x"`), DependsOn: []string{"other"}})
	e.clock.Advance(time.Hour)
	r := e.put(employee, fact("budget", "5k"))

	var flagged []string
	for _, ch := range r.Changes {
		if ch.Reason == tenure.ReasonDependency {
			flagged = append(flagged, ch.ObjectID)
		}
	}
	slices.Sort(flagged)
	want := []string{b.Object.ObjectID, c.Object.ObjectID}
	slices.Sort(want)
	if !slices.Equal(flagged, want) {
		t.Errorf("flagged %v, want %v", flagged, want)
	}
	for _, id := range want {
		if o := e.get(employee, id); !o.NeedsReview || o.Status != tenure.StatusActive {
			t.Errorf("%s: needs_review %v status %s, want flagged and still active", id, o.NeedsReview, o.Status)
		}
	}
	if o := e.get(employee, u.Object.ObjectID); o.NeedsReview {
		t.Errorf("unrelated object flagged")
	}
	// Clearing the flag is an edit by the reviewer.
	o := e.get(employee, b.Object.ObjectID)
	o.NeedsReview = false
	if r := e.put(employee, o); r.Outcome != tenure.OutcomeUpdated || r.Object.NeedsReview {
		t.Errorf("clearing needs_review: %s %v", r.Outcome, r.Object.NeedsReview)
	}
}
