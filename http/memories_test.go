package http_test

import (
	"context"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

func TestMemoriesRoutes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.client(e.alice)
	w, err := c.Put(ctx, tenure.Principal{}, tenure.Object{Content: "John is my cofounder", Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
		EntityRefs: []string{"person:John Doe"}, Subtype: tenure.MemorySubtype{FactType: tenure.FactRelationship}}})
	if err != nil {
		t.Fatal(err)
	}
	id := w.Object.ObjectID
	list, err := c.Memories(ctx, memory.Query{Entity: "person:john_doe"})
	if err != nil || len(list) != 1 || list[0].Key != "people|person|john_doe|relationship" {
		t.Fatalf("list: %+v %v", list, err)
	}
	pin, err := c.SetPinned(ctx, id, true)
	if err != nil || !pin.Object.Memory.Pinned || pin.Object.Memory.Level() != 3 {
		t.Fatalf("pin: %+v %v", pin.Object.Memory, err)
	}
	if _, err := c.SetPinned(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	imp, err := c.SetImportance(ctx, id, 2)
	if err != nil || imp.Object.Memory.Pinned || imp.Object.Memory.Level() != 2 || imp.Object.Version != 4 {
		t.Fatalf("importance: %+v v%d %v", imp.Object.Memory, imp.Object.Version, err)
	}
	// The CLI's path over a server: the memory operations through the
	// generic object routes give the same answer.
	via, err := memory.List(ctx, c, tenure.Principal{}, memory.Query{Kind: tenure.MemoryPeople})
	if err != nil || len(via) != 1 || via[0].Memory.Level() != 2 {
		t.Fatalf("memory.List over the client: %+v %v", via, err)
	}
	if r := e.call("GET", "/v1/memories?type=open_loop", e.alice, ""); r.status != 400 {
		t.Errorf("bad type: %d %s", r.status, r.body)
	}
	if r := e.call("PUT", "/v1/memories/"+id+"/importance", e.alice, `{}`); r.status != 400 {
		t.Errorf("no importance: %d %s", r.status, r.body)
	}
	// Another tenant's key sees no such memory.
	if r := e.call("POST", "/v1/memories/"+id+"/pin", e.bob, ""); r.status != 404 {
		t.Errorf("bob pins alice's memory: %d %s", r.status, r.body)
	}
}
