package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/tokenizer"
)

// Source supplies candidate objects. Implementations must never return
// objects of another tenant; they may leave out objects outside the scope
// or the clearance (the compiler checks every gate again either way) and
// may prefilter lexically when the store is large.
type Source interface {
	Candidates(ctx context.Context, q tenure.CandidateQuery) ([]tenure.Object, error)
}

// Embedder turns texts into vectors for semantic similarity.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// MessageEmbedder embeds a query in the space of the stored message
// vectors, so that past messages are found by meaning as well as by their
// words; *semantic.Model implements it.
type MessageEmbedder interface {
	// EmbedQuery returns the query's unit vector and the name of the
	// space it is in. Errors: CodeForbidden when the tenant's text is not
	// sent for embedding (nothing was sent); any other when the endpoint
	// could not be used.
	EmbedQuery(ctx context.Context, tenant, text string) ([]float32, string, error)
}

// Counter counts tokens the way the target model does.
type Counter interface {
	Count(s string) int
	Name() string
}

// Options configures a Compiler. The zero value works: lexical ranking
// only, default allocations, tiktoken counters.
type Options struct {
	// Embedder adds vector similarity to the ranking of memory and
	// documents (optional). When it fails they are ranked lexically, and
	// the trace warns.
	Embedder Embedder
	// MessageEmbedder adds the messages nearest the query in meaning to
	// the history's candidates and fuses vector and lexical relevance
	// (optional; see HistoryOptions.Fusion). A compilation whose query
	// cannot be embedded ranks history lexically and says why in its
	// trace.
	MessageEmbedder MessageEmbedder
	// EmbedTenant, when set, says whether a tenant's text may be sent to
	// Embedder: a tenant it refuses is ranked without it, and nothing of
	// the tenant's is sent. (MessageEmbedder applies a policy of its own.)
	EmbedTenant func(tenant string) bool
	// Resolver canonicalizes entity mentions (default SlugResolver).
	Resolver Resolver
	// Counter returns the token counter for a tokenizer or model name
	// (default: the tokenizer package; "" means cl100k_base).
	Counter func(name string) (Counter, error)
	// Allocations overrides the budget split per mode.
	Allocations map[Mode]Allocation
	// Hierarchy ranks principals (default tenure.DefaultHierarchy).
	Hierarchy tenure.Hierarchy
	// History tunes past-message retrieval (when the Source is also a
	// MessageSource).
	History HistoryOptions
	// Limits bounds the size of a request's inputs (see Limits).
	Limits Limits
	// CandidateLimit caps lexical candidates asked of the Source (default 200).
	CandidateLimit int
	// MemoryRanking weighs the blended ranking of memories (nil: the
	// defaults, DefaultMemoryRanking).
	MemoryRanking *MemoryRanking
	// Uses, when set, is told which memories each compilation included,
	// so that their last use and use counts are kept (see UseRecorder).
	Uses   UseRecorder
	Now    func() time.Time
	NewID  func() string
	Logger *slog.Logger
}

// Compiler compiles context envelopes.
type Compiler struct {
	src      Source
	opt      Options
	counters counters
}

