package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tenure-dev/tenure"
)

// Defaults for EmbedderOptions.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultEmbeddingModel = "text-embedding-3-small"
	DefaultBatchSize      = 96
	DefaultTimeout        = 30 * time.Second
	DefaultMaxRetries     = 2
)

// EmbedderOptions configures an Embedder. The zero value talks to OpenAI
// with text-embedding-3-small (and needs an APIKey to succeed).
type EmbedderOptions struct {
	// BaseURL is the API root, including the version path:
	// "https://api.openai.com/v1" (default), "http://localhost:11434/v1"
	// (Ollama), "http://localhost:8000/v1" (vLLM).
	BaseURL string
	// APIKey is sent as a bearer token. Empty sends no Authorization header,
	// which local servers accept.
	APIKey string
	// Model is the embedding model (default text-embedding-3-small).
	Model string
	// Dimensions asks the model for shorter vectors (text-embedding-3-*
	// support it). Zero leaves it to the model and omits the parameter,
	// which servers that do not know it require.
	Dimensions int
	// BatchSize is the most texts sent in one request (default 96).
	BatchSize int
	// Timeout bounds each HTTP attempt, not the whole Embed call; the
	// caller's context bounds that (default 30s). An attempt that times out
	// is not retried: a server too slow once is likely too slow again.
	Timeout time.Duration
	// MaxRetries is how many times a request is retried after a 408, 409,
	// 429, 5xx or connection error, with exponential backoff (0.5s doubling,
	// capped at 8s, jittered) or the server's Retry-After (up to 2 minutes).
	// Zero means DefaultMaxRetries; a negative value disables retries.
	MaxRetries int
	// HTTPClient sends the requests (default http.DefaultClient).
	HTTPClient *http.Client
}

// Embedder turns texts into vectors with an OpenAI-compatible /embeddings
// endpoint. It is safe for concurrent use.
type Embedder struct {
	model     string
	dims      int
	batchSize int
	svc       sdk.EmbeddingService
	cfgErr    error        // a bad BaseURL, reported by Embed
	lastDims  atomic.Int64 // dimension of the last vectors received
}

// NewEmbedder returns an Embedder with opt's zero fields set to their
// defaults. It does no I/O; a malformed BaseURL is reported by Embed.
func NewEmbedder(opt EmbedderOptions) *Embedder {
	if opt.BaseURL == "" {
		opt.BaseURL = DefaultBaseURL
	}
	if opt.Model == "" {
		opt.Model = DefaultEmbeddingModel
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	switch {
	case opt.MaxRetries == 0:
		opt.MaxRetries = DefaultMaxRetries
	case opt.MaxRetries < 0:
		opt.MaxRetries = 0
	}
	client := opt.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	e := &Embedder{model: opt.Model, dims: max(opt.Dimensions, 0), batchSize: opt.BatchSize}
	if u, err := url.Parse(opt.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		e.cfgErr = tenure.Errorf(tenure.CodeInvalid, "base_url", "%q is not an http(s) URL", opt.BaseURL)
	}
	// NewEmbeddingService rather than sdk.NewClient: the client constructor
	// reads OPENAI_API_KEY, OPENAI_BASE_URL and more from the environment,
	// which would silently override an empty option.
	e.svc = sdk.NewEmbeddingService(
		option.WithBaseURL(opt.BaseURL),
		option.WithAPIKey(opt.APIKey),
		option.WithHTTPClient(client),
		option.WithRequestTimeout(opt.Timeout),
		option.WithMaxRetries(opt.MaxRetries),
	)
	return e
}

// Name identifies the embedding space as "openai:<model>". Vectors from
// embedders with different names must not be compared.
func (e *Embedder) Name() string { return "openai:" + e.model }

// Dimensions returns the configured dimension or, when none was set, the
// length of the last vectors received; 0 before the first successful Embed.
func (e *Embedder) Dimensions() int {
	if e.dims > 0 {
		return e.dims
	}
	return int(e.lastDims.Load())
}

// Embed returns one vector per text, in the order of texts, sending at most
// BatchSize texts per request. No texts means no request and no vectors.
//
// Errors: CodeUnauthenticated when the endpoint rejects the key (401/403);
// CodeUnavailable when it is unreachable, rate limited or failing after
// retries, or answers with a malformed response (bad JSON, missing,
// duplicate or out-of-range indexes, wrong count or dimension);
// CodeTimeout when an attempt or ctx runs out of time; CodeInvalid for a
// bad BaseURL or a request the endpoint rejects (400/422, e.g. an empty or
// over-long text); CodeTooLarge for 413. All of a call's work is lost on
// error: no partial results.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	if e.cfgErr != nil {
		return nil, fmt.Errorf("embed: %w", e.cfgErr)
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.batchSize {
		end := min(start+e.batchSize, len(texts))
		vs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embed texts %d-%d of %d: %w", start, end-1, len(texts), err)
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (e *Embedder) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	params := sdk.EmbeddingNewParams{
		Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
		Model: e.model,
		// base64 carries the server's float32s exactly in about a quarter
		// of the bytes of decimal floats, and the SDK decodes a 96x1536
		// batch of it with ~2k allocations instead of ~300k (see
		// BenchmarkEmbed). OpenAI's Python SDK asks for it by default, so
		// compatible servers accept it; one that ignores it and answers
		// with float arrays is decoded just the same.
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatBase64,
	}
	if e.dims > 0 {
		params.Dimensions = sdk.Int(int64(e.dims))
	}
	var httpResp *http.Response
	resp, err := e.svc.New(ctx, params, option.WithResponseInto(&httpResp))
	if err != nil {
		return nil, classify(err, httpResp)
	}
	return e.collect(resp, len(batch))
}

// collect puts the response's vectors in input order. The API promises an
// index per item; order in the array is not relied on, and anything that
// would misattribute a vector to the wrong text is rejected.
func (e *Embedder) collect(resp *sdk.CreateEmbeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, malformed("%d embeddings for %d inputs", len(resp.Data), n)
	}
	out := make([][]float32, n)
	dim := 0
	for pos, item := range resp.Data {
		if !item.JSON.Index.Valid() {
			return nil, malformed("item %d has no index", pos)
		}
		i := item.Index
		if i < 0 || i >= int64(n) {
			return nil, malformed("index %d out of range [0, %d)", i, n)
		}
		if out[i] != nil {
			return nil, malformed("duplicate index %d", i)
		}
		if !item.JSON.Embedding.Valid() || len(item.Embedding) == 0 {
			return nil, malformed("embedding for index %d is missing or not a vector", i)
		}
		if dim == 0 {
			dim = len(item.Embedding)
		} else if len(item.Embedding) != dim {
			return nil, malformed("embeddings of %d and %d dimensions in one response", dim, len(item.Embedding))
		}
		v := make([]float32, dim)
		for j, x := range item.Embedding {
			v[j] = float32(x)
		}
		out[i] = v
	}
	if e.dims > 0 && dim != e.dims {
		// Servers that do not support the dimensions parameter ignore it;
		// storing their full-length vectors would corrupt the index.
		return nil, malformed("%d-dimensional embeddings, configured %d", dim, e.dims)
	}
	e.lastDims.Store(int64(dim))
	return out, nil
}

