package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

const projectJSONL = `{"thread_id": "p1", "id": "m1", "role": "user", "speaker": "Ann", "content": "Let's use Redis for caching.", "created_at": "2023-05-08T10:00:00Z"}
{"thread_id": "p1", "id": "m2", "role": "assistant", "speaker": "Bot", "content": "OK, Redis it is.", "created_at": "2023-05-08T10:01:00Z"}
{"thread_id": "p1", "id": "m3", "role": "user", "speaker": "Ann", "content": "I live in Boston, by the way.", "created_at": "2023-05-08T10:02:00Z"}
`

func TestExtractAndExpand(t *testing.T) {
	db := newDB(t)
	mustCLI(t, projectJSONL, "ingest", "--db", db, "--extract=false", "-")
	got := mustJSON[engine.DigestResult](t, "", "extract", "--db", db, "--thread", "p1", "--rolling-every", "1")
	if got.State.Messages != 3 || got.State.ItemsInserted == 0 || got.State.FactsWritten == 0 || got.StateError != nil {
		t.Fatalf("extract = %+v, want items and a fact from 3 messages", got.State)
	}
	if got.Summary == nil || got.Summary.Rolling == nil || got.SummaryError != nil {
		t.Errorf("summary = %+v, want a rolling summary", got.Summary)
	}
	again := mustJSON[engine.DigestResult](t, "", "extract", "--db", db, "--thread", "p1")
	if again.State.SkippedReason != "no_new_messages" {
		t.Errorf("second extract = %+v, want nothing new", again.State)
	}
	uid := tenure.StateUID(tenure.StateDecision, "Use Redis for caching")
	x := mustJSON[tenure.Expansion](t, "", "expand", "--db", db, uid)
	if x.Item.UID != uid || len(x.Messages) == 0 || x.Messages[0].ID != "m1" {
		t.Errorf("expand = %+v, want the decision and message m1", x)
	}
	out := mustCLI(t, "", "expand", "--db", db, uid).stdout
	if !strings.Contains(out, "Let's use Redis for caching.") {
		t.Errorf("expand output lacks the source message:\n%s", out)
	}
	// Another user cannot see the item: it is missing, not forbidden.
	r := tenureCLI(t, "", "expand", "--db", db, "--user", "mallory", "--authority", "employee", uid)
	if r.code != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("expand as another user: exit %d, stderr %q; want not found", r.code, r.stderr)
	}
}

func TestExtractInvalid(t *testing.T) {
	db := newDB(t)
	for _, c := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no thread", []string{"extract"}, "--thread: required"},
		{"bad provider", []string{"extract", "--thread", "p1", "--llm", "gpt"}, `--llm: unknown provider "gpt"`},
		{"url without provider", []string{"extract", "--thread", "p1", "--llm-url", "http://localhost:1/v1"}, "--llm-url and --llm-model need"},
		{"rolling every zero", []string{"extract", "--thread", "p1", "--rolling-every", "0"}, "--rolling-every: must be at least 1"},
		{"hash embedder", []string{"extract", "--thread", "p1", "--embedder", "hash"}, "--embedder: hash is not offered for state"},
		{"unknown embedder", []string{"extract", "--thread", "p1", "--embedder", "bert"}, `--embedder: unknown value "bert"`},
		{"expand without uid", []string{"expand"}, "usage"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := tenureCLI(t, "", append(c.args, "--db", db)...)
			if r.code == 0 || !strings.Contains(r.stderr, c.wantErr) {
				t.Errorf("exit %d, stderr %q; want an error containing %q", r.code, r.stderr, c.wantErr)
			}
		})
	}
}

// TestExtractOpenAIEmbedder checks the wiring of extract --embedder openai
// against a fake endpoint speaking the embeddings wire format: the
// candidates and the thread's items are embedded for reconciliation.
func TestExtractOpenAIEmbedder(t *testing.T) {
	var inputs, authOK, calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.URL.Path != "/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("request %s with %q, want /embeddings with the key", r.URL.Path, r.Header.Get("Authorization"))
		} else {
			authOK++
		}
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		inputs += len(req.Input)
		var data []map[string]any
		for i := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float64{1, float64(i), 0}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	defer srv.Close()
	t.Setenv("TENURE_EMBED_API_KEY", "sk-test")
	db := newDB(t)
	mustCLI(t, projectJSONL, "ingest", "--db", db, "--extract=false", "-")
	mustCLI(t, "", "extract", "--db", db, "--thread", "p1", "--no-summaries", "--embedder", "openai", "--embed-url", srv.URL, "--embed-model", "m")
	if calls == 0 || authOK != calls || inputs == 0 {
		t.Errorf("embedding endpoint: %d calls, %d authenticated, %d texts; want the items embedded", calls, authOK, inputs)
	}
}

