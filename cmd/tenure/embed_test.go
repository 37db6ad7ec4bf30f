package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/internal/embedtest"
	"github.com/tenure-dev/tenure/mcp"
)

// embedArgs are the flags that embed with the fake, never retrying.
func embedArgs(srv *embedtest.Server) []string {
	return []string{"--embedder", "openai", "--embed-url", srv.URL(), "--embed-model", "fake", "--embed-retries", "0"}
}

// phoneJSONL is a conversation in which the phone bought is named only as
// an iPhone, among turns about buying other things and about the garden.
func phoneJSONL() string {
	var b strings.Builder
	n := 0
	line := func(text string) {
		fmt.Fprintf(&b, `{"thread_id": "t1", "id": "m%d", "role": "user", "content": %q, "created_at": "2025-02-01T09:%02d:00Z"}`+"\n",
			n, text, n)
		n++
	}
	line("My new iPhone arrived today.")
	// The errands share words with the questions asked ("buy"); they are
	// ten errands for ten friends, not one errand changed ten times.
	friends := []string{"Ann", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal", "Ida", "Jo"}
	for i := range 40 {
		line(fmt.Sprintf("The garden needs watering again, round %d.", i))
		if i%4 == 3 {
			line(fmt.Sprintf("I still need to buy groceries for %s's party.", friends[i/4]))
		}
	}
	return b.String()
}

// compileOutput is compile's --trace --json output.
type compileOutput struct {
	Envelope json.RawMessage `json:"envelope"`
	Trace    compile.Trace   `json:"trace"`
}

// TestEmbedCLI follows messages through ingest with the endpoint down, the
// backfill, a re-import that sends nothing, and compilations that find by
// meaning, or lexically when the endpoint is down again.
func TestEmbedCLI(t *testing.T) {
	srv := embedtest.NewServer(t)
	emb := embedArgs(srv)
	db := newDB(t)
	file := writeFile(t, "phone.jsonl", phoneJSONL())
	const n = 51

	srv.SetDown(true)
	in := mustJSON[ingestResult](t, "", append([]string{"ingest", "--db", db, "--extract=false", file}, emb...)...)
	if in.Appended != n || in.Vectors == nil || in.Vectors.Left != n || in.VectorsError == nil || in.VectorsError.Code != tenure.CodeUnavailable {
		t.Fatalf("ingest with the endpoint down = %+v (vectors %+v, %v); want %d appended, all left, unavailable", in, in.Vectors, in.VectorsError, n)
	}
	srv.SetDown(false)
	out := mustJSON[embedResult](t, "", append([]string{"embed", "--db", db}, emb...)...)
	if out.Embedded != n || out.Error != nil || out.Requests != 1 {
		t.Errorf("embed = %+v, want %d embedded in 1 request", out, n)
	}
	requests := srv.Requests()
	again := mustCLI(t, "", append([]string{"ingest", "--db", db, "--extract=false", file}, emb...)...).stdout
	if !strings.Contains(again, "embedded 0 messages with openai:fake") || srv.Requests() != requests {
		t.Errorf("re-import: %q, %d requests (was %d); want nothing sent", again, srv.Requests(), requests)
	}

	query := []string{"compile", "--db", db, "--query", "Which phone did I buy?", "--budget", "300", "--trace", "--json"}
	lexical := mustJSON[compileOutput](t, "", query...)
	if strings.Contains(string(lexical.Envelope), "iPhone") {
		t.Errorf("lexical compilation found the iPhone: %s", lexical.Envelope)
	}
	fused := mustJSON[compileOutput](t, "", append(query, emb...)...)
	if v := fused.Trace.Retrieval.HistoryVectors; v == nil || !v.Fused || !strings.Contains(string(fused.Envelope), "My new iPhone") {
		t.Errorf("compile --embedder openai: vectors %+v, envelope %s; want the iPhone by meaning", v, fused.Envelope)
	}
	srv.SetDown(true)
	down := mustJSON[compileOutput](t, "", append(query, emb...)...)
	if v := down.Trace.Retrieval.HistoryVectors; v == nil || v.Fused || len(down.Trace.Warnings) != 1 {
		t.Errorf("compile with the endpoint down: vectors %+v, warnings %q; want lexical with a warning", v, down.Trace.Warnings)
	}
	hash := mustJSON[compileOutput](t, "", append(query, "--embedder", "hash")...)
	if hash.Trace.Retrieval.HistoryVectors != nil {
		t.Errorf("compile --embedder hash ranked history by vectors: %+v", hash.Trace.Retrieval.HistoryVectors)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ErrNoEmbedder", []string{"embed", "--db", db}, "--embedder: required"},
		{"ErrHash", []string{"embed", "--db", db, "--embedder", "hash"}, "--embedder: hash is not offered"},
		{"ErrThreadWithoutTenant", append([]string{"embed", "--db", db, "--thread", "t1"}, emb...), "--thread: needs --tenant"},
		{"ErrRetries", append([]string{"ingest", "--db", db, file}, append(emb, "--embed-retries", "11")...), "--embed-retries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tenureCLI(t, "", tc.args...)
			if r.code != tenure.ExitCode(tenure.CodeInvalid) || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want invalid and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// TestServeEmbedTenants checks that serve sends nothing of a tenant left
// out of --embed-tenants to the endpoint — not its messages, its queries,
// its memory or its state items — while it embeds the others' messages in
// the background digest and finds them by meaning.
func TestServeEmbedTenants(t *testing.T) {
	ctx := context.Background()
	fake := embedtest.NewServer(t)
	db := newDB(t)
	srv := serve(t, db, append(embedArgs(fake), "--embed-tenants", tenure.DefaultTenant)...)
	globex := strings.TrimSpace(mustCLI(t, "", "keys", "create", "--db", db, "--tenant", "globex", "--user", "bob").stdout)
	owner := tenurehttp.NewClient(srv.url, srv.key, tenurehttp.ClientOptions{})
	private := tenurehttp.NewClient(srv.url, globex, tenurehttp.ClientOptions{})
	at := time.Date(2025, 2, 1, 9, 0, 0, 0, time.UTC)
	msgs := func(prefix string) []tenure.Message {
		return []tenure.Message{
			{ThreadID: "p1", ID: "m1", Role: "user", Content: prefix + " My new iPhone arrived today.", CreatedAt: at},
			{ThreadID: "p1", ID: "m2", Role: "user", Content: "Let's use Redis for caching.", CreatedAt: at.Add(time.Minute)},
			{ThreadID: "p1", ID: "m3", Role: "user", Content: prefix + " Let's use Postgres for the ledger.", CreatedAt: at.Add(2 * time.Minute)},
		}
	}
	if _, err := owner.AppendMessages(ctx, tenure.Principal{}, msgs("Public")); err != nil {
		t.Fatal(err)
	}
	if _, err := private.AppendMessages(ctx, tenure.Principal{}, msgs("Zebracorp")); err != nil {
		t.Fatal(err)
	}
	if _, err := private.Put(ctx, tenure.Principal{}, tenure.Object{Key: "phone", Content: "Zebracorp phones are iPhones."}); err != nil {
		t.Fatal(err)
	}
	// Both background digests are done when both tenants' state is there
	// and the owner's messages are embedded.
	key := engine.StateKey("p1", tenure.StateUID(tenure.StateDecision, "Use Redis for caching"))
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err = private.CurrentValue(ctx, tenure.Principal{}, key, tenure.Read{}); err == nil {
			if _, err = owner.CurrentValue(ctx, tenure.Principal{}, key, tenure.Read{}); err == nil && fake.Received("Public") {
				break
			}
		}
	}
	if err != nil || !fake.Received("Public My new iPhone") {
		t.Fatalf("after the appends: %v, the endpoint received %q", err, fake.Texts())
	}
	env, tr, err := owner.Compile(ctx, compile.Request{Query: "Which phone do I have?", Budget: 400})
	if v := tr.Retrieval.HistoryVectors; err != nil || v == nil || !v.Fused || !strings.Contains(env.Text(), "iPhone") {
		t.Errorf("the owner's compilation: %v, vectors %+v; want fused, with the iPhone", err, v)
	}
	_, tr, err = private.Compile(ctx, compile.Request{Query: "Zebracorp: which phone do I have?", Budget: 400})
	if v := tr.Retrieval.HistoryVectors; err != nil || v == nil || v.Reason != compile.VectorsKeptLocal {
		t.Errorf("globex's compilation: %v, vectors %+v; want lexical, kept local", err, v)
	}
	if fake.Received("Zebracorp") {
		t.Errorf("the endpoint received globex's text: %q", fake.Texts())
	}
	if code := srv.stop(); code != 0 {
		t.Errorf("serve exited %d: %s", code, srv.stderr.String())
	}
}

// tenure mcp --embedder embeds in the digest after remember, and its
// compile_context finds past messages by meaning.
func TestMCPEmbedder(t *testing.T) {
	fake := embedtest.NewServer(t)
	db := newDB(t)
	mustCLI(t, "", "ingest", "--db", db, "--extract=false", writeFile(t, "phone.jsonl", phoneJSONL()))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), append([]string{"mcp", "--db", db}, embedArgs(fake)...), inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	cs := mcpClient(t, &sdk.IOTransport{Reader: outR, Writer: inW})
	mcpCall(t, cs, mcp.ToolRemember, map[string]any{"kind": "message", "thread_id": "t1", "id": "m99", "role": "user",
		"content": "What a week.", "created_at": "2025-02-02T09:00:00Z"})
	if !fake.Received("My new iPhone arrived today.") {
		t.Errorf("the digest after remember embedded nothing: %d texts sent", len(fake.Texts()))
	}
	if txt := mcpCall(t, cs, mcp.ToolCompileContext, map[string]any{"query": "Which phone did I buy?", "thread_id": "t1",
		"budget": 300}); !strings.Contains(txt, "My new iPhone") {
		t.Errorf("compile_context:\n%s\nwant the iPhone, found by meaning", txt)
	}
	cs.Close()
	if code := <-done; code != 0 {
		t.Errorf("tenure mcp exited %d", code)
	}
}
