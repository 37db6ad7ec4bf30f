package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm/openai"
)

// embeddingRequest is the body of POST /embeddings as OpenAI documents it.
type embeddingRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     *int     `json:"dimensions"`
}

// call is one request as the fake server saw it.
type call struct {
	Auth string
	Body embeddingRequest
}

// fake is an httptest server speaking OpenAI's embeddings wire format. Its
// reply for the n-th request (0-based) is chosen by respond; nil respond
// answers every request correctly.
type fake struct {
	t       *testing.T
	srv     *httptest.Server
	respond func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int)

	mu    sync.Mutex
	calls []call
}

func newFake(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int)) *fake {
	t.Helper()
	f := &fake{t: t, respond: respond}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		f.t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("Content-Type = %q, want application/json", ct)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read body: %v", err)
		return
	}
	// Strict decoding: a field the real API does not know is a test failure.
	var req embeddingRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("request body %s: %v", body, err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, call{Auth: r.Header.Get("Authorization"), Body: req})
	f.mu.Unlock()
	if f.respond == nil {
		writeEmbeddings(w, req, nil)
		return
	}
	f.respond(w, r, req, n)
}

func (f *fake) Calls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func (f *fake) Embedder(opt openai.EmbedderOptions) *openai.Embedder {
	opt.BaseURL = f.srv.URL + "/v1"
	return openai.NewEmbedder(opt)
}

// vectorFor is the fake model: a few small integers derived from the text,
// exact in float32 and JSON, so order mix-ups show up in comparisons.
func vectorFor(text string) []float32 {
	h := fnv.New32a()
	h.Write([]byte(text))
	return []float32{float32(len(text)), float32(h.Sum32() % 1000), -0.5}
}

type item struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

// writeEmbeddings answers req as OpenAI does, honouring encoding_format;
// edit, if set, may reorder or corrupt the items first.
func writeEmbeddings(w http.ResponseWriter, req embeddingRequest, edit func([]item) []item) {
	items := make([]item, len(req.Input))
	for i, text := range req.Input {
		v := vectorFor(text)
		if req.Dimensions != nil {
			v = append(v, make([]float32, *req.Dimensions-len(v))...)
		}
		var emb any = v
		if req.EncodingFormat == "base64" {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(b)
		}
		items[i] = item{Object: "embedding", Index: i, Embedding: emb}
	}
	if edit != nil {
		items = edit(items)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   items,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": 8 * len(req.Input), "total_tokens": 8 * len(req.Input)},
	})
}

// writeError answers with OpenAI's error envelope. Retry-After-Ms keeps
// the SDK's backoff short, as OpenAI's own 429s do.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After-Ms", "1")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("memory object %d: the user prefers %s", i, strings.Repeat("tea ", i%5))
	}
	return out
}

func wantVectors(in []string) [][]float32 {
	out := make([][]float32, len(in))
	for i, s := range in {
		out[i] = vectorFor(s)
	}
	return out
}

func TestEmbedBatchesAndOrder(t *testing.T) {
	// The server returns each batch's items in reverse: only the index
	// field ties a vector to its text.
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
		writeEmbeddings(w, req, func(items []item) []item {
			for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
				items[i], items[j] = items[j], items[i]
			}
			return items
		})
	})
	e := f.Embedder(openai.EmbedderOptions{APIKey: "sk-test", BatchSize: 100, Model: "text-embedding-3-large"})
	in := texts(250)
	got, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if diff := cmp.Diff(wantVectors(in), got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	calls := f.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d requests, want 3", len(calls))
	}
	for i, wantInput := range [][]string{in[:100], in[100:200], in[200:]} {
		c := calls[i]
		if c.Auth != "Bearer sk-test" {
			t.Errorf("request %d Authorization = %q, want Bearer sk-test", i, c.Auth)
		}
		want := embeddingRequest{Model: "text-embedding-3-large", Input: wantInput, EncodingFormat: "base64"}
		if diff := cmp.Diff(want, c.Body); diff != "" {
			t.Errorf("request %d body (-want +got):\n%s", i, diff)
		}
	}
	if got := e.Dimensions(); got != 3 {
		t.Errorf("Dimensions() after Embed = %d, want 3 (last seen)", got)
	}
}

