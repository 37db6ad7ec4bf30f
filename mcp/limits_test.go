package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/mcp"
)

type compilerFunc func(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error)

func (f compilerFunc) Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
	return f(ctx, req)
}

// compile_context and recall share the compile cap: past it a call is a
// JSON-RPC unavailable error that says when to retry; a finished call
// frees its slot.
func TestCompileCap(t *testing.T) {
	st := openStore(t)
	entered, open := make(chan struct{}, 4), make(chan struct{})
	real := compile.New(st, compile.Options{})
	blocking := compilerFunc(func(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
		entered <- struct{}{}
		<-open
		return real.Compile(ctx, req)
	})
	cs := connect(t, mcp.NewServer(st, mcp.Options{Principal: owner, Compiler: blocking, Compiles: admit.New("compilations", 1)}))
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolCompileContext, Arguments: map[string]any{"query": "q"}})
		done <- err
	}()
	<-entered
	for _, tool := range []string{mcp.ToolCompileContext, mcp.ToolRecall} {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"query": "q"}})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != int64(tenure.RPCCode(tenure.CodeUnavailable)) {
			t.Fatalf("%s past the cap: %v, want a JSON-RPC unavailable error", tool, err)
		}
		var data struct {
			Code       tenure.Code `json:"code"`
			RetryAfter int         `json:"retry_after"`
		}
		if err := json.Unmarshal(werr.Data, &data); err != nil || data.Code != tenure.CodeUnavailable || data.RetryAfter != 1 {
			t.Errorf("%s past the cap: data %s (%v), want code unavailable and retry_after 1", tool, werr.Data, err)
		}
	}
	close(open)
	if err := <-done; err != nil {
		t.Fatalf("admitted call: %v", err)
	}
	callOK(t, cs, mcp.ToolCompileContext, map[string]any{"query": "q"}, nil)
}
