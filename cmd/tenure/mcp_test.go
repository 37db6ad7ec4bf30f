package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
	"github.com/tenure-dev/tenure/sqlite"
)

// syncBuffer is a bytes.Buffer safe for a writer and a concurrent reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpClient connects an MCP client over t.
func mcpClient(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// mcpCall calls a tool and returns its text, failing on any error.
func mcpCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", tool, strings.Join(parts, "\n"))
	}
	return strings.Join(parts, "\n")
}

// tenure mcp serves one session over its standard streams and exits 0 when
// the client closes them; what the agent wrote is in the database.
func TestMCPStdio(t *testing.T) {
	db := newDB(t)
	put(t, db, `{"key": "payroll.ada", "content": "Ada earns 123456", "security_classification": "confidential"}`)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"mcp", "--db", db, "--clearance", "public", "--user", "bob"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	cs := mcpClient(t, &sdk.IOTransport{Reader: outR, Writer: inW})
	mcpCall(t, cs, mcp.ToolRemember, map[string]any{"kind": "object", "key": "user.editor", "content": "Bob uses Helix"})
	if txt := mcpCall(t, cs, mcp.ToolCompileContext, map[string]any{"query": "which editor, and what does Ada earn?"}); !strings.Contains(txt, "Bob uses Helix") ||
		strings.Contains(txt, "123456") {
		t.Errorf("compile_context as a public principal:\n%s\nwant the editor and not the payroll", txt)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolHistory, Arguments: map[string]any{"key": "payroll.ada"}})
	if err != nil || !res.IsError {
		t.Errorf("history of a confidential key as a public principal: %+v, %v; want a tool error", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("tenure mcp exited %d, stderr: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tenure mcp did not exit when its input closed")
	}
	if got := getValue(t, db, "user.editor"); got != `"Bob uses Helix"` {
		t.Errorf("user.editor = %s after the session, want \"Bob uses Helix\"", got)
	}
}

// tenure mcp --http serves streamable HTTP at /mcp until interrupted.
func TestMCPHTTP(t *testing.T) {
	db := newDB(t)
	put(t, db, `{"key": "user.editor", "content": "Ada uses Helix"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"mcp", "--db", db, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	addr := regexp.MustCompile(`http://\S+/mcp`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		url = addr.FindString(stderr.String())
	}
	if url == "" {
		t.Fatalf("no address announced; stderr: %s", stderr.String())
	}
	cs := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: url})
	if txt := mcpCall(t, cs, mcp.ToolHistory, map[string]any{"key": "user.editor"}); !strings.Contains(txt, "Ada uses Helix") {
		t.Errorf("history over HTTP = %s, want the object", txt)
	}
	cs.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("tenure mcp --http exited %d, stderr: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tenure mcp --http did not stop when interrupted")
	}
}

func TestMCPInvalid(t *testing.T) {
	db := newDB(t)
	for _, c := range []struct {
		name  string
		args  []string
		field string
	}{
		{"ErrInvalid/budget", []string{"mcp", "--db", db, "--budget", "0"}, "--budget"},
		{"ErrInvalid/http", []string{"mcp", "--db", db, "--http", "not an address"}, "--http"},
		{"ErrInvalid/clearance", []string{"mcp", "--db", db, "--clearance", "cosmic"}, "principal.clearance"},
		{"ErrInvalid/argument", []string{"mcp", "--db", db, "extra"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := tenureCLI(t, "", append(c.args, "--json")...)
			if r.code != tenure.ExitCode(tenure.CodeInvalid) || !strings.Contains(r.stderr, `"field": "`+c.field+`"`) {
				t.Errorf("exit %d, stderr %s; want exit %d naming %q", r.code, r.stderr, tenure.ExitCode(tenure.CodeInvalid), c.field)
			}
		})
	}
}

// The endpoint tenure serve mounts runs each request as the principal its
// API key authenticated.
func TestMCPServeMount(t *testing.T) {
	db := newDB(t)
	put(t, db, `{"key": "payroll.ada", "content": "Ada earns 123456", "security_classification": "confidential"}`)
	st, err := openStore(context.Background(), db, sqlite.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := mcpHandler(st, mcp.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, c := range []struct {
		name      string
		p         tenure.Principal
		wantError bool
	}{
		{"OK/owner", localOwner(), false},
		{"ErrNotFound/public", tenure.Principal{UserID: "bob", TenantID: tenure.DefaultTenant, Clearance: tenure.Public}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r.WithContext(tenure.ContextWithPrincipal(r.Context(), c.p)))
			}))
			defer ts.Close()
			cs := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: ts.URL})
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolHistory, Arguments: map[string]any{"key": "payroll.ada"}})
			if err != nil || res.IsError != c.wantError {
				t.Errorf("history of a confidential key: %+v, %v; want error %v", res, err, c.wantError)
			}
		})
	}
}
