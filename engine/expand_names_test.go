package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/entity"
)

var _ compile.NameExpander = (*engine.Engine)(nil)

// TestQueryNamesExpand: after "Makesh" is merged into "Mukesh", a
// compilation whose query says "Mukesh" finds the objects, memories and
// messages written about "Makesh", and the other way round; the trace
// says which names were expanded. Before the merge, and for a principal
// who cannot read the registry, nothing is expanded.
func TestQueryNamesExpand(t *testing.T) { eachStore(t, testQueryNamesExpand) }

func testQueryNamesExpand(t *testing.T, open opener) {
	ctx := t.Context()
	s := open(t, &testClock{t: t0}, 0)
	eve := tenure.Principal{UserID: "eve", TenantID: "acme", Authority: "employee"}
	bob := tenure.Principal{UserID: "bob", TenantID: "acme", Authority: "employee"}
	put := func(o tenure.Object) {
		t.Helper()
		o.UserID = eve.UserID
		if _, err := s.Put(ctx, eve, o); err != nil {
			t.Fatal(err)
		}
	}
	put(tenure.Object{Key: "violin", Content: "Mukesh plays the violin", CanonicalEntityIDs: []string{"person:Mukesh"}})
	put(tenure.Object{Key: "bicycle", Content: "Makesh owns a red bicycle", CanonicalEntityIDs: []string{"person:Makesh"}})
	put(tenure.Object{Content: "Makesh grew up in Pune", Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
		EntityRefs: []string{"person:makesh"}, Attribute: "hometown"}})
	at := time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)
	if _, err := s.AppendMessages(ctx, eve, []tenure.Message{
		{ThreadID: "th", ID: "m1", Role: "user", UserID: "eve", Content: "Makesh's sister visits in June.", CreatedAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	c := compile.New(s, compile.Options{})
	run := func(p tenure.Principal, query string) (string, compile.Trace) {
		t.Helper()
		env, tr, err := c.Compile(ctx, compile.Request{Principal: p, Query: query, Budget: 3000})
		if err != nil {
			t.Fatal(err)
		}
		return env.Text(), tr
	}
	text, tr := run(eve, "what does Mukesh own")
	if strings.Contains(text, "red bicycle") || len(tr.Retrieval.ExpandedNames) != 0 {
		t.Fatalf("before the merge Mukesh's query found Makesh's bicycle or expanded %v:\n%s", tr.Retrieval.ExpandedNames, text)
	}
	if _, err := s.MergeEntities(ctx, eve, entity.MergeRequest{From: "person:makesh", Into: "person:mukesh", UserID: "eve"}); err != nil {
		t.Fatal(err)
	}
	text, tr = run(eve, "what does Mukesh own")
	for _, want := range []string{"red bicycle", "grew up in Pune", "sister visits in June"} {
		if !strings.Contains(text, want) {
			t.Errorf("after the merge, a query about Mukesh lacks %q:\n%s", want, text)
		}
	}
	x := tr.Retrieval.ExpandedNames
	if len(x) != 1 || x[0].Name != "Mukesh" || x[0].Entity != "person:mukesh" || !slices.Contains(x[0].Names, "Makesh") {
		t.Errorf("trace expanded names = %+v, want Mukesh → Makesh", x)
	}
	text, tr = run(eve, "what does Makesh play")
	if !strings.Contains(text, "plays the violin") || len(tr.Retrieval.ExpandedNames) != 1 || !slices.Contains(tr.Retrieval.ExpandedNames[0].Names, "Mukesh") {
		t.Errorf("a query about Makesh: expanded %+v\n%s", tr.Retrieval.ExpandedNames, text)
	}
	// Bob reads the shared registry and his own, not eve's: nothing of
	// eve's expands his query.
	if _, tr := run(bob, "what does Mukesh own"); len(tr.Retrieval.ExpandedNames) != 0 {
		t.Errorf("bob's query expanded through eve's registry: %+v", tr.Retrieval.ExpandedNames)
	}
	// Undoing the merge undoes the expansion.
	v, err := s.Entity(ctx, eve, "person:makesh", "eve")
	if err != nil || len(v.Ops) == 0 {
		t.Fatalf("makesh ops: %+v, %v", v.Ops, err)
	}
	if _, err := s.UndoEntityOp(ctx, eve, v.Ops[len(v.Ops)-1].ID); err != nil {
		t.Fatal(err)
	}
	if text, tr := run(eve, "what does Mukesh own"); strings.Contains(text, "red bicycle") || len(tr.Retrieval.ExpandedNames) != 0 {
		t.Errorf("after undoing the merge: expanded %+v\n%s", tr.Retrieval.ExpandedNames, text)
	}
}
