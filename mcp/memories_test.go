package mcp_test

import (
	"context"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
)

func TestMemoryTools(t *testing.T) {
	st := openStore(t)
	w, err := st.Put(context.Background(), owner, tenure.Object{Content: "Mia is my sister", Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
		EntityRefs: []string{"person:mia"}, Subtype: tenure.MemorySubtype{FactType: tenure.FactRelationship}}})
	if err != nil {
		t.Fatal(err)
	}
	id := w.Object.ObjectID
	cs := serve(t, st, owner)
	var list mcp.MemoriesOutput
	callOK(t, cs, mcp.ToolMemoriesList, map[string]any{"entity": "person:mia"}, &list)
	if len(list.Memories) != 1 || list.Memories[0].ObjectID != id {
		t.Fatalf("memories_list: %+v", list)
	}
	var pin tenure.WriteResult
	callOK(t, cs, mcp.ToolMemoryPin, map[string]any{"object_id": id}, &pin)
	if !pin.Object.Memory.Pinned {
		t.Errorf("memory_pin: %+v", pin.Object.Memory)
	}
	callOK(t, cs, mcp.ToolMemoryPin, map[string]any{"object_id": id, "pinned": false}, &pin)
	var imp tenure.WriteResult
	callOK(t, cs, mcp.ToolMemorySetImportance, map[string]any{"object_id": id, "importance": 0}, &imp)
	if m := imp.Object.Memory; m.Pinned || m.Level() != 0 {
		t.Errorf("memory_set_importance: %+v", m)
	}
	if _, e := callErr(t, cs, mcp.ToolMemoryPin, map[string]any{"object_id": "nothing"}); e.Code != tenure.CodeNotFound {
		t.Errorf("pin nothing: %+v", e)
	}
	if _, e := callErr(t, cs, mcp.ToolMemoriesList, map[string]any{"entity": "robot:r2"}); e.Code != tenure.CodeInvalid || e.Field != "entity" {
		t.Errorf("bad entity: %+v", e)
	}
}