func TestEmbedDefaults(t *testing.T) {
	f := newFake(t, nil)
	e := f.Embedder(openai.EmbedderOptions{})
	if got := e.Name(); got != "openai:text-embedding-3-small" {
		t.Errorf("Name() = %q, want openai:text-embedding-3-small", got)
	}
	if got := e.Dimensions(); got != 0 {
		t.Errorf("Dimensions() before any call = %d, want 0", got)
	}
	in := texts(97)
	if _, err := e.Embed(context.Background(), in); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	calls := f.Calls()
	if len(calls) != 2 || len(calls[0].Body.Input) != 96 || len(calls[1].Body.Input) != 1 {
		t.Fatalf("97 texts went out as %d requests, want 96 + 1", len(calls))
	}
	if c := calls[0]; c.Auth != "" || c.Body.Model != "text-embedding-3-small" || c.Body.Dimensions != nil {
		t.Errorf("request = auth %q, model %q, dimensions %v; want no auth, the default model, no dimensions", c.Auth, c.Body.Model, c.Body.Dimensions)
	}
}

func TestEmbedDimensions(t *testing.T) {
	f := newFake(t, nil)
	e := f.Embedder(openai.EmbedderOptions{Dimensions: 8, Model: "text-embedding-3-small"})
	if got := e.Dimensions(); got != 8 {
		t.Errorf("Dimensions() = %d, want 8 (configured)", got)
	}
	got, err := e.Embed(context.Background(), []string{"hello"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(got) != 1 || len(got[0]) != 8 {
		t.Fatalf("Embed = %v, want one 8-dimensional vector", got)
	}
	if d := f.Calls()[0].Body.Dimensions; d == nil || *d != 8 {
		t.Errorf("request dimensions = %v, want 8", d)
	}
}

// TestEmbedFloatAnswer covers servers that ignore encoding_format and
// always answer with JSON float arrays.
func TestEmbedFloatAnswer(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
		req.EncodingFormat = ""
		writeEmbeddings(w, req, nil)
	})
	in := texts(5)
	got, err := f.Embedder(openai.EmbedderOptions{}).Embed(context.Background(), in)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if diff := cmp.Diff(wantVectors(in), got); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
}

func TestEmbedEmpty(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
		t.Error("Embed with no texts made a request")
	})
	e := f.Embedder(openai.EmbedderOptions{})
	for _, in := range [][]string{nil, {}} {
		got, err := e.Embed(context.Background(), in)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("Embed(%#v) = %#v, %v; want an empty result", in, got, err)
		}
	}
}

func TestEmbedRetry(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprintf("OK/%d", status), func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
				if n == 0 {
					writeError(w, status, "requests", "rate_limit_exceeded", "slow down")
					return
				}
				writeEmbeddings(w, req, nil)
			})
			in := texts(3)
			got, err := f.Embedder(openai.EmbedderOptions{APIKey: "k"}).Embed(context.Background(), in)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if diff := cmp.Diff(wantVectors(in), got); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
			if n := len(f.Calls()); n != 2 {
				t.Errorf("%d requests, want 2 (one retry)", n)
			}
		})
	}
}

