package mcp_test

import (
	"context"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/mcp"
)

// compilation is what OnCompile was told.
type compilation struct {
	user, traceID string
	tokens        int
	d             time.Duration
	err           error
}

// TestOnCompile: every compilation of compile_context and recall reaches
// the hook with its principal, envelope, trace and duration, a failed one
// with its error, as POST /v1/compile records its own.
func TestOnCompile(t *testing.T) {
	st := openStore(t)
	real := compile.New(st, compile.Options{})
	var mu sync.Mutex
	var got []compilation
	compiler := compilerFunc(func(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
		if req.Query == "fail" {
			return compile.Envelope{}, compile.Trace{}, tenure.Errorf(tenure.CodeUnavailable, "", "store down")
		}
		return real.Compile(ctx, req)
	})
	p := tenure.Principal{TenantID: "acme", UserID: "ada", Authority: "employee"}
	cs := connect(t, mcp.NewServer(st, mcp.Options{Principal: p, Compiler: compiler,
		OnCompile: func(_ context.Context, p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, compilation{p.UserID, tr.TraceID, env.Tokens, d, err})
		}}))
	callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "object", "key": "order.status", "value": "cancelled"}, nil)
	var out mcp.CompileOutput
	callOK(t, cs, mcp.ToolCompileContext, map[string]any{"query": "What is the order status?"}, &out)
	var rec mcp.RecallOutput
	callOK(t, cs, mcp.ToolRecall, map[string]any{"query": "order status"}, &rec)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolCompileContext, Arguments: map[string]any{"query": "fail"}})
	if err == nil && !res.IsError {
		t.Fatalf("compile_context with a failing compiler succeeded")
	}

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("OnCompile called %d times (%+v), want 3: compile_context, recall, the failure", len(got), got)
	}
	if c := got[0]; c.user != "ada" || c.traceID == "" || c.traceID != out.TraceID || c.tokens != out.Tokens || c.d <= 0 || c.err != nil {
		t.Errorf("compile_context: hook got %+v, want ada's compilation with trace %s and %d tokens", c, out.TraceID, out.Tokens)
	}
	if c := got[1]; c.user != "ada" || c.traceID == "" || c.traceID != rec.TraceID || c.err != nil {
		t.Errorf("recall: hook got %+v, want ada's compilation with trace %s", c, rec.TraceID)
	}
	if c := got[2]; tenure.ErrorCode(c.err) != tenure.CodeUnavailable {
		t.Errorf("failed compilation: hook got %+v, want its unavailable error", c)
	}
}
