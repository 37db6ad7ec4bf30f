package mcp_test

import (
	"context"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/mcp"
)

func TestEntityTools(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	for _, o := range []tenure.Object{
		{Key: "a", Content: "Makesh lives in Pune", CanonicalEntityIDs: []string{"person:makesh"}, UserID: owner.UserID},
		{Key: "b", Content: "Mukesh is a pilot", CanonicalEntityIDs: []string{"person:mukesh"}, UserID: owner.UserID},
	} {
		if _, err := st.Put(ctx, owner, o); err != nil {
			t.Fatal(err)
		}
	}
	cs := serve(t, st, owner)
	var list mcp.EntitiesOutput
	callOK(t, cs, mcp.ToolEntities, map[string]any{"status": "pending"}, &list)
	if len(list.Entities) != 1 || list.Entities[0].ID != "person:mukesh" {
		t.Fatalf("pending: %+v", list)
	}
	var d entity.Decision
	callOK(t, cs, mcp.ToolEntityResolve, map[string]any{"mention": "person:Mukesh", "user_id": owner.UserID}, &d)
	if d.Action != entity.Link || d.EntityID != "person:mukesh" {
		t.Errorf("resolve: %+v", d)
	}
	var ch entity.Change
	callOK(t, cs, mcp.ToolEntitySettle, map[string]any{"id": "person:mukesh", "into": "person:makesh"}, &ch)
	if ch.Op.Kind != entity.OpLink {
		t.Fatalf("settle: %+v", ch)
	}
	var v entity.View
	callOK(t, cs, mcp.ToolEntityShow, map[string]any{"id": "person:makesh"}, &v)
	if len(v.Entity.Aliases) != 2 || len(v.Ops) != 1 {
		t.Errorf("show: %+v", v)
	}
	callOK(t, cs, mcp.ToolEntityUndo, map[string]any{"op_id": ch.Op.ID}, &ch)
	if ch.Op.UndoneAt == nil {
		t.Errorf("undo: %+v", ch.Op)
	}
	callOK(t, cs, mcp.ToolEntityMerge, map[string]any{"from": "person:mukesh", "into": "person:makesh"}, &ch)
	callOK(t, cs, mcp.ToolEntitySplit, map[string]any{"id": "person:makesh", "aliases": []string{"person:mukesh"}, "label": "Mukesh"}, &ch)
	if ch.Op.Kind != entity.OpSplit || ch.Op.Into != "person:mukesh_2" {
		t.Errorf("split: %+v", ch.Op)
	}
	other := serve(t, st, tenure.Principal{UserID: "bo", TenantID: tenure.DefaultTenant, Authority: "employee", Clearance: tenure.Restricted})
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code       tenure.Code
		field      string
	}{
		{"ErrInvisible", mcp.ToolEntityShow, map[string]any{"id": "person:makesh"}, tenure.CodeNotFound, "id"},
		{"ErrInvisibleMerge", mcp.ToolEntityMerge, map[string]any{"from": "person:mukesh_2", "into": "person:makesh"}, tenure.CodeNotFound, "from"},
		{"ErrMention", mcp.ToolEntityResolve, map[string]any{"mention": "!!"}, tenure.CodeInvalid, "mention"},
		{"ErrStatus", mcp.ToolEntities, map[string]any{"status": "gone"}, tenure.CodeInvalid, "status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body := callErr(t, other, tc.tool, tc.args)
			if body.Code != tc.code || body.Field != tc.field {
				t.Fatalf("%s: %+v, want %s on %q", tc.tool, body, tc.code, tc.field)
			}
		})
	}
}