func TestEmbedErrors(t *testing.T) {
	type respond = func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int)
	always := func(status int, typ, code, msg string) respond {
		return func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
			writeError(w, status, typ, code, msg)
		}
	}
	items := func(edit func([]item) []item) respond {
		return func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
			writeEmbeddings(w, req, edit)
		}
	}
	raw := func(contentType, body string) respond {
		return func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
			w.Header().Set("Content-Type", contentType)
			io.WriteString(w, body)
		}
	}
	cases := []struct {
		name     string
		respond  respond
		opt      openai.EmbedderOptions
		code     tenure.Code
		contains string
		requests int
	}{
		{"ErrUnauthenticated", always(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-abc***xyz."),
			openai.EmbedderOptions{}, tenure.CodeUnauthenticated, "rejected the API key", 1},
		{"ErrRateLimited", always(429, "requests", "rate_limit_exceeded", "Rate limit reached"),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "rate limited", 3},
		{"ErrRateLimitedNoRetries", always(429, "requests", "rate_limit_exceeded", "Rate limit reached"),
			openai.EmbedderOptions{MaxRetries: -1}, tenure.CodeUnavailable, "rate limited", 1},
		{"ErrServer", always(500, "server_error", "", "The server had an error"),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "status 500", 3},
		{"ErrServerHTML", func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Retry-After-Ms", "1")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		}, openai.EmbedderOptions{MaxRetries: 1}, tenure.CodeUnavailable, "status 502", 2},
		{"ErrBadRequest", always(400, "invalid_request_error", "", "This model's maximum context length is 8192 tokens"),
			openai.EmbedderOptions{}, tenure.CodeInvalid, "maximum context length", 1},
		{"ErrNotFound", always(404, "invalid_request_error", "model_not_found", "The model `nope` does not exist"),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "not found", 1},
		{"ErrMalformedJSON", raw("application/json", `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "malformed response", 1},
		{"ErrNotJSON", raw("text/plain", "hello"),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "malformed response", 1},
		{"ErrWrongShape", raw("application/json", `{"object":"list","result":"ok"}`),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "0 embeddings for 3 inputs", 1},
		{"ErrTooFewItems", items(func(it []item) []item { return it[:2] }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "2 embeddings for 3 inputs", 1},
		{"ErrDuplicateIndex", items(func(it []item) []item { it[2].Index = 0; return it }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "duplicate index 0", 1},
		{"ErrIndexOutOfRange", items(func(it []item) []item { it[1].Index = 3; return it }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "index 3 out of range", 1},
		{"ErrNegativeIndex", items(func(it []item) []item { it[1].Index = -1; return it }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "index -1 out of range", 1},
		{"ErrMissingIndex", raw("application/json", `{"object":"list","model":"m","data":[{"object":"embedding","embedding":[1]},{"object":"embedding","index":1,"embedding":[1]},{"object":"embedding","index":2,"embedding":[1]}]}`),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "item 0 has no index", 1},
		{"ErrMissingEmbedding", items(func(it []item) []item { it[1].Embedding = nil; return it }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "embedding for index 1 is missing", 1},
		{"ErrBadBase64", items(func(it []item) []item { it[1].Embedding = "not base64!"; return it }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "embedding for index 1 is missing or not a vector", 1},
		{"ErrPartialFloat32", items(func(it []item) []item { it[1].Embedding = "AAAA"; return it }), // 3 bytes
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "embedding for index 1 is missing or not a vector", 1},
		{"ErrRaggedDimensions", items(func(it []item) []item { it[1].Embedding = []float32{1}; return it }),
			openai.EmbedderOptions{}, tenure.CodeUnavailable, "embeddings of 3 and 1 dimensions", 1},
		{"ErrDimensionsIgnored", func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
			req.Dimensions = nil // a server that ignores the parameter
			writeEmbeddings(w, req, nil)
		}, openai.EmbedderOptions{Dimensions: 8}, tenure.CodeUnavailable, "3-dimensional embeddings, configured 8", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.respond)
			got, err := f.Embedder(c.opt).Embed(context.Background(), texts(3))
			if err == nil {
				t.Fatalf("Embed = %v, want an error", got)
			}
			if got != nil {
				t.Errorf("Embed returned vectors %v with error %v", got, err)
			}
			if code := tenure.ErrorCode(err); code != c.code {
				t.Errorf("error code = %s, want %s (%v)", code, c.code, err)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not mention %q", err, c.contains)
			}
			if n := len(f.Calls()); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
		})
	}
}

// TestEmbedAuthErrorHidesServerMessage checks that a 401's message, which
// OpenAI fills with part of the rejected key, stays out of the error.
func TestEmbedAuthErrorHidesServerMessage(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
		writeError(w, 401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-abc***xyz.")
	})
	_, err := f.Embedder(openai.EmbedderOptions{APIKey: "sk-abcdefxyz"}).Embed(context.Background(), []string{"a"})
	if err == nil || strings.Contains(err.Error(), "sk-") {
		t.Errorf("error = %v, want one that does not quote the key", err)
	}
}

func TestEmbedTimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request, req embeddingRequest, n int) {
		select {
		case <-r.Context().Done(): // the client gave up
		case <-time.After(10 * time.Second):
		}
	}
	t.Run("ErrAttemptTimeout", func(t *testing.T) {
		f := newFake(t, slow)
		_, err := f.Embedder(openai.EmbedderOptions{Timeout: 50 * time.Millisecond}).Embed(context.Background(), []string{"a"})
		if code := tenure.ErrorCode(err); code != tenure.CodeTimeout {
			t.Errorf("error code = %s, want timeout (%v)", code, err)
		}
	})
	t.Run("ErrContextDeadline", func(t *testing.T) {
		f := newFake(t, slow)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := f.Embedder(openai.EmbedderOptions{}).Embed(ctx, []string{"a"})
		if code := tenure.ErrorCode(err); code != tenure.CodeTimeout {
			t.Errorf("error code = %s, want timeout (%v)", code, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("ErrCanceled", func(t *testing.T) {
		f := newFake(t, slow)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := f.Embedder(openai.EmbedderOptions{}).Embed(ctx, []string{"a"})
		if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable || !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v (code %s), want unavailable wrapping context.Canceled", err, code)
		}
	})
}

func TestEmbedUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close() // nothing listens there any more
	_, err := openai.NewEmbedder(openai.EmbedderOptions{BaseURL: base, MaxRetries: -1}).Embed(context.Background(), []string{"a"})
	if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable {
		t.Errorf("error code = %s, want unavailable (%v)", code, err)
	}
}

func TestEmbedBadBaseURL(t *testing.T) {
	for _, base := range []string{"localhost:11434", "ftp://example.com/v1", "://nope"} {
		e := openai.NewEmbedder(openai.EmbedderOptions{BaseURL: base})
		_, err := e.Embed(context.Background(), []string{"a"})
		if code, field := tenure.ErrorCode(err), tenure.ErrorField(err); code != tenure.CodeInvalid || field != "base_url" {
			t.Errorf("BaseURL %q: error = %v (code %s, field %q), want invalid base_url", base, err, code, field)
		}
	}
}

// TestEmbedConcurrent shares one Embedder between goroutines; run with -race.
func TestEmbedConcurrent(t *testing.T) {
	f := newFake(t, nil)
	e := f.Embedder(openai.EmbedderOptions{BatchSize: 4})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := texts(10 + g)
			got, err := e.Embed(context.Background(), in)
			if err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(wantVectors(in), got); diff != "" {
				t.Errorf("goroutine %d vectors (-want +got):\n%s", g, diff)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkEmbed measures the client side of one 96-text batch of
// 1536-dimensional vectors (text-embedding-3-small's size): request
// encoding, the SDK's decoding and the float32 conversion. Replies are
// rendered once so the fake's own encoding is not counted. "base64" is what
// the Embedder asks for; "float" is a server that ignores the request.
func BenchmarkEmbed(b *testing.B) {
	in := texts(96)
	dims := 1536
	for _, format := range []string{"base64", "float"} {
		b.Run(format, func(b *testing.B) {
			rec := httptest.NewRecorder()
			writeEmbeddings(rec, embeddingRequest{Model: "m", Input: in, Dimensions: &dims, EncodingFormat: format}, nil)
			reply := rec.Body.Bytes()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.Write(reply)
			}))
			defer srv.Close()
			e := openai.NewEmbedder(openai.EmbedderOptions{BaseURL: srv.URL + "/v1"})
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				if _, err := e.Embed(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleNewEmbedder() {
	// Ollama serves OpenAI-compatible embeddings under /v1 and needs no key.
	// NewEmbedder does no I/O, so nothing is contacted until Embed.
	e := openai.NewEmbedder(openai.EmbedderOptions{
		BaseURL: "http://localhost:11434/v1",
		Model:   "nomic-embed-text",
	})
	fmt.Println(e.Name(), e.Dimensions())
	// Output: openai:nomic-embed-text 0
}