// New returns a Compiler reading from src. It does no I/O.
func New(src Source, opt Options) *Compiler {
	if opt.Resolver == nil {
		opt.Resolver = SlugResolver{}
	}
	if opt.Counter == nil {
		opt.Counter = defaultCounter
	}
	if len(opt.Hierarchy.Ranks) == 0 {
		opt.Hierarchy = tenure.DefaultHierarchy
	}
	opt.Limits = opt.Limits.WithDefaults()
	if opt.CandidateLimit <= 0 {
		opt.CandidateLimit = 200
	}
	if opt.MemoryRanking == nil {
		opt.MemoryRanking = &DefaultMemoryRanking
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = func() string { return "tr-" + uuid.NewString() }
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Compiler{src: src, opt: opt}
}

func defaultCounter(name string) (Counter, error) {
	switch name {
	case "", "cl100k_base", "o200k_base":
		if name == "" {
			name = "cl100k_base"
		}
		return tokenizer.New(name)
	}
	return tokenizer.ForModel(name)
}

// Compile runs the pipeline. Errors: CodeInvalid or CodeTooLarge for a bad
// request (including a budget too small for the mandatory sections), and
// whatever the Source returns.
func (c *Compiler) Compile(ctx context.Context, req Request) (Envelope, Trace, error) {
	start := time.Now()
	r, err := c.newRun(req)
	if err != nil {
		return Envelope{}, Trace{}, fmt.Errorf("compile: %w", err)
	}
	steps := []struct {
		name string
		fn   func(context.Context) (int, int, error)
	}{
		{"normalize", r.normalize},
		{"resolve_entities", r.resolveEntities},
		{"gate_scope_permission_authority", r.gate},
		{"temporal_validity_and_conflicts", r.temporal},
		{"rank_relevance", r.rank},
		{"rescue_subunits", r.rescue},
		{"compress_and_convert", r.convert},
		{"contain_untrusted", r.contain},
		{"order_and_pack", r.pack},
		{"emit", r.emit},
	}
	for i, s := range steps {
		t0 := time.Now()
		in, out, err := s.fn(ctx)
		if err != nil {
			return Envelope{}, Trace{}, fmt.Errorf("compile: %s: %w", s.name, err)
		}
		r.trace.Steps = append(r.trace.Steps, StepTrace{Step: i + 1, Name: s.name, In: in, Out: out,
			Micros: float64(time.Since(t0).Nanoseconds()) / 1e3})
	}
	r.trace.LatencyMS = float64(time.Since(start).Nanoseconds()) / 1e6
	c.opt.Logger.Debug("compiled", "trace_id", r.trace.TraceID, "tokens", r.env.Tokens, "compiled", len(r.trace.Compiled),
		"omitted", len(r.trace.Omitted), "latency_ms", r.trace.LatencyMS)
	return r.env, r.trace, nil
}

// run is one compilation's state.
type run struct {
	c       *Compiler
	req     Request
	p       tenure.Principal
	scope   tenure.Scope
	at      time.Time
	counter cachedCounter
	alloc   Allocation
	items   []*item
	qterms  []string
	env     Envelope
	trace   Trace
	full    bool // the principal may see full traces
	// docBlocks are the contained document blocks, in relevance order.
	docBlocks []block
	plans     []*plan
	total     int // exact token count of the packed envelope
	// threads the request may use (nil: every thread).
	threads []string
	// embedFailed is set when the embedder of memory and documents failed:
	// they are ranked lexically.
	embedFailed bool
	// workflow is the request's workflow snapshot (nil: none), and
	// workflowPaths the state location of each of its section's blocks.
	workflow      *snapshot.Snapshot
	workflowPaths []string
	// freq counts the memory candidates naming each entity ref, freqTop
	// the largest count (the frequency signal of memory ranking).
	freq    map[string]int
	freqTop int
	// mentioned lists the entities the query names; cards the entity
	// cards of the memory section, its first blocks.
	mentioned []string
	cards     []EntityCard
	// search is the query with the other names of the entities it names
	// (expandNames): what candidates, past messages and relevance are
	// matched against.
	search string
	// facts are the card facts of entities, looked up by entity
	// (FactSource) before packing.
	facts map[string][]tenure.Object
	// replaced maps a past message (thread, NUL, id) to what replaced the
	// state items it stated, and holds marks the messages that state an
	// item that still holds (noteReplacements).
	replaced map[string][]replacement
	holds    map[string]bool
}

func (c *Compiler) newRun(req Request) (*run, error) {
	if err := req.normalize(c.opt.Limits); err != nil {
		return nil, err
	}
	h := c.opt.Hierarchy
	p, err := req.Principal.WithDefaults(h).WithPersona(req.PersonaID)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(h); err != nil {
		return nil, fmt.Errorf("principal: %w", err)
	}
	scope, err := req.Scope.Resolve(p)
	if err != nil {
		return nil, err
	}
	counter, err := c.counters.get(req.Tokenizer, c.opt.Counter)
	if err != nil {
		return nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "tokenizer", Message: fmt.Sprintf("unknown tokenizer or model %q", req.Tokenizer), Err: err}
	}
	alloc, err := c.allocation(req.Mode)
	if err != nil {
		return nil, err
	}
	now := c.opt.Now().UTC()
	at := now
	if req.AsOf != nil {
		at = req.AsOf.UTC()
	}
	qh := sha256.Sum256([]byte(req.Query))
	// Only trace:full shows what the gates withheld: a rank, even the
	// top one, never makes an object the principal cannot read visible.
	r := &run{c: c, req: req, p: p, scope: scope, at: at, counter: counter, alloc: alloc,
		full: p.HasPermission(PermTraceFull), threads: req.threadSet(), search: req.Query}
	r.trace = Trace{TraceID: c.opt.NewID(), TenantID: p.TenantID, UserID: scope.UserID, ProjectID: scope.ProjectID,
		SessionID: scope.SessionID, TaskID: scope.TaskID, Task: req.TaskType, Mode: req.Mode, Budget: req.Budget,
		Tokenizer: counter.Name(), AsOf: req.AsOf, At: now, Compiled: []CompiledObject{}, Omitted: []OmittedObject{},
		Quarantined: []QuarantinedObject{}, Retrieval: RetrievalMeta{QueryHash: "qry-" + hex.EncodeToString(qh[:4])}}
	return r, nil
}

// PermTraceFull lets a principal see the ids of objects withheld by the
// scope and permission gates in traces (tenure.PermTraceFull).
const PermTraceFull = tenure.PermTraceFull
