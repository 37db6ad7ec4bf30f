package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

// DefaultChatModel is the model a Completer asks for when none is set.
const DefaultChatModel = "gpt-4o-mini"

// Values of CompleterOptions.MaxTokensParam.
const (
	MaxTokensParam           = "max_tokens"
	MaxCompletionTokensParam = "max_completion_tokens"
)

// CompleterOptions configures a Completer. The zero value talks to OpenAI
// with gpt-4o-mini (and needs an APIKey to succeed).
type CompleterOptions struct {
	// BaseURL is the API root, including the version path:
	// "https://api.openai.com/v1" (default), "http://localhost:11434/v1"
	// (Ollama), "http://localhost:8000/v1" (vLLM), "http://localhost:8080/v1"
	// (llama.cpp's server).
	BaseURL string
	// APIKey is sent as a bearer token. Empty sends no Authorization header,
	// which local servers accept.
	APIKey string
	// Model is the chat model (default gpt-4o-mini).
	Model string
	// Timeout bounds each HTTP request (default 30s); the caller's context
	// may end it sooner.
	Timeout time.Duration
	// HTTPClient sends the requests (default http.DefaultClient).
	HTTPClient *http.Client
	// MaxTokensParam names the request field that carries
	// llm.Request.MaxTokens: "max_completion_tokens", which OpenAI's own
	// API wants (its reasoning models reject the older field), or
	// "max_tokens", which every OpenAI-compatible server understands.
	// Empty chooses max_completion_tokens for api.openai.com and max_tokens
	// for any other host.
	MaxTokensParam string
}

// Completer answers chat requests with an OpenAI-compatible
// /chat/completions endpoint. It does not retry: wrap it with
// llm.WithRetry. It is safe for concurrent use.
type Completer struct {
	model          string
	maxTokensParam string
	svc            sdk.ChatCompletionService
	cfgErr         error // a bad BaseURL or MaxTokensParam, reported by Complete
}

var _ llm.Completer = (*Completer)(nil)

// NewCompleter returns a Completer with opt's zero fields set to their
// defaults. It does no I/O; a malformed BaseURL is reported by Complete.
func NewCompleter(opt CompleterOptions) *Completer {
	if opt.BaseURL == "" {
		opt.BaseURL = DefaultBaseURL
	}
	if opt.Model == "" {
		opt.Model = DefaultChatModel
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	client := opt.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	c := &Completer{model: opt.Model, maxTokensParam: opt.MaxTokensParam}
	u, err := url.Parse(opt.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.cfgErr = tenure.Errorf(tenure.CodeInvalid, "base_url", "%q is not an http(s) URL", opt.BaseURL)
	}
	switch c.maxTokensParam {
	case MaxTokensParam, MaxCompletionTokensParam:
	case "":
		c.maxTokensParam = MaxTokensParam
		if u != nil && u.Hostname() == "api.openai.com" {
			c.maxTokensParam = MaxCompletionTokensParam
		}
	default:
		c.cfgErr = tenure.Errorf(tenure.CodeInvalid, "max_tokens_param", "%q is neither %q nor %q",
			opt.MaxTokensParam, MaxTokensParam, MaxCompletionTokensParam)
	}
	// NewChatCompletionService rather than sdk.NewClient, which reads
	// OPENAI_API_KEY, OPENAI_BASE_URL and more from the environment. The
	// SDK's own retries are off: llm.WithRetry retries, and two layers of
	// retries would multiply.
	c.svc = sdk.NewChatCompletionService(
		option.WithBaseURL(opt.BaseURL),
		option.WithAPIKey(opt.APIKey),
		option.WithHTTPClient(client),
		option.WithRequestTimeout(opt.Timeout),
		option.WithMaxRetries(0),
	)
	return c
}

// Model returns the model the Completer asks for.
func (c *Completer) Model() string { return c.model }

// Complete sends r as one chat completion request: r.System as a leading
// system message, then r.Messages, with temperature and the token cap
// only when r sets them. The answer is the first choice's content.
//
// Errors: CodeInvalid for a bad option or message role, a request the
// endpoint rejects (400, 404 for an unknown model or path, 422), an answer
// without choices or one the model refused; CodeUnauthenticated for 401
// and 403; CodeUnavailable when the endpoint is unreachable, rate limited
// (429), failing (5xx) or answers with a malformed body; CodeTimeout when
// the request or ctx runs out of time (or 408); CodeTooLarge for 413.
func (c *Completer) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	if c.cfgErr != nil {
		return llm.Response{}, fmt.Errorf("complete: %w", c.cfgErr)
	}
	params, err := c.params(r)
	if err != nil {
		return llm.Response{}, fmt.Errorf("complete: %w", err)
	}
	var httpResp *http.Response
	resp, err := c.svc.New(ctx, params, option.WithResponseInto(&httpResp))
	if err != nil {
		return llm.Response{}, fmt.Errorf("complete: %w", completionError(err, httpResp))
	}
	if len(resp.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("complete: %w",
			tenure.Errorf(tenure.CodeInvalid, "", "chat completion has no choices"))
	}
	msg := resp.Choices[0].Message
	if msg.Content == "" && msg.Refusal != "" {
		return llm.Response{}, fmt.Errorf("complete: %w",
			tenure.Errorf(tenure.CodeInvalid, "", "model refused: %s", llm.Clip(msg.Refusal)))
	}
	return llm.Response{
		Text:         msg.Content,
		Model:        resp.Model,
		InputTokens:  int(resp.Usage.PromptTokens),
		OutputTokens: int(resp.Usage.CompletionTokens),
	}, nil
}

