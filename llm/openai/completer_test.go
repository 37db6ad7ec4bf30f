package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
	"github.com/tenure-dev/tenure/llm/openai"
)

// chatRequest is the body of POST /chat/completions as OpenAI documents
// it, limited to the fields a Completer may send.
type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	Temperature         *float64      `json:"temperature"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatCall is one request as the fake chat server saw it.
type chatCall struct {
	Auth string
	Body chatRequest
}

// chatFake is an httptest server speaking OpenAI's chat completions wire
// format. Its reply to the n-th request (0-based) is chosen by respond; nil
// respond answers every request with "hello".
type chatFake struct {
	t       *testing.T
	srv     *httptest.Server
	respond func(w http.ResponseWriter, r *http.Request, req chatRequest, n int)

	mu    sync.Mutex
	calls []chatCall
}

func newChatFake(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, req chatRequest, n int)) *chatFake {
	t.Helper()
	f := &chatFake{t: t, respond: respond}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *chatFake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
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
	// Strict decoding: a field the fake does not expect is a test failure.
	var req chatRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("request body %s: %v", body, err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, chatCall{Auth: r.Header.Get("Authorization"), Body: req})
	f.mu.Unlock()
	if f.respond == nil {
		writeChat(w, "hello")
		return
	}
	f.respond(w, r, req, n)
}

func (f *chatFake) Calls() []chatCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatCall(nil), f.calls...)
}

func (f *chatFake) Completer(opt openai.CompleterOptions) *openai.Completer {
	opt.BaseURL = f.srv.URL + "/v1"
	return openai.NewCompleter(opt)
}

// writeChat answers with a chat completion whose one choice says content,
// as OpenAI does.
func writeChat(w http.ResponseWriter, content string) {
	writeChatJSON(w, map[string]any{
		"id": "chatcmpl-abc123", "object": "chat.completion", "created": 1741570283,
		"model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_06737a9306", "service_tier": "default",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil, "annotations": []any{}},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage": map[string]any{
			"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0},
		},
	})
}

func writeChatJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func ptr[T any](v T) *T { return &v }

func TestCompleteRequest(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := newChatFake(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
			writeChat(w, `[{"type_tag":"decision"}]`)
		})
		c := f.Completer(openai.CompleterOptions{APIKey: "sk-test", Model: "qwen2.5:7b"})
		got, err := c.Complete(context.Background(), llm.Request{
			System: "You extract state.",
			Messages: []llm.Message{
				{Role: "user", Content: "Let's use Redis"},
				{Role: "assistant", Content: "OK"},
				{Role: "user", Content: "Extract."},
			},
			MaxTokens:   512,
			Temperature: ptr(0.0),
		})
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		want := llm.Response{Text: `[{"type_tag":"decision"}]`, Model: "gpt-4o-mini-2024-07-18", InputTokens: 19, OutputTokens: 10}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		calls := f.Calls()
		if len(calls) != 1 {
			t.Fatalf("%d requests, want 1", len(calls))
		}
		wantCall := chatCall{
			Auth: "Bearer sk-test",
			Body: chatRequest{
				Model: "qwen2.5:7b",
				Messages: []chatMessage{
					{Role: "system", Content: "You extract state."},
					{Role: "user", Content: "Let's use Redis"},
					{Role: "assistant", Content: "OK"},
					{Role: "user", Content: "Extract."},
				},
				Temperature: ptr(0.0), // sent although zero
				MaxTokens:   ptr(512), // a local server: the field every server knows
			},
		}
		if diff := cmp.Diff(wantCall, calls[0]); diff != "" {
			t.Errorf("request (-want +got):\n%s", diff)
		}
	})
	t.Run("OKDefaults", func(t *testing.T) {
		f := newChatFake(t, nil)
		got, err := f.Completer(openai.CompleterOptions{}).Complete(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: "user", Content: "hi"}},
		})
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got.Text != "hello" {
			t.Errorf("text = %q, want hello", got.Text)
		}
		wantCall := chatCall{Body: chatRequest{
			Model:    openai.DefaultChatModel,
			Messages: []chatMessage{{Role: "user", Content: "hi"}}, // no empty system message
		}}
		if diff := cmp.Diff([]chatCall{wantCall}, f.Calls()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("OKMaxCompletionTokensForOpenAI", func(t *testing.T) {
		f := newChatFake(t, nil)
		// Send requests for api.openai.com to the fake.
		target, _ := url.Parse(f.srv.URL)
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
			return http.DefaultTransport.RoundTrip(r)
		})}
		c := openai.NewCompleter(openai.CompleterOptions{APIKey: "k", HTTPClient: client})
		if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}, MaxTokens: 64}); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		body := f.Calls()[0].Body
		if body.MaxCompletionTokens == nil || *body.MaxCompletionTokens != 64 || body.MaxTokens != nil {
			t.Errorf("max_completion_tokens = %v, max_tokens = %v; want 64 and absent", body.MaxCompletionTokens, body.MaxTokens)
		}
	})
	t.Run("OKMaxTokensParamOverride", func(t *testing.T) {
		f := newChatFake(t, nil)
		c := f.Completer(openai.CompleterOptions{MaxTokensParam: openai.MaxCompletionTokensParam})
		if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}, MaxTokens: 8}); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if body := f.Calls()[0].Body; body.MaxCompletionTokens == nil || *body.MaxCompletionTokens != 8 {
			t.Errorf("max_completion_tokens = %v, want 8", body.MaxCompletionTokens)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCompleteErrors(t *testing.T) {
	type respond = func(w http.ResponseWriter, r *http.Request, req chatRequest, n int)
	always := func(status int, typ, code, msg string) respond {
		return func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
			writeError(w, status, typ, code, msg)
		}
	}
	raw := func(contentType, body string) respond {
		return func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
			w.Header().Set("Content-Type", contentType)
			io.WriteString(w, body)
		}
	}
	for _, c := range []struct {
		name     string
		respond  respond
		code     tenure.Code
		contains string
	}{
		{"ErrUnauthenticated", always(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-abc***xyz."),
			tenure.CodeUnauthenticated, "rejected the API key"},
		{"ErrForbidden", always(403, "invalid_request_error", "unsupported_country_region_territory", "Country not supported"),
			tenure.CodeUnauthenticated, "status 403"},
		{"ErrBadRequest", always(400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens"),
			tenure.CodeInvalid, "maximum context length"},
		{"ErrModelNotFound", always(404, "invalid_request_error", "model_not_found", "The model `nope` does not exist"),
			tenure.CodeInvalid, "not found"},
		{"ErrUnprocessable", always(422, "invalid_request_error", "", "unprocessable"),
			tenure.CodeInvalid, "status 422"},
		{"ErrTooLarge", always(413, "invalid_request_error", "", "request too large"),
			tenure.CodeTooLarge, "too large"},
		{"ErrRateLimited", always(429, "requests", "rate_limit_exceeded", "Rate limit reached"),
			tenure.CodeUnavailable, "rate limited"},
		{"ErrServer", always(500, "server_error", "", "The server had an error"),
			tenure.CodeUnavailable, "status 500"},
		{"ErrServerHTML", func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		}, tenure.CodeUnavailable, "status 502"},
		{"ErrMalformedJSON", raw("application/json", `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"[{\"a\"`),
			tenure.CodeUnavailable, "malformed"},
		{"ErrNotJSON", raw("text/plain", "hello"),
			tenure.CodeUnavailable, "malformed"},
		{"ErrNoChoices", raw("application/json", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[]}`),
			tenure.CodeInvalid, "no choices"},
		{"ErrRefusal", raw("application/json", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`),
			tenure.CodeInvalid, "refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newChatFake(t, c.respond)
			got, err := f.Completer(openai.CompleterOptions{APIKey: "sk-abcdefxyz"}).Complete(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			if err == nil {
				t.Fatalf("Complete = %+v, want an error", got)
			}
			if code := tenure.ErrorCode(err); code != c.code {
				t.Errorf("error code = %s, want %s (%v)", code, c.code, err)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not mention %q", err, c.contains)
			}
			if strings.Contains(err.Error(), "sk-") {
				t.Errorf("error %q quotes the key", err)
			}
			// The SDK's own retries are off: WithRetry is the one layer.
			if n := len(f.Calls()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestCompleteWithRetry(t *testing.T) {
	noSleep := func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	for _, c := range []struct {
		name     string
		fail     int // requests answered with status before a success
		status   int
		code     tenure.Code
		requests int
	}{
		{"OKAfter429", 1, 429, "", 2},
		{"OKAfterTwo503s", 2, 503, "", 3},
		{"Err500Exhausted", 10, 500, tenure.CodeUnavailable, 3},
		{"Err401NotRetried", 10, 401, tenure.CodeUnauthenticated, 1},
		{"Err400NotRetried", 10, 400, tenure.CodeInvalid, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newChatFake(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				if n < c.fail {
					writeError(w, c.status, "error", "", http.StatusText(c.status))
					return
				}
				writeChat(w, "done")
			})
			comp := llm.WithRetry(f.Completer(openai.CompleterOptions{}), llm.RetryOptions{Sleep: noSleep})
			got, err := comp.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			if code := tenure.ErrorCode(err); code != c.code {
				t.Errorf("error code = %q, want %q (%v)", code, c.code, err)
			}
			if err == nil && got.Text != "done" {
				t.Errorf("text = %q, want done", got.Text)
			}
			if n := len(f.Calls()); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
		})
	}
}

func TestCompleteTimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		select {
		case <-r.Context().Done(): // the client gave up
		case <-time.After(10 * time.Second):
		}
	}
	msgs := []llm.Message{{Role: "user", Content: "hi"}}
	t.Run("ErrRequestTimeout", func(t *testing.T) {
		f := newChatFake(t, slow)
		_, err := f.Completer(openai.CompleterOptions{Timeout: 50 * time.Millisecond}).Complete(context.Background(), llm.Request{Messages: msgs})
		if code := tenure.ErrorCode(err); code != tenure.CodeTimeout {
			t.Errorf("error code = %s, want timeout (%v)", code, err)
		}
	})
	t.Run("ErrContextDeadline", func(t *testing.T) {
		f := newChatFake(t, slow)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := f.Completer(openai.CompleterOptions{}).Complete(ctx, llm.Request{Messages: msgs})
		if code := tenure.ErrorCode(err); code != tenure.CodeTimeout {
			t.Errorf("error code = %s, want timeout (%v)", code, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("ErrWithRetryAttemptTimeout", func(t *testing.T) {
		f := newChatFake(t, slow)
		comp := llm.WithRetry(f.Completer(openai.CompleterOptions{}), llm.RetryOptions{
			Retries: 1, Timeout: 50 * time.Millisecond,
			Sleep: func(ctx context.Context, d time.Duration) error { return nil },
		})
		_, err := comp.Complete(context.Background(), llm.Request{Messages: msgs})
		if code := tenure.ErrorCode(err); code != tenure.CodeTimeout {
			t.Errorf("error code = %s, want timeout (%v)", code, err)
		}
		if n := len(f.Calls()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
}

func TestCompleteUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close() // nothing listens there any more
	_, err := openai.NewCompleter(openai.CompleterOptions{BaseURL: base}).Complete(context.Background(),
		llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable {
		t.Errorf("error code = %s, want unavailable (%v)", code, err)
	}
}

func TestCompleteInvalidInput(t *testing.T) {
	f := newChatFake(t, nil)
	for _, c := range []struct {
		name  string
		opt   openai.CompleterOptions
		req   llm.Request
		field string
	}{
		{"ErrBadRole", openai.CompleterOptions{BaseURL: f.srv.URL + "/v1"},
			llm.Request{Messages: []llm.Message{{Role: "user", Content: "a"}, {Role: "tool", Content: "b"}}}, "messages[1].role"},
		{"ErrBadBaseURL", openai.CompleterOptions{BaseURL: "localhost:11434"}, llm.Request{}, "base_url"},
		{"ErrBadScheme", openai.CompleterOptions{BaseURL: "ftp://example.com/v1"}, llm.Request{}, "base_url"},
		{"ErrBadMaxTokensParam", openai.CompleterOptions{BaseURL: f.srv.URL + "/v1", MaxTokensParam: "max_output_tokens"}, llm.Request{}, "max_tokens_param"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openai.NewCompleter(c.opt).Complete(context.Background(), c.req)
			if code, field := tenure.ErrorCode(err), tenure.ErrorField(err); code != tenure.CodeInvalid || field != c.field {
				t.Errorf("error = %v (code %s, field %q), want invalid %s", err, code, field, c.field)
			}
		})
	}
	if n := len(f.Calls()); n != 0 {
		t.Errorf("%d requests, want none for invalid input", n)
	}
}

func TestCompleteConcurrent(t *testing.T) {
	f := newChatFake(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeChat(w, req.Messages[0].Content)
	})
	c := f.Completer(openai.CompleterOptions{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			want := fmt.Sprint(i)
			got, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: want}}})
			if err != nil || got.Text != want {
				t.Errorf("Complete(%q) = %q, %v", want, got.Text, err)
			}
		})
	}
	wg.Wait()
}

func ExampleNewCompleter() {
	// Ollama serves OpenAI-compatible chat completions under /v1 and needs
	// no key. NewCompleter does no I/O; WithRetry adds bounded retries and
	// a per-attempt timeout.
	c := openai.NewCompleter(openai.CompleterOptions{
		BaseURL: "http://localhost:11434/v1",
		Model:   "qwen2.5:7b-instruct",
	})
	var _ llm.Completer = llm.WithRetry(c, llm.RetryOptions{})
	fmt.Println(c.Model())
	// Output: qwen2.5:7b-instruct
}
