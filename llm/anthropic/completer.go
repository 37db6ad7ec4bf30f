package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

// Defaults for CompleterOptions.
const (
	DefaultBaseURL   = "https://api.anthropic.com"
	DefaultModel     = "claude-haiku-4-5"
	DefaultMaxTokens = 1024
	DefaultTimeout   = 30 * time.Second
)

// CompleterOptions configures a Completer. The zero value talks to
// Anthropic with claude-haiku-4-5 (and needs an APIKey to succeed).
type CompleterOptions struct {
	// BaseURL is the API root, without the version path (the Messages API
	// is at BaseURL + "/v1/messages"; default https://api.anthropic.com).
	BaseURL string
	// APIKey is sent in the x-api-key header. Empty sends no key, which
	// only a proxy that adds its own accepts.
	APIKey string
	// Model is the model to ask (default claude-haiku-4-5).
	Model string
	// MaxTokens caps an answer when the request sets no cap (default
	// 1024): the Messages API requires one.
	MaxTokens int
	// Timeout bounds each HTTP request (default 30s); the caller's context
	// may end it sooner.
	Timeout time.Duration
	// HTTPClient sends the requests (default http.DefaultClient).
	HTTPClient *http.Client
}

// Completer answers chat requests with Anthropic's Messages API. It does
// not retry: wrap it with llm.WithRetry. It is safe for concurrent use.
type Completer struct {
	model     string
	maxTokens int
	svc       sdk.MessageService
	cfgErr    error // a bad BaseURL, reported by Complete
}

var _ llm.Completer = (*Completer)(nil)

// NewCompleter returns a Completer with opt's zero fields set to their
// defaults. It does no I/O; a malformed BaseURL is reported by Complete.
func NewCompleter(opt CompleterOptions) *Completer {
	if opt.BaseURL == "" {
		opt.BaseURL = DefaultBaseURL
	}
	if opt.Model == "" {
		opt.Model = DefaultModel
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = DefaultMaxTokens
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	client := opt.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	c := &Completer{model: opt.Model, maxTokens: opt.MaxTokens}
	if u, err := url.Parse(opt.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.cfgErr = tenure.Errorf(tenure.CodeInvalid, "base_url", "%q is not an http(s) URL", opt.BaseURL)
	}
	// NewMessageService rather than sdk.NewClient, which reads
	// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and more from the environment.
	// The SDK's own retries are off: llm.WithRetry retries, and two layers
	// of retries would multiply.
	opts := []option.RequestOption{
		option.WithBaseURL(opt.BaseURL),
		option.WithHTTPClient(client),
		option.WithRequestTimeout(opt.Timeout),
		option.WithMaxRetries(0),
	}
	if opt.APIKey != "" {
		opts = append(opts, option.WithAPIKey(opt.APIKey))
	}
	c.svc = sdk.NewMessageService(opts...)
	return c
}

// Model returns the model the Completer asks for.
func (c *Completer) Model() string { return c.model }

// Complete sends r as one Messages API request: r.System in the top-level
// system field (the API has no system role), r.Messages as text content
// blocks, r.MaxTokens or the default cap, and the temperature only when r
// sets one. The answer is the concatenated text of the response's text
// blocks; other blocks (thinking) are skipped.
//
// Errors: CodeInvalid for a bad BaseURL or message role, a request the
// API rejects (400, 404 for an unknown model or path, 422), an answer
// without text or one the model refused; CodeUnauthenticated for 401 and
// 403; CodeUnavailable when the API is unreachable, rate limited (429),
// failing or overloaded (5xx, 529) or answers with a malformed body;
// CodeTimeout when the request or ctx runs out of time (or 408);
// CodeTooLarge for 413.
func (c *Completer) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	if c.cfgErr != nil {
		return llm.Response{}, fmt.Errorf("complete: %w", c.cfgErr)
	}
	params, err := c.params(r)
	if err != nil {
		return llm.Response{}, fmt.Errorf("complete: %w", err)
	}
	var httpResp *http.Response
	msg, err := c.svc.New(ctx, params, option.WithResponseInto(&httpResp))
	if err != nil {
		return llm.Response{}, fmt.Errorf("complete: %w", messageError(err, httpResp))
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	switch {
	case msg.StopReason == sdk.StopReasonRefusal:
		return llm.Response{}, fmt.Errorf("complete: %w",
			tenure.Errorf(tenure.CodeInvalid, "", "model refused to answer (stop_reason refusal)"))
	case text.Len() == 0:
		return llm.Response{}, fmt.Errorf("complete: %w",
			tenure.Errorf(tenure.CodeInvalid, "", "message has no text content (stop_reason %q)", msg.StopReason))
	}
	return llm.Response{
		Text:         text.String(),
		Model:        string(msg.Model),
		InputTokens:  int(msg.Usage.InputTokens),
		OutputTokens: int(msg.Usage.OutputTokens),
	}, nil
}

// params builds the SDK request for r.
func (c *Completer) params(r llm.Request) (sdk.MessageNewParams, error) {
	msgs := make([]sdk.MessageParam, 0, len(r.Messages))
	for i, m := range r.Messages {
		switch m.Role {
		case "user":
			msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock(m.Content)))
		case "assistant":
			msgs = append(msgs, sdk.NewAssistantMessage(sdk.NewTextBlock(m.Content)))
		default:
			return sdk.MessageNewParams{}, tenure.Errorf(tenure.CodeInvalid,
				fmt.Sprintf("messages[%d].role", i), "%q is neither user nor assistant", m.Role)
		}
	}
	maxTokens := r.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.maxTokens
	}
	p := sdk.MessageNewParams{
		Model:     sdk.Model(c.model),
		MaxTokens: int64(maxTokens),
		Messages:  msgs,
	}
	if r.System != "" {
		p.System = []sdk.TextBlockParam{{Text: r.System}}
	}
	if r.Temperature != nil {
		p.Temperature = sdk.Float(*r.Temperature)
	}
	return p, nil
}

// messageError maps an SDK error to Tenure's codes. resp is the last HTTP
// response, if any arrived.
func messageError(err error, resp *http.Response) error {
	var apiErr *sdk.Error
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "anthropic message request timed out", Err: err}
	case errors.Is(err, context.Canceled):
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "anthropic message request canceled", Err: err}
	case errors.As(err, &apiErr):
		return statusError(apiErr.StatusCode, apiErr.RawJSON(), apiErr.RequestID)
	case resp != nil && resp.StatusCode >= 400:
		// An error status whose body the SDK could not parse.
		return statusError(resp.StatusCode, "", resp.Header.Get("request-id"))
	case resp != nil:
		// A success status whose body could not be decoded.
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "malformed anthropic message response", Err: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "anthropic message request timed out", Err: err}
	default:
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "anthropic API unreachable", Err: err}
	}
}

// statusError maps an HTTP error status. body is the error response
// ({"type":"error","error":{"type":...,"message":...}}); its message is
// kept for request errors, where it says what to fix, and dropped for auth
// errors. The SDK error is not wrapped: its text quotes the whole body.
func statusError(status int, body, requestID string) error {
	var envelope struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &envelope) // a body that is not the envelope leaves it empty
	apiType := envelope.Error.Type
	detail := fmt.Sprintf("status %d", status)
	if apiType != "" {
		detail += " " + apiType
	}
	if requestID != "" {
		detail += ", request id " + requestID
	}
	return llm.StatusError(status, "anthropic API", "anthropic message request", envelope.Error.Message, errors.New(detail))
}