// params builds the SDK request for r.
func (c *Completer) params(r llm.Request) (sdk.ChatCompletionNewParams, error) {
	msgs := make([]sdk.ChatCompletionMessageParamUnion, 0, len(r.Messages)+1)
	if r.System != "" {
		msgs = append(msgs, sdk.SystemMessage(r.System))
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "user":
			msgs = append(msgs, sdk.UserMessage(m.Content))
		case "assistant":
			msgs = append(msgs, sdk.AssistantMessage(m.Content))
		default:
			return sdk.ChatCompletionNewParams{}, tenure.Errorf(tenure.CodeInvalid,
				fmt.Sprintf("messages[%d].role", i), "%q is neither user nor assistant", m.Role)
		}
	}
	p := sdk.ChatCompletionNewParams{Model: c.model, Messages: msgs}
	if r.Temperature != nil {
		p.Temperature = sdk.Float(*r.Temperature)
	}
	if r.MaxTokens > 0 {
		if c.maxTokensParam == MaxCompletionTokensParam {
			p.MaxCompletionTokens = sdk.Int(int64(r.MaxTokens))
		} else {
			p.MaxTokens = sdk.Int(int64(r.MaxTokens))
		}
	}
	return p, nil
}

// Names of the API and its requests in error messages.
const chatAPI, chatRequest = "chat completion endpoint", "chat completion request"

// completionError maps an SDK error to Tenure's codes. resp is the last
// HTTP response, if any arrived.
func completionError(err error, resp *http.Response) error {
	var apiErr *sdk.Error
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "chat completion timed out", Err: err}
	case errors.Is(err, context.Canceled):
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "chat completion canceled", Err: err}
	case errors.As(err, &apiErr):
		return llm.StatusError(apiErr.StatusCode, chatAPI, chatRequest, apiErr.Message, err)
	case resp != nil && resp.StatusCode >= 400:
		// An error status whose body the SDK could not parse (a proxy's
		// HTML page, say).
		return llm.StatusError(resp.StatusCode, chatAPI, chatRequest, "", err)
	case resp != nil:
		// A success status whose body could not be decoded.
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "malformed chat completion response", Err: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "chat completion timed out", Err: err}
	default:
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "chat completion endpoint unreachable", Err: err}
	}
}
