package mcp_test

import (
	"testing"

	"github.com/tenure-dev/tenure/mcp"
)

func TestSessionsTool(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "message", "thread_id": "t1", "id": "m1", "role": "user",
		"content": "Hello there.", "created_at": "2025-02-02T09:00:00Z"}, nil)
	var out mcp.SessionsOutput
	callOK(t, cs, mcp.ToolSessions, map[string]any{"thread_id": "t1"}, &out)
	if out.State.MessageCount != 1 || len(out.Sessions) != 1 || out.Sessions[0].TurnCount != 1 || out.Sessions[0].ThreadID != "t1" {
		t.Errorf("sessions = %+v, want one session of one turn and a count of 1", out)
	}
}
