package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	tenurehttp "github.com/tenure-dev/tenure/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerKey sends an API key with every request.
type bearerKey struct{ key string }

func (b bearerKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// lockedBuffer is a bytes.Buffer safe for a writer and a concurrent reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is a running 'tenure serve'.
type served struct {
	url, key string
	stderr   *lockedBuffer
	stop     func() int // stops the server and returns its exit status
}

var (
	servingRE = regexp.MustCompile(`on (http://[0-9.:]+) `)
	secretRE  = regexp.MustCompile(`(?m)^\s+(tk_\S+)$`)
)

// serve starts 'tenure serve' on db on a free port, with the extra flags,
// and waits until it answers; key is the admin key it printed, if it
// created one.
func serve(t *testing.T, db string, extra ...string) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--log-level", "warn"}, extra...)
	go func() {
		done <- run(ctx, args, strings.NewReader(""), &bytes.Buffer{}, stderr)
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := servingRE.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("serve did not start: %s", stderr.String())
	}
	s := served{url: url, stderr: stderr, stop: func() int { cancel(); return <-done }}
	if m := secretRE.FindStringSubmatch(stderr.String()); m != nil {
		s.key = m[1]
	}
	t.Cleanup(func() { cancel() })
	return s
}

// TestServeRemote runs the object commands against 'tenure serve' with
// --server and --key and checks they behave as on the local file.
func TestServeRemote(t *testing.T) {
	db := newDB(t)
	srv := serve(t, db)
	if srv.key == "" {
		t.Fatalf("serve printed no admin key: %s", srv.stderr.String())
	}
	remote := []string{"--server", srv.url, "--key", srv.key}
	mustJSON[tenure.WriteResult](t, `{"key":"order.status","value":"approved","valid_from":"2025-01-01T00:00:00Z"}`, append([]string{"put"}, remote...)...)
	w := mustJSON[tenure.WriteResult](t, `{"key":"order.status","value":"cancelled","supersedes":"order.status"}`, append([]string{"put"}, remote...)...)
	if w.Outcome != tenure.OutcomeCreated || w.Object.WrittenBy != localUser {
		t.Errorf("remote put = %+v (the admin key acts as the local owner)", w)
	}
	if got := mustCLI(t, "", append([]string{"get", "order.status"}, remote...)...).stdout; !strings.Contains(got, "order.status = cancelled") {
		t.Errorf("remote get: %q", got)
	}
	if o := mustJSON[tenure.Object](t, "", append([]string{"get", "order.status", "--as-of-valid", "2025-06-01"}, remote...)...); string(o.Value) != `"approved"` {
		t.Errorf("remote get --as-of-valid: %s, want what was true then", o.Value)
	}
	h := mustJSON[tenure.History](t, "", append([]string{"history", "order.status"}, remote...)...)
	if len(h.Versions) < 2 || len(h.Chain) != 2 {
		t.Errorf("remote history: %d versions", len(h.Versions))
	}
	if l := mustJSON[[]tenure.Object](t, "", append([]string{"list"}, remote...)...); len(l) != 1 || string(l[0].Value) != `"cancelled"` {
		t.Errorf("remote list: %v", l)
	}
	env := mustJSON[compile.Envelope](t, "", append([]string{"compile", "--query", "order status", "--budget", "500", "--format", "json"}, remote...)...)
	if env.Tokens == 0 || !strings.Contains(env.Text(), "cancelled") {
		t.Errorf("remote compile: %+v", env)
	}
	if out := mustCLI(t, "", append([]string{"compile", "--query", "order status", "--trace"}, remote...)...).stdout; !strings.Contains(out, "# trace") {
		t.Errorf("remote compile --trace: %s", out)
	}
	mustJSON[tenure.RetireReport](t, "", append([]string{"retire", "--dry-run"}, remote...)...)
	mustJSON[[]tenure.Resolution](t, "", append([]string{"resolutions"}, remote...)...)
	mustJSON[tenure.WriteResult](t, `{"key":"scratch","content":"x","layer":"working_set","session_id":"s1"}`, append([]string{"put"}, remote...)...)
	if r := mustJSON[endSessionResult](t, "", append([]string{"end-session", "s1"}, remote...)...); r.Cleared != 1 {
		t.Errorf("remote end-session cleared %d", r.Cleared)
	}

	// A narrower key sees its own tenant only.
	other := strings.TrimSpace(mustCLI(t, "", "keys", "create", "--db", db, "--tenant", "globex", "--user", "bob").stdout)
	r := tenureCLI(t, "", "get", "order.status", "--server", srv.url, "--key", other)
	if r.code != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("other tenant's get: exit %d %s", r.code, r.stderr)
	}

	for _, tc := range []struct {
		name string
		args []string
		code tenure.Code
		want string
	}{
		{"ErrPrincipalFlag", append([]string{"get", "x", "--tenant", "acme"}, remote...), tenure.CodeInvalid, "--tenant: with --server"},
		{"ErrDBFlag", append([]string{"get", "x", "--db", db}, remote...), tenure.CodeInvalid, "--db: with --server"},
		{"ErrNoKey", []string{"get", "x", "--server", srv.url}, tenure.CodeInvalid, "--key: required with --server"},
		{"ErrBadURL", []string{"get", "x", "--server", "localhost:1", "--key", "tk_x"}, tenure.CodeInvalid, "--server"},
		{"ErrBadKey", []string{"get", "x", "--server", srv.url, "--key", "tk_nope"}, tenure.CodeUnauthenticated, "invalid API key"},
		{"ErrLocalOnly", append([]string{"ingest", "-"}, remote...), tenure.CodeInvalid, "ingest works on a local --db only"},
		{"ErrEmbedder", append([]string{"compile", "--query", "x", "--embedder", "hash"}, remote...), tenure.CodeInvalid, "--embedder"},
		{"ErrInvalidRemote", append([]string{"put"}, remote...), tenure.CodeInvalid, "no input"},
		{"ErrStoreRemote", append([]string{"put"}, remote...), tenure.CodeInvalid, "layer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin := ""
			switch tc.name {
			case "ErrStoreRemote":
				stdin = `{"key":"a","value":1,"layer":"attic"}`
			case "ErrLocalOnly":
				stdin = `{"thread_id":"t","id":"m1","role":"user","content":"hi","created_at":"2025-01-01T00:00:00Z"}`
			}
			r := tenureCLI(t, stdin, tc.args...)
			if r.code != tenure.ExitCode(tc.code) || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tenure.ExitCode(tc.code), tc.want)
			}
		})
	}

	resp, err := http.Get(srv.url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v", err)
	}
	resp.Body.Close()
	// The web inspector: / redirects to it, its sign-in page answers.
	resp, err = http.Get(srv.url + "/")
	if err != nil || resp.StatusCode != 200 || resp.Request.URL.Path != "/ui/signin" {
		t.Errorf("GET / = %v %v, want the inspector's sign-in page", resp.Request.URL, err)
	}
	resp.Body.Close()
	resp, err = http.Post(srv.url+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("MCP without a key: %v %v, want 401", resp.Status, err)
	}
	resp.Body.Close()
	if code := srv.stop(); code != 0 {
		t.Errorf("serve exited %d after SIGTERM: %s", code, srv.stderr.String())
	}

	// A second start on the same database creates no new key.
	again := serve(t, db)
	if again.key != "" || strings.Contains(again.stderr.String(), "tk_") {
		t.Errorf("second start printed a key: %s", again.stderr.String())
	}
	keys := mustJSON[[]tenure.APIKey](t, "", "keys", "list", "--db", db)
	if len(keys) != 2 || keys[0].Name != adminKeyName {
		t.Errorf("keys after restart: %+v", keys)
	}
	var k tenure.APIKey
	req, _ := http.NewRequest("GET", again.url+"/v1/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+srv.key)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		json.NewDecoder(resp.Body).Decode(&k)
		resp.Body.Close()
	}
	if k.Principal.UserID != localUser || k.Principal.Authority != tenure.DefaultHierarchy.Top() || !k.Principal.HasPermission(tenure.PermKeysAdmin) {
		t.Errorf("admin key principal after restart: %+v", k.Principal)
	}
	again.stop()
}

