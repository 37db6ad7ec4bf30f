package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
	"github.com/tenure-dev/tenure/sqlite"
)

var _ mcp.Store = (*sqlite.Store)(nil)

// owner may read and write everything in the default tenant.
var owner = tenure.Principal{UserID: "ada", TenantID: tenure.DefaultTenant, Authority: "policy",
	Clearance: tenure.HighlyRestricted, Roles: []string{"admin"}}

// guest has public clearance only.
var guest = tenure.Principal{UserID: "bob", TenantID: tenure.DefaultTenant, Authority: "guest", Clearance: tenure.Public}

// openStore opens a fresh SQLite store in a temporary directory.
func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{})
	if err := st.Open(context.Background()); err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// connect runs srv over in-memory transports and returns an initialized
// client session; both end with the test.
func connect(t *testing.T, srv *mcp.Server) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return cs
}

// serve returns a client of a new server over st running as p.
func serve(t *testing.T, st mcp.Store, p tenure.Principal) *sdk.ClientSession {
	t.Helper()
	return connect(t, mcp.NewServer(st, mcp.Options{Principal: p}))
}

// callOK calls a tool and fails the test unless it succeeds; it decodes the
// structured result into out when out is not nil.
func callOK(t *testing.T, cs *sdk.ClientSession, tool string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", tool, args, text(res))
	}
	if out != nil {
		decode(t, res.StructuredContent, out)
	}
	return res
}

// callErr calls a tool that must fail with a tool error result and returns
// the result's text and structured error.
func callErr(t *testing.T, cs *sdk.ClientSession, tool string, args any) (string, errorBody) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v, want a tool error result", tool, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s(%v): succeeded with %s, want a tool error", tool, args, text(res))
	}
	var body struct {
		Error errorBody `json:"error"`
	}
	if res.StructuredContent != nil {
		decode(t, res.StructuredContent, &body)
	}
	return text(res), body.Error
}

// errorBody is the structured content of a tool error.
type errorBody struct {
	Code    tenure.Code `json:"code"`
	Field   string      `json:"field"`
	Message string      `json:"message"`
	RPCCode int         `json:"rpc_code"`
}

// text joins the text contents of a result.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decode converts a decoded JSON value into out.
func decode(t *testing.T, v any, out any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %v: %v", v, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// put writes an object directly to the store as p.
func put(t *testing.T, st mcp.Store, p tenure.Principal, o tenure.Object) tenure.Object {
	t.Helper()
	res, err := st.Put(context.Background(), p, o)
	if err != nil {
		t.Fatalf("put %s: %v", o.Key, err)
	}
	return res.Object
}