func malformed(format string, args ...any) error {
	return tenure.Errorf(tenure.CodeUnavailable, "", "malformed response: "+format, args...)
}

// classify maps an SDK error to Tenure's codes. resp is the last HTTP
// response, if any arrived.
func classify(err error, resp *http.Response) error {
	var apiErr *sdk.Error
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "embedding request timed out", Err: err}
	case errors.Is(err, context.Canceled):
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
	case errors.As(err, &apiErr):
		return statusError(apiErr.StatusCode, apiErr.Message, err)
	case resp != nil && resp.StatusCode >= 400:
		// An error status whose body the SDK could not parse (a proxy's
		// HTML page, say).
		return statusError(resp.StatusCode, "", err)
	case resp != nil:
		// A success status whose body could not be decoded.
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "malformed response", Err: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "embedding request timed out", Err: err}
	default:
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "embedding endpoint unreachable", Err: err}
	}
}

// statusError maps an HTTP error status. apiMessage, the server's own
// explanation, is kept for request errors where it says what to fix, and
// dropped for auth errors, whose messages can echo part of the key.
func statusError(status int, apiMessage string, err error) error {
	const maxMessage = 300
	if len(apiMessage) > maxMessage {
		apiMessage = apiMessage[:maxMessage] + "…"
	}
	withAPI := func(msg string) string {
		if apiMessage == "" {
			return msg
		}
		return msg + ": " + apiMessage
	}
	code, msg := tenure.CodeUnavailable, fmt.Sprintf("embedding endpoint failed with status %d", status)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		code, msg = tenure.CodeUnauthenticated, fmt.Sprintf("embedding endpoint rejected the API key (status %d)", status)
	case status == http.StatusTooManyRequests:
		msg = "rate limited by embedding endpoint (status 429) after all retries"
	case status == http.StatusRequestTimeout:
		code, msg = tenure.CodeTimeout, "embedding endpoint timed out (status 408)"
	case status == http.StatusRequestEntityTooLarge:
		code, msg = tenure.CodeTooLarge, withAPI("embedding request too large (status 413)")
	case status == http.StatusNotFound:
		msg = withAPI("embedding endpoint or model not found (status 404); check the base URL and model")
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		code, msg = tenure.CodeInvalid, withAPI(fmt.Sprintf("embedding request rejected (status %d)", status))
	case status >= 500:
		msg = withAPI(fmt.Sprintf("embedding endpoint server error (status %d) after all retries", status))
	}
	return &tenure.Error{Code: code, Message: msg, Err: err}
}