func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--log-level", "loud"}, "--log-level"},
		{[]string{"serve", "--log-format", "xml"}, "--log-format"},
		{[]string{"serve", "--max-body", "0"}, "--max-body: out of range"},
		{[]string{"serve", "--max-document-bytes", "ten"}, "want a size such as"},
		{[]string{"serve", "--max-content-bytes", "2GiB"}, "--max-content-bytes: out of range"},
		{[]string{"serve", "--max-concurrent-compiles", "0"}, "--max-concurrent-compiles: out of range"},
		{[]string{"serve", "--max-concurrent-extractions", "-1"}, "--max-concurrent-extractions: out of range"},
		{[]string{"serve", "--metrics-addr", "256.0.0.1:99999"}, "--metrics-addr: cannot listen"},
		{[]string{"serve", "--addr", "256.0.0.1:99999"}, "--addr: cannot listen"},
		{[]string{"serve", "extra"}, "serve takes no arguments"},
		{[]string{"serve", "--rolling-every", "0"}, "--rolling-every: must be at least 1"},
		{[]string{"serve", "--digest-workers", "0"}, "--digest-workers: out of range"},
		{[]string{"serve", "--llm", "gpt"}, `--llm: unknown provider "gpt"`},
		{[]string{"serve", "--embedder", "hash"}, "--embedder: hash is not offered for state"},
		{[]string{"serve", "--llm-url", "http://localhost:1/v1"}, "--llm-url and --llm-model need"},
	} {
		r := tenureCLI(t, "", append(tc.args, "--db", newDB(t))...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestServeDigest checks that serve digests the threads of every append in
// the background, and that --digest=false leaves them to POST /v1/extract.
func TestServeDigest(t *testing.T) {
	msgs := []tenure.Message{
		{ThreadID: "p1", ID: "m1", Role: "user", Speaker: "Ann", Content: "Let's use Redis for caching.", CreatedAt: time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)},
		{ThreadID: "p1", ID: "m2", Role: "assistant", Speaker: "Bot", Content: "OK, Redis it is.", CreatedAt: time.Date(2023, 5, 8, 10, 1, 0, 0, time.UTC)},
	}
	key := engine.StateKey("p1", tenure.StateUID(tenure.StateDecision, "Use Redis for caching"))
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		srv := serve(t, newDB(t), "--rolling-every", "1")
		c := tenurehttp.NewClient(srv.url, srv.key, tenurehttp.ClientOptions{})
		if _, err := c.AppendMessages(ctx, tenure.Principal{}, msgs); err != nil {
			t.Fatal(err)
		}
		// A digest writes the state items, then the summaries.
		var err error
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err = c.CurrentValue(ctx, tenure.Principal{}, engine.RollingKey("p1"), tenure.Read{}); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("rolling summary after the append (--rolling-every 1): %v", err)
		}
		if _, err := c.CurrentValue(ctx, tenure.Principal{}, key, tenure.Read{}); err != nil {
			t.Errorf("state item after the append: %v", err)
		}
		if code := srv.stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, srv.stderr.String())
		}
	})
	t.Run("OKMCP", func(t *testing.T) {
		// remember over the /mcp endpoint digests like POST /v1/messages.
		srv := serve(t, newDB(t))
		tr := &sdk.StreamableClientTransport{Endpoint: srv.url + "/mcp", HTTPClient: &http.Client{Transport: bearerKey{srv.key}}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for _, m := range msgs {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"kind": "message",
				"thread_id": m.ThreadID, "id": m.ID, "role": m.Role, "speaker": m.Speaker, "content": m.Content,
				"created_at": m.CreatedAt.Format(time.RFC3339)}})
			if err != nil || res.IsError {
				t.Fatalf("remember: %v %+v", err, res)
			}
		}
		c := tenurehttp.NewClient(srv.url, srv.key, tenurehttp.ClientOptions{})
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err = c.CurrentValue(ctx, tenure.Principal{}, key, tenure.Read{}); err == nil {
				break
			}
		}
		if err != nil {
			t.Errorf("state item after remember over MCP: %v", err)
		}
		cs.Close()
		if code := srv.stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, srv.stderr.String())
		}
	})
	t.Run("OKManual", func(t *testing.T) {
		srv := serve(t, newDB(t), "--digest=false")
		c := tenurehttp.NewClient(srv.url, srv.key, tenurehttp.ClientOptions{})
		if _, err := c.AppendMessages(ctx, tenure.Principal{}, msgs); err != nil {
			t.Fatal(err)
		}
		res, err := c.Extract(ctx, "p1", true)
		if err != nil || res.Err() != nil || res.State.Messages != 2 || res.State.ItemsInserted == 0 {
			t.Fatalf("Extract = %+v, %v; want both messages still pending, then items", res, err)
		}
		if _, err := c.CurrentValue(ctx, tenure.Principal{}, key, tenure.Read{}); err != nil {
			t.Errorf("state item after Extract: %v", err)
		}
		if code := srv.stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, srv.stderr.String())
		}
	})
}

