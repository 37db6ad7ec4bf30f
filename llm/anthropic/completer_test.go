package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
	"github.com/tenure-dev/tenure/llm/anthropic"
)

// messagesRequest is the body of POST /v1/messages as Anthropic documents
// it, limited to the fields a Completer may send.
type messagesRequest struct {
	Model       string         `json:"model"`
	MaxTokens   int            `json:"max_tokens"`
	System      []contentBlock `json:"system"`
	Messages    []message      `json:"messages"`
	Temperature *float64       `json:"temperature"`
}

type message struct {
	Role    string         `json:"role"`
	Content []contentBlock `json:"content"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// call is one request as the fake saw it.
type call struct {
	APIKey, Version, Auth string
	Body                  messagesRequest
}

// fake is an httptest server speaking the Messages API wire format. Its
// reply to the n-th request (0-based) is chosen by respond; nil respond
// answers every request with "hello".
type fake struct {
	t       *testing.T
	srv     *httptest.Server
	respond func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int)

	mu    sync.Mutex
	calls []call
}

func newFake(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int)) *fake {
	t.Helper()
	f := &fake{t: t, respond: respond}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		f.t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.URL.Path)
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
	var req messagesRequest
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("request body %s: %v", body, err)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad json")
		return
	}
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, call{
		APIKey:  r.Header.Get("X-Api-Key"),
		Version: r.Header.Get("Anthropic-Version"),
		Auth:    r.Header.Get("Authorization"),
		Body:    req,
	})
	f.mu.Unlock()
	if f.respond == nil {
		writeMessage(w, "hello")
		return
	}
	f.respond(w, r, req, n)
}

func (f *fake) Calls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func (f *fake) Completer(opt anthropic.CompleterOptions) *anthropic.Completer {
	opt.BaseURL = f.srv.URL
	return anthropic.NewCompleter(opt)
}

// writeMessage answers with a message of one text block, as the API does.
func writeMessage(w http.ResponseWriter, text string) {
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "msg_013Zva2CMHLNnXjNJJKqJ2EF", "type": "message", "role": "assistant",
		"model":         "claude-haiku-4-5-20251001",
		"content":       []any{map[string]any{"type": "text", "text": text}},
		"stop_reason":   "end_turn",
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": 25, "output_tokens": 12,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "service_tier": "standard",
		},
	})
}

// writeError answers with the API's error envelope.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy")
	writeJSON(w, status, map[string]any{
		"type": "error", "error": map[string]any{"type": typ, "message": msg},
		"request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func ptr[T any](v T) *T { return &v }

func text(s string) []contentBlock { return []contentBlock{{Type: "text", Text: s}} }

func TestCompleteRequest(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
			writeMessage(w, `[{"type_tag":"decision"}]`)
		})
		c := f.Completer(anthropic.CompleterOptions{APIKey: "sk-ant-test", Model: "claude-sonnet-4-5"})
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
		want := llm.Response{Text: `[{"type_tag":"decision"}]`, Model: "claude-haiku-4-5-20251001", InputTokens: 25, OutputTokens: 12}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		wantCall := call{
			APIKey:  "sk-ant-test",
			Version: "2023-06-01",
			Body: messagesRequest{
				Model:     "claude-sonnet-4-5",
				MaxTokens: 512,
				// The system prompt is a top-level field, not a message.
				System: text("You extract state."),
				Messages: []message{
					{Role: "user", Content: text("Let's use Redis")},
					{Role: "assistant", Content: text("OK")},
					{Role: "user", Content: text("Extract.")},
				},
				Temperature: ptr(0.0), // sent although zero
			},
		}
		if diff := cmp.Diff([]call{wantCall}, f.Calls()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("OKDefaults", func(t *testing.T) {
		f := newFake(t, nil)
		got, err := f.Completer(anthropic.CompleterOptions{}).Complete(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: "user", Content: "hi"}},
		})
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got.Text != "hello" {
			t.Errorf("text = %q, want hello", got.Text)
		}
		wantCall := call{
			Version: "2023-06-01",
			Body: messagesRequest{
				Model:     anthropic.DefaultModel,
				MaxTokens: anthropic.DefaultMaxTokens, // required by the API
				Messages:  []message{{Role: "user", Content: text("hi")}},
			},
		}
		if diff := cmp.Diff([]call{wantCall}, f.Calls()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("OKMaxTokensOption", func(t *testing.T) {
		f := newFake(t, nil)
		c := f.Completer(anthropic.CompleterOptions{MaxTokens: 300})
		if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}); err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got := f.Calls()[0].Body.MaxTokens; got != 300 {
			t.Errorf("max_tokens = %d, want 300", got)
		}
	})
	t.Run("OKTextBlocksJoinedThinkingSkipped", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
			writeJSON(w, http.StatusOK, map[string]any{
				"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{
					map[string]any{"type": "thinking", "thinking": "Let me draft [1]", "signature": "sig"},
					map[string]any{"type": "text", "text": "[{\"a\":"},
					map[string]any{"type": "text", "text": "1}]"},
				},
				"stop_reason": "end_turn", "stop_sequence": nil,
				"usage": map[string]any{"input_tokens": 1, "output_tokens": 2},
			})
		})
		got, err := f.Completer(anthropic.CompleterOptions{}).Complete(context.Background(),
			llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		if got.Text != `[{"a":1}]` {
			t.Errorf("text = %q, want %q", got.Text, `[{"a":1}]`)
		}
	})
}

func TestCompleteErrors(t *testing.T) {
	type respond = func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int)
	always := func(status int, typ, msg string) respond {
		return func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
			writeError(w, status, typ, msg)
		}
	}
	raw := func(contentType, body string) respond {
		return func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
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
		{"ErrUnauthenticated", always(401, "authentication_error", "invalid x-api-key"),
			tenure.CodeUnauthenticated, "rejected the API key"},
		{"ErrForbidden", always(403, "permission_error", "Your API key does not have permission"),
			tenure.CodeUnauthenticated, "status 403"},
		{"ErrBadRequest", always(400, "invalid_request_error", "max_tokens: 100000 > 64000, which is the maximum"),
			tenure.CodeInvalid, "max_tokens: 100000"},
		{"ErrModelNotFound", always(404, "not_found_error", "model: claude-nope"),
			tenure.CodeInvalid, "model: claude-nope"},
		{"ErrTooLarge", always(413, "request_too_large", "Request exceeds the maximum allowed number of bytes."),
			tenure.CodeTooLarge, "too large"},
		{"ErrRateLimited", always(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
			tenure.CodeUnavailable, "rate limited"},
		{"ErrServer", always(500, "api_error", "Internal server error"),
			tenure.CodeUnavailable, "status 500"},
		{"ErrOverloaded", always(529, "overloaded_error", "Overloaded"),
			tenure.CodeUnavailable, "status 529"},
		{"ErrServerHTML", func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		}, tenure.CodeUnavailable, "status 502"},
		{"ErrMalformedJSON", raw("application/json", `{"id":"msg_1","type":"message","content":[{"type":"text","text":"[{\"a\"`),
			tenure.CodeUnavailable, "malformed"},
		{"ErrNotJSON", raw("text/plain", "hello"),
			tenure.CodeUnavailable, "malformed"},
		{"ErrNoText", raw("application/json", `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"max_tokens","usage":{"input_tokens":1,"output_tokens":0}}`),
			tenure.CodeInvalid, "no text content"},
		{"ErrRefusal", raw("application/json", `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"I can't"}],"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":2}}`),
			tenure.CodeInvalid, "refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.respond)
			got, err := f.Completer(anthropic.CompleterOptions{APIKey: "sk-ant-secret"}).Complete(context.Background(),
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
			if strings.Contains(err.Error(), "sk-ant") {
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
		typ      string
		code     tenure.Code
		requests int
	}{
		{"OKAfter429", 1, 429, "rate_limit_error", "", 2},
		{"OKAfterTwo529s", 2, 529, "overloaded_error", "", 3},
		{"Err500Exhausted", 10, 500, "api_error", tenure.CodeUnavailable, 3},
		{"Err401NotRetried", 10, 401, "authentication_error", tenure.CodeUnauthenticated, 1},
		{"Err400NotRetried", 10, 400, "invalid_request_error", tenure.CodeInvalid, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
				if n < c.fail {
					writeError(w, c.status, c.typ, "try again")
					return
				}
				writeMessage(w, "done")
			})
			comp := llm.WithRetry(f.Completer(anthropic.CompleterOptions{}), llm.RetryOptions{Sleep: noSleep})
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
	slow := func(w http.ResponseWriter, r *http.Request, req messagesRequest, n int) {
		select {
		case <-r.Context().Done(): // the client gave up
		case <-time.After(10 * time.Second):
		}
	}
	msgs := []llm.Message{{Role: "user", Content: "hi"}}
	t.Run("ErrRequestTimeout", func(t *testing.T) {
		f := newFake(t, slow)
		_, err := f.Completer(anthropic.CompleterOptions{Timeout: 50 * time.Millisecond}).Complete(context.Background(), llm.Request{Messages: msgs})
		if code := tenure.ErrorCode(err); code != tenure.CodeTimeout {
			t.Errorf("error code = %s, want timeout (%v)", code, err)
		}
	})
	t.Run("ErrContextDeadline", func(t *testing.T) {
		f := newFake(t, slow)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := f.Completer(anthropic.CompleterOptions{}).Complete(ctx, llm.Request{Messages: msgs})
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
		_, err := f.Completer(anthropic.CompleterOptions{}).Complete(ctx, llm.Request{Messages: msgs})
		if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable || !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v (code %s), want unavailable wrapping context.Canceled", err, code)
		}
	})
}

func TestCompleteUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	_, err := anthropic.NewCompleter(anthropic.CompleterOptions{BaseURL: base}).Complete(context.Background(),
		llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable {
		t.Errorf("error code = %s, want unavailable (%v)", code, err)
	}
}

func TestCompleteInvalidInput(t *testing.T) {
	f := newFake(t, nil)
	for _, c := range []struct {
		name  string
		opt   anthropic.CompleterOptions
		req   llm.Request
		field string
	}{
		{"ErrBadRole", anthropic.CompleterOptions{BaseURL: f.srv.URL},
			llm.Request{Messages: []llm.Message{{Role: "system", Content: "a"}}}, "messages[0].role"},
		{"ErrBadBaseURL", anthropic.CompleterOptions{BaseURL: "api.anthropic.com"}, llm.Request{}, "base_url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := anthropic.NewCompleter(c.opt).Complete(context.Background(), c.req)
			if code, field := tenure.ErrorCode(err), tenure.ErrorField(err); code != tenure.CodeInvalid || field != c.field {
				t.Errorf("error = %v (code %s, field %q), want invalid %s", err, code, field, c.field)
			}
		})
	}
	if n := len(f.Calls()); n != 0 {
		t.Errorf("%d requests, want none for invalid input", n)
	}
}

func ExampleNewCompleter() {
	// NewCompleter does no I/O; WithRetry adds bounded retries and a
	// per-attempt timeout.
	c := anthropic.NewCompleter(anthropic.CompleterOptions{APIKey: "sk-ant-..."})
	var _ llm.Completer = llm.WithRetry(c, llm.RetryOptions{})
	fmt.Println(c.Model())
	// Output: claude-haiku-4-5
}
