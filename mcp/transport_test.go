package mcp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
)

// The server speaks newline-delimited JSON-RPC over a pair of pipes, as it
// does over standard input and output.
func TestStdio(t *testing.T) {
	st := openStore(t)
	srv := mcp.NewServer(st, mcp.Options{Principal: owner})
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		err := srv.RunIO(ctx, inR, outW)
		outW.Close()
		done <- err
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	var out mcp.RememberOutput
	callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "object", "key": "user.editor", "content": "Ada uses Helix"}, &out)
	if out.Write == nil || out.Write.Outcome != tenure.OutcomeCreated {
		t.Fatalf("remember = %+v, want created", out)
	}
	var h tenure.History
	callOK(t, cs, mcp.ToolHistory, map[string]any{"key": "user.editor"}, &h)
	if len(h.Versions) != 1 || h.Versions[0].Content != "Ada uses Helix" {
		t.Errorf("history = %+v, want the one version", h)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close client: %v", err)
	}
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("server ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop when the client closed its input")
	}
}

// apiKeys is how the HTTP test authenticates: each bearer key maps to a
// principal.
var apiKeys = map[string]tenure.Principal{"key-owner": owner, "key-guest": guest}

func principalFromKey(r *http.Request) (tenure.Principal, error) {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if p, known := apiKeys[key]; ok && known {
		return p, nil
	}
	return tenure.Principal{}, tenure.Errorf(tenure.CodeUnauthenticated, "", "unknown API key")
}

// bearer adds an API key to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	// A client may not choose its principal by sending the internal header.
	r.Header.Set("Tenure-Internal-Principal-Ref", "forged")
	return b.next.RoundTrip(r)
}

// Over streamable HTTP, each request runs as the principal its API key
// resolves to.
func TestStreamableHTTP(t *testing.T) {
	st := openStore(t)
	secret := put(t, st, owner, tenure.Object{Key: "salary.ada", Content: "Ada's salary is 123456",
		SecurityClassification: tenure.Confidential})
	srv := mcp.NewServer(st, mcp.Options{Principal: owner, PrincipalFromRequest: principalFromKey})
	ts := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(ts.Close)

	client := func(t *testing.T, key string) *sdk.ClientSession {
		t.Helper()
		tr := &sdk.StreamableClientTransport{Endpoint: ts.URL,
			HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatalf("connect with %s: %v", key, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	t.Run("OK/owner", func(t *testing.T) {
		cs := client(t, "key-owner")
		var h tenure.History
		callOK(t, cs, mcp.ToolHistory, map[string]any{"key": "salary.ada"}, &h)
		if len(h.Versions) != 1 || h.Versions[0].ObjectID != secret.ObjectID {
			t.Errorf("owner's history = %+v, want the confidential object", h)
		}
		_, data := read(t, cs, mcp.IdentityURI)
		if !strings.Contains(data, `"user_id": "ada"`) {
			t.Errorf("identity over HTTP = %s, want ada", data)
		}
	})
	t.Run("OK/guest", func(t *testing.T) {
		cs := client(t, "key-guest")
		if _, body := callErr(t, cs, mcp.ToolHistory, map[string]any{"key": "salary.ada"}); body.Code != tenure.CodeNotFound {
			t.Errorf("guest's history = %+v, want not_found", body)
		}
		_, data := read(t, cs, mcp.IdentityURI)
		if !strings.Contains(data, `"user_id": "bob"`) {
			t.Errorf("identity over HTTP = %s, want bob", data)
		}
	})
	t.Run("ErrUnauthenticated", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer wrong")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(data), `"code":"unauthenticated"`) {
			t.Errorf("unknown key: %d %s, want 401 unauthenticated", res.StatusCode, data)
		}
	})
}

// Mounted behind a transport that authenticates requests (tenure serve),
// the server reads each request's principal from its context.
func TestPrincipalFromContext(t *testing.T) {
	st := openStore(t)
	put(t, st, owner, tenure.Object{Key: "salary.ada", Content: "Ada's salary is 123456", SecurityClassification: tenure.Confidential})
	srv := mcp.NewServer(st, mcp.Options{PrincipalFromRequest: mcp.PrincipalFromContext})
	h := srv.HTTPHandler()
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := apiKeys[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
			r = r.WithContext(tenure.ContextWithPrincipal(r.Context(), p))
		}
		h.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(auth)
	t.Cleanup(ts.Close)

	for key, want := range map[string]tenure.Code{"key-owner": "", "key-guest": tenure.CodeNotFound} {
		tr := &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatalf("connect with %s: %v", key, err)
		}
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolHistory, Arguments: map[string]any{"key": "salary.ada"}})
		if err != nil {
			t.Fatalf("%s: history: %v", key, err)
		}
		if got := res.IsError; got != (want != "") {
			t.Errorf("%s: history error = %v (%s), want error %q", key, got, text(res), want)
		}
		cs.Close()
	}
	tr := &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}
	if _, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil); err == nil {
		t.Error("connected without a principal, want a refusal")
	}
}
