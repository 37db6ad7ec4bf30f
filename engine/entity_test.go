package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/extract"
)

// twoFacts states where Lena lives twice, naming her two ways.
type twoFacts struct{}

func (twoFacts) Extract(_ context.Context, b extract.Batch) (extract.Result, error) {
	return extract.Result{Facts: []extract.Fact{
		{Kind: extract.FactPerson, Subject: "Dr. Lena Ortiz", Attribute: "lives_in", Value: "Lyon", Text: "Lena lives in Lyon", Refs: []string{"m1"}},
		{Kind: extract.FactPerson, Subject: "Lena Ortiz", Attribute: "lives_in", Value: "Paris", Text: "Lena lives in Paris", Refs: []string{"m2"}},
		{Kind: extract.FactPerson, Subject: "Lena Ortiz", Attribute: "likes", Value: "tea", Text: "Lena likes tea", Refs: []string{"m2"}},
	}}, nil
}

// TestExtractionResolvesEntities checks that a digest's facts and
// speakers are resolved in the user's registry, and that two facts about
// one entity's attribute under different keys are reconciled: the later
// one supersedes the earlier.
func TestExtractionResolvesEntities(t *testing.T) {
	p, at, st := eveStore(t)
	ctx := t.Context()
	msgs := []tenure.Message{
		{ThreadID: "th", ID: "m1", Role: "user", Speaker: "Eve", Content: "Lena moved to Lyon.", CreatedAt: at},
		{ThreadID: "th", ID: "m2", Role: "user", Speaker: "Eve", Content: "Lena is in Paris now; she likes tea.", CreatedAt: at.Add(time.Hour)},
	}
	if _, err := st.AppendMessages(ctx, p, msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExtractState(ctx, p, "th", twoFacts{}); err != nil {
		t.Fatal(err)
	}
	es, err := st.Entities(ctx, p, entity.Query{UserID: "eve"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"person:dr_lena_ortiz", "person:eve"}) {
		t.Fatalf("entities = %v, want Lena (both names) and the speaker", ids)
	}
	if !slices.Contains(es[0].Aliases, "person:lena_ortiz") {
		t.Errorf("lena aliases = %v", es[0].Aliases)
	}
	facts, _ := twoFacts{}.Extract(ctx, extract.Batch{})
	lyonKey, parisKey, teaKey := engine.FactKey(facts.Facts[0]), engine.FactKey(facts.Facts[1]), engine.FactKey(facts.Facts[2])
	if lyonKey == parisKey {
		t.Fatalf("both names file under one key %q: nothing left to resolve", lyonKey)
	}
	// The Lyon key's current value is its successor under the other key.
	if o, err := st.CurrentValue(ctx, p, lyonKey, tenure.Read{}); err != nil || o.Content != "Lena lives in Paris" {
		t.Errorf("the Lyon key's current value = %q, %v; want Paris", o.Content, err)
	}
	h, err := st.History(ctx, p, lyonKey, tenure.Scope{})
	if err != nil || len(h.Versions) == 0 || h.Versions[len(h.Versions)-1].Status != tenure.StatusSuperseded {
		t.Errorf("Lyon fact history = %+v, %v; want superseded", h.Versions, err)
	}
	if o, err := st.CurrentValue(ctx, p, parisKey, tenure.Read{}); err != nil || o.Content != "Lena lives in Paris" || o.Attribute != "lives_in" {
		t.Errorf("Paris fact = %+v, %v", o, err)
	}
	// A multi-valued attribute carries no attribute: values coexist.
	if o, err := st.CurrentValue(ctx, p, teaKey, tenure.Read{}); err != nil || o.Attribute != "" {
		t.Errorf("likes fact = %+v, %v", o, err)
	}
}