func TestExtractLLMFailureKeepsSummaries(t *testing.T) {
	db := newDB(t)
	mustCLI(t, projectJSONL, "ingest", "--db", db, "--extract=false", "-")
	// Nothing listens on port 1: the model is unreachable.
	r := tenureCLI(t, "", "extract", "--db", db, "--thread", "p1", "--rolling-every", "1", "--json",
		"--llm", "openai", "--llm-url", "http://127.0.0.1:1/v1", "--llm-retries", "0")
	if r.code != tenure.ExitCode(tenure.CodeUnavailable) || !strings.Contains(r.stdout, `"rolling"`) {
		t.Errorf("exit %d, stdout %s; want unavailable with the rolling summary still written (extractive fallback)", r.code, r.stdout)
	}
}

func TestExtractRemote(t *testing.T) {
	db := newDB(t)
	mustCLI(t, projectJSONL, "ingest", "--db", db, "--extract=false", "-")
	srv := serve(t, db, "--digest=false")
	remote := []string{"--server", srv.url, "--key", srv.key}
	got := mustJSON[engine.DigestResult](t, "", append([]string{"extract", "--thread", "p1"}, remote...)...)
	if got.State.Messages != 3 || got.State.ItemsInserted == 0 {
		t.Errorf("remote extract = %+v, want the thread digested by the server", got.State)
	}
	uid := tenure.StateUID(tenure.StateDecision, "Use Redis for caching")
	if x := mustJSON[tenure.Expansion](t, "", append([]string{"expand", uid}, remote...)...); len(x.Messages) == 0 {
		t.Errorf("remote expand = %+v, want the source message", x)
	}
	r := tenureCLI(t, "", append([]string{"extract", "--thread", "p1", "--llm", "openai"}, remote...)...)
	if r.code == 0 || !strings.Contains(r.stderr, "--llm: not with --server") {
		t.Errorf("--llm with --server: exit %d, %q", r.code, r.stderr)
	}
}

// TestStateWithoutExtract: a new user who ingests a conversation and
// compiles sees its state without running 'tenure extract'.
func TestStateWithoutExtract(t *testing.T) {
	t.Run("Ingest", func(t *testing.T) {
		db := newDB(t)
		r := mustCLI(t, projectJSONL, "ingest", "--db", db, "-")
		if !strings.Contains(r.stdout, "digested thread p1: 3 new messages") {
			t.Errorf("ingest output %q does not report the digest", r.stdout)
		}
		out := mustCLI(t, "", "compile", "--db", db, "--query", "what do we use for caching?", "--thread", "p1", "--trace", "--json").stdout
		if !strings.Contains(out, "DECISION (active)") || strings.Contains(out, `"notes"`) {
			t.Errorf("compile after ingest: want the decision and nothing left to digest:\n%s", out)
		}
	})
	t.Run("Compile", func(t *testing.T) {
		db := newDB(t)
		mustCLI(t, projectJSONL, "ingest", "--db", db, "--extract=false", "-")
		out := mustCLI(t, "", "compile", "--db", db, "--query", "what do we use for caching?", "--thread", "p1", "--trace", "--json").stdout
		if !strings.Contains(out, "DECISION (active)") || !strings.Contains(out, "digested thread p1: 3 new messages") {
			t.Errorf("compile --thread did not digest first:\n%s", out)
		}
		fresh := newDB(t)
		mustCLI(t, projectJSONL, "ingest", "--db", fresh, "--extract=false", "-")
		out = mustCLI(t, "", "compile", "--db", fresh, "--query", "caching", "--thread", "p1", "--extract=false").stdout
		if strings.Contains(out, "DECISION") {
			t.Errorf("--extract=false digested:\n%s", out)
		}
	})
}
