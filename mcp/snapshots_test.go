package mcp_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
	"github.com/tenure-dev/tenure/snapshot"
)

func TestSnapshotTools(t *testing.T) {
	st := openStore(t)
	router := serve(t, st, owner)
	mapper := serve(t, st, tenure.Principal{UserID: "semantic-mapper", TenantID: tenure.DefaultTenant, Authority: "employee", Clearance: tenure.Restricted})
	var snap snapshot.Snapshot
	callOK(t, router, mcp.ToolSnapshotStart, map[string]any{"workflow_id": "orders", "query": "Which customers placed orders over $500?",
		"strategy": "majority-vote", "path_strategies": map[string]string{"$.entities": "union"}}, &snap)
	if snap.Round != 0 || snap.OpenRound != 1 || snap.Workflow.Strategy != snapshot.MajorityVote {
		t.Fatalf("start: %+v", snap.Meta)
	}
	var sub snapshot.SubmitResult
	callOK(t, mapper, mcp.ToolSnapshotSubmitDelta, map[string]any{"workflow_id": "orders", "round": 1, "weight": 0.35, "operation": "add",
		"path": "$.bindings.customer", "value": "sea:customer:001", "provenance": "Matched 'customer' to concept via KGS lookup"}, &sub)
	if sub.Accepted != 1 || sub.Deltas[0].AgentID != "semantic-mapper" {
		t.Fatalf("submit: %+v", sub)
	}
	callOK(t, router, mcp.ToolSnapshotCloseRound, map[string]any{"workflow_id": "orders"}, &snap)
	if snap.Bindings()["customer"] != "sea:customer:001" || snap.Report == nil || snap.Report.Applied != 1 {
		t.Fatalf("close: %+v", snap)
	}
	callOK(t, mapper, mcp.ToolSnapshotGet, map[string]any{"workflow_id": "orders", "round": 0}, &snap)
	if snap.Round != 0 || len(snap.Bindings()) != 0 {
		t.Fatalf("get round 0: %+v", snap.Meta)
	}
	res := callOK(t, mapper, mcp.ToolSnapshotPathHistory, map[string]any{"workflow_id": "orders", "path": "$.bindings.customer"}, nil)
	want := `Round 1: semantic-mapper → "sea:customer:001" (add $.bindings.customer, weight 0.35, applied) — Matched 'customer' to concept via KGS lookup`
	if text(res) != want {
		t.Fatalf("history:\n%s\nwant\n%s", text(res), want)
	}
	var env mcp.CompileOutput
	callOK(t, mapper, mcp.ToolCompileContext, map[string]any{"query": "who are the customers?", "workflow_id": "orders", "budget": 800}, &env)
	if s, _ := env.Envelope.(string); !strings.Contains(s, "customer → sea:customer:001") {
		t.Fatalf("compile_context with workflow_id: %v", env.Envelope)
	}

	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		code       tenure.Code
		field      string
	}{
		{"ErrPathIntoScalar", mcp.ToolSnapshotSubmitDelta, map[string]any{"workflow_id": "orders", "round": 2, "weight": 0.5, "operation": "add",
			"path": "$.query.x", "value": 1, "provenance": "p"}, tenure.CodeInvalid, "path"},
		{"ErrJSONPath", mcp.ToolSnapshotSubmitDelta, map[string]any{"workflow_id": "orders", "round": 2, "weight": 0.5, "operation": "add",
			"path": "$[", "value": 1, "provenance": "p"}, tenure.CodeInvalid, "path"},
		{"ErrPastRound", mcp.ToolSnapshotSubmitDelta, map[string]any{"workflow_id": "orders", "round": 1, "weight": 0.5, "operation": "add",
			"path": "$.bindings.order", "value": "sea:order:1", "provenance": "p"}, tenure.CodeConflict, "round"},
		{"ErrIdentity", mcp.ToolSnapshotSubmitDelta, map[string]any{"workflow_id": "orders", "round": 2, "weight": 0.5, "operation": "modify",
			"path": "$.bindings.customer", "value": "sea:x", "provenance": "p"}, tenure.CodeConflict, "path"},
		{"ErrUnknownWorkflow", mcp.ToolSnapshotGet, map[string]any{"workflow_id": "nothing"}, tenure.CodeNotFound, "workflow_id"},
		{"ErrNotCreator", mcp.ToolSnapshotCloseRound, map[string]any{"workflow_id": "orders"}, tenure.CodeForbidden, "workflow_id"},
		{"ErrStrategy", mcp.ToolSnapshotStart, map[string]any{"workflow_id": "x", "query": "q", "path_strategies": map[string]string{"$.a[*]": "union"}},
			tenure.CodeInvalid, "path_strategies.$.a[*]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body := callErr(t, mapper, tc.tool, tc.args)
			if body.Code != tc.code || body.Field != tc.field {
				t.Fatalf("%s: %+v, want %s on %q", tc.tool, body, tc.code, tc.field)
			}
		})
	}
}
