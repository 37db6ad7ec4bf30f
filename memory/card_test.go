package memory_test

import (
	"slices"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

func TestCardFacts(t *testing.T) {
	mem := func(id string, imp int, pinned bool) tenure.Object {
		return tenure.Object{ObjectID: id, Memory: &tenure.Memory{Kind: tenure.MemoryPeople, Importance: tenure.Ptr(imp), Pinned: pinned}}
	}
	objs := []tenure.Object{mem("a", 1, false), mem("b", 2, false), mem("c", 3, false), mem("d", 0, true), mem("e", 2, false), {ObjectID: "f"}}
	var got []string
	for _, o := range memory.CardFacts(objs) {
		got = append(got, o.ObjectID)
	}
	if want := []string{"d", "c", "b"}; !slices.Equal(got, want) {
		t.Fatalf("card facts = %v, want %v (pinned, importance, then id; importance 1 and non-memories left out)", got, want)
	}
}
