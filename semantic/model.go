package semantic

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

// Embedder turns texts into vectors, one per text in order;
// *openai.Embedder implements it. Errors carry tenure codes: CodeInvalid
// or CodeTooLarge when the endpoint refuses a text, CodeUnavailable,
// CodeTimeout or CodeUnauthenticated when it cannot be used.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Defaults of Options.
const (
	DefaultBatchSize    = 64
	DefaultMaxTextBytes = 8 << 10
	DefaultTimeout      = 10 * time.Second
	DefaultCooldown     = 30 * time.Second
)

// Options configures a Model. Only Name is required, unless the embedder
// names its space itself.
type Options struct {
	// Name identifies the embedding space and is stored with every vector
	// (default: the embedder's Name(), "openai:<model>"). Vectors of
	// different names are never compared.
	Name string
	// Tenant says whether a tenant's text may be sent to the endpoint
	// (nil: every tenant's). A tenant it refuses has nothing embedded and
	// nothing sent: neither its messages nor its queries.
	Tenant func(tenant string) bool
	// Message says whether a message's text may be sent (nil: every
	// message of the tenants Tenant allows). A message it refuses keeps
	// no vector and is ranked lexically only.
	Message func(m *tenure.Message) bool
	// DocumentPrefix and QueryPrefix are prepended to the text of every
	// message (Index) and of every query (EmbedQuery) sent: some models
	// are trained with them (nomic-embed-text: "search_document: " and
	// "search_query: "). The document prefix is part of the space's name,
	// so that vectors embedded with and without it are never compared.
	DocumentPrefix, QueryPrefix string
	// BatchSize is how many texts one Embed call carries; each batch's
	// vectors are stored as it comes back (default 64).
	BatchSize int
	// MaxTextBytes cuts longer texts before they are sent, at a rune
	// boundary (default 8 KiB, about 2,000 tokens: within the context of
	// common embedding models).
	MaxTextBytes int
	// Timeout bounds EmbedQuery and Embed, retries included (default
	// 10s): a compilation waits no longer for its vectors.
	Timeout time.Duration
	// Cooldown is how long after the endpoint failed EmbedQuery and Index
	// fail at once without sending anything (default 30s), so that
	// compilations and digests during an outage do not each wait for it.
	Cooldown time.Duration
	// Cache is how many vectors of EmbedQuery and Embed are kept by text
	// (default 16,384).
	Cache int
	// Now is the clock of the cooldown (default time.Now).
	Now func() time.Time
}

// Model is an embedding endpoint under a privacy policy. It is safe for
// concurrent use.
type Model struct {
	e     Embedder
	opt   Options
	cache *lru.Cache[string, []float32]
	// failedAt is when the endpoint last failed (Unix nanoseconds; 0:
	// never).
	failedAt atomic.Int64
}

// named is an embedder that names its space.
type named interface{ Name() string }

