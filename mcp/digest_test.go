package mcp_test

import (
	"context"
	"sync"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
)

// TestRememberDigests: a message remembered over MCP reaches the digest
// hook with its principal, like an append over HTTP; a repeat that
// appends nothing does not.
func TestRememberDigests(t *testing.T) {
	st := openStore(t)
	p := tenure.Principal{TenantID: "acme", UserID: "ada", Authority: "employee"}
	var mu sync.Mutex
	var got []tenure.Message
	var who []string
	cs := connect(t, mcp.NewServer(st, mcp.Options{Principal: p, AfterAppend: func(_ context.Context, p tenure.Principal, msgs []tenure.Message) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, msgs...)
		who = append(who, p.UserID)
	}}))
	args := map[string]any{"kind": "message", "thread_id": "t1", "id": "m1", "role": "user", "content": "Let's use Redis.",
		"created_at": "2026-01-01T10:00:00Z"}
	callOK(t, cs, mcp.ToolRemember, args, nil)
	callOK(t, cs, mcp.ToolRemember, args, nil) // skipped: nothing new to digest
	callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "object", "key": "k", "value": "v"}, nil)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].ThreadID != "t1" || got[0].ID != "m1" || who[0] != "ada" {
		t.Fatalf("digest hook got %+v as %v; want message m1 of t1 once, as ada", got, who)
	}
}