// TestServeMCPCompileRecorded checks that serve records the compilations
// of its /mcp endpoint like POST /v1/compile's: the trace_id compile_context
// returns is readable at GET /v1/traces/{id} under the same access rules,
// and the compile metrics count it.
func TestServeMCPCompileRecorded(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	srv := serve(t, db)
	eve := strings.TrimSpace(mustCLI(t, "", "keys", "create", "--db", db, "--user", "eve").stdout)
	tr := &sdk.StreamableClientTransport{Endpoint: srv.url + "/mcp", HTTPClient: &http.Client{Transport: bearerKey{srv.key}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		out, _ := res.StructuredContent.(map[string]any)
		return out
	}
	call("remember", map[string]any{"kind": "object", "key": "order.status", "value": "cancelled"})
	traceID, _ := call("compile_context", map[string]any{"query": "What is the order status?"})["trace_id"].(string)
	if traceID == "" {
		t.Fatal("compile_context returned no trace_id")
	}
	get := func(key, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	status, body := get(srv.key, "/v1/traces/"+traceID)
	var trace compile.Trace
	if status != http.StatusOK || json.Unmarshal([]byte(body), &trace) != nil || trace.TraceID != traceID {
		t.Errorf("GET /v1/traces/%s after compile_context: %d %.200s, want the trace", traceID, status, body)
	}
	if status, _ := get(eve, "/v1/traces/"+traceID); status != http.StatusNotFound {
		t.Errorf("another user's GET /v1/traces/%s: %d, want 404 like a missing trace", traceID, status)
	}
	call("recall", map[string]any{"query": "order status"})
	_, metrics := get(srv.key, "/metrics")
	for _, want := range []string{"tenure_compile_duration_seconds_count 2", `tenure_store_operations_total{code="ok",op="compile"} 2`,
		"tenure_envelope_tokens_count 2"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics after compile_context and recall over MCP lack %q", want)
		}
	}
	cs.Close()
	if code := srv.stop(); code != 0 {
		t.Errorf("serve exited %d: %s", code, srv.stderr.String())
	}
}