// New returns a Model over e. It does no I/O. Errors: CodeInvalid when e
// is the hashed n-gram embedder (it measures shared letters, not meaning)
// or when no name is given and e has none.
func New(e Embedder, opt Options) (*Model, error) {
	if _, lexical := e.(*retrieve.HashEmbedder); lexical {
		return nil, tenure.Errorf(tenure.CodeInvalid, "embedder", "hashed n-grams measure shared letters, not meaning: they cannot rank history")
	}
	if opt.Name == "" {
		if n, ok := e.(named); ok {
			opt.Name = n.Name()
		}
	}
	if opt.Name == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "name", "required: the name of the embedding space")
	}
	if strings.HasPrefix(opt.Name, "hash-") {
		return nil, tenure.Errorf(tenure.CodeInvalid, "name", "%q is a hashed n-gram space, not a semantic one", opt.Name)
	}
	if p := strings.TrimSpace(opt.DocumentPrefix); p != "" {
		opt.Name += " (" + p + ")"
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.MaxTextBytes <= 0 {
		opt.MaxTextBytes = DefaultMaxTextBytes
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Cooldown <= 0 {
		opt.Cooldown = DefaultCooldown
	}
	if opt.Cache <= 0 {
		opt.Cache = 1 << 14
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	cache, _ := lru.New[string, []float32](opt.Cache)
	return &Model{e: e, opt: opt, cache: cache}, nil
}

// Name returns the name of the model's embedding space.
func (m *Model) Name() string { return m.opt.Name }

// SendsTenant reports whether a tenant's text may be sent.
func (m *Model) SendsTenant(tenant string) bool { return m.opt.Tenant == nil || m.opt.Tenant(tenant) }

// sends reports whether a message's text may be sent.
func (m *Model) sends(msg *tenure.Message) bool {
	return m.SendsTenant(msg.TenantID) && (m.opt.Message == nil || m.opt.Message(msg))
}

// ErrKeptLocal is the error of EmbedQuery for a tenant whose text is not
// sent: nothing was.
var ErrKeptLocal = tenure.Errorf(tenure.CodeForbidden, "tenant_id", "the tenant's text is not sent for embedding")

// EmbedQuery returns the unit vector of a query of the tenant, after
// QueryPrefix, and the name of its space (see Embed). Errors: ErrKeptLocal (CodeForbidden)
// when the tenant's text is not sent; those of Embed.
func (m *Model) EmbedQuery(ctx context.Context, tenant, text string) ([]float32, string, error) {
	if !m.SendsTenant(tenant) {
		return nil, m.opt.Name, ErrKeptLocal
	}
	vs, err := m.Embed(ctx, []string{m.opt.QueryPrefix + text})
	if err != nil {
		return nil, m.opt.Name, fmt.Errorf("embed query: %w", err)
	}
	return vs[0], m.opt.Name, nil
}

// Embed returns the unit vectors of texts, from the cache or the endpoint
// in one call, within Timeout; it implements compile.Embedder and
// engine.Embedder, whose callers apply the tenant policy. Errors:
// CodeUnavailable during the cooldown after a failure, without sending
// anything; otherwise the endpoint's.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, t := range texts {
		t = truncate(t, m.opt.MaxTextBytes)
		if v, ok := m.cache.Get(t); ok {
			out[i] = v
			continue
		}
		missing, at = append(missing, t), append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	if err := m.cooling(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.opt.Timeout)
	defer cancel()
	vs, err := m.embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	for j, v := range vs {
		out[at[j]] = v
		m.cache.Add(missing[j], v)
	}
	return out, nil
}

// cooling returns CodeUnavailable during the cooldown after the endpoint
// failed.
func (m *Model) cooling() error {
	at := m.failedAt.Load()
	if at == 0 {
		return nil
	}
	if since := m.opt.Now().Sub(time.Unix(0, at)); since < m.opt.Cooldown {
		return tenure.Errorf(tenure.CodeUnavailable, "", "the embedding endpoint failed %s ago; not tried again for %s",
			since.Round(time.Second), (m.opt.Cooldown - since).Round(time.Second))
	}
	return nil
}

// embed calls the endpoint and checks and normalizes what it returns. A
// failure of the endpoint (not a refused text) starts the cooldown.
func (m *Model) embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := m.e.Embed(ctx, texts)
	if err == nil && len(vs) != len(texts) {
		err = tenure.Errorf(tenure.CodeUnavailable, "", "the embedder returned %d vectors for %d texts", len(vs), len(texts))
	}
	for i := 0; err == nil && i < len(vs); i++ {
		if len(vs[i]) == 0 || len(vs[i]) != len(vs[0]) {
			err = tenure.Errorf(tenure.CodeUnavailable, "", "the embedder returned vectors of %d and %d dimensions", len(vs[0]), len(vs[i]))
		}
	}
	if err != nil {
		switch tenure.ErrorCode(err) {
		case tenure.CodeInvalid, tenure.CodeTooLarge:
		default:
			m.failedAt.Store(m.opt.Now().UnixNano())
		}
		return nil, err
	}
	m.failedAt.Store(0)
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = Normalize(append([]float32(nil), v...))
	}
	return out, nil
}
