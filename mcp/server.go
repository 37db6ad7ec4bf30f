package mcp

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/snapshot"
)

// Store is what the server reads and writes through; *sqlite.Store
// implements it. Each method returns the error codes documented on
// tenure.Writer, tenure.Reader, tenure.Retirer and tenure.MessageStore;
// Expand returns CodeInvalid (no uid), CodeNotFound (no visible item) and
// CodeConflict (the uid is in several threads and none was named).
type Store interface {
	// Candidates feeds the default compiler (compile.Source).
	Candidates(ctx context.Context, q tenure.CandidateQuery) ([]tenure.Object, error)
	Put(ctx context.Context, p tenure.Principal, o tenure.Object) (tenure.WriteResult, error)
	Get(ctx context.Context, p tenure.Principal, id string, r tenure.Read) (tenure.Object, error)
	CurrentValue(ctx context.Context, p tenure.Principal, key string, r tenure.Read) (tenure.Object, error)
	History(ctx context.Context, p tenure.Principal, key string, s tenure.Scope) (tenure.History, error)
	List(ctx context.Context, p tenure.Principal, f tenure.Filter) ([]tenure.Object, error)
	Retire(ctx context.Context, p tenure.Principal, opt tenure.RetireOptions) (tenure.RetireReport, error)
	AppendMessages(ctx context.Context, p tenure.Principal, msgs []tenure.Message) (tenure.AppendResult, error)
	Messages(ctx context.Context, p tenure.Principal, f tenure.MessageFilter) ([]tenure.Message, error)
	Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error)
	// The workflow snapshot tools read and write through snapshot.Store,
	// whose methods document their errors.
	snapshot.Store
	// The entity tools read and write through entity.Registry.
	entity.Registry
}

// Compiler compiles context envelopes; *compile.Compiler implements it.
// Compile returns CodeInvalid or CodeTooLarge for a bad request and the
// store's errors otherwise.
type Compiler interface {
	Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error)
}

// Options configures a Server. The zero value works: every call runs as
// the default principal (tenant "default", public clearance, lowest rank).
type Options struct {
	// Principal is who every call runs as over stdio, in-memory transports
	// and HTTP without PrincipalFromRequest.
	Principal tenure.Principal
	// PrincipalFromRequest resolves the principal of each HTTP request (for
	// example from its API key). An error rejects the request with the
	// HTTP status of its code (tenure.HTTPStatus), usually 401.
	PrincipalFromRequest func(*http.Request) (tenure.Principal, error)
	// Scope is the scope every call runs in (project, session, task,
	// sandbox); its user defaults to the principal's.
	Scope tenure.Scope
	// Compiler compiles envelopes for compile_context and recall (default:
	// compile.New(store, compile.Options{Hierarchy: Hierarchy})).
	Compiler Compiler
	// Compiles caps the compilations of compile_context and recall running
	// at once; past it a call fails with unavailable (JSON-RPC error
	// -32010, its data carrying retry_after in seconds). Give it the HTTP
	// server's limiter to share one cap (default admit.New("compilations",
	// 0): twice GOMAXPROCS).
	Compiles *admit.Limiter
	// Hierarchy ranks principals (default tenure.DefaultHierarchy).
	Hierarchy tenure.Hierarchy
	// DefaultBudget is compile_context's token budget when the call gives
	// none (default 2000).
	DefaultBudget int
	// Now is the clock for defaulted message times (default time.Now).
	Now func() time.Time
	// NewID generates message ids the caller leaves out (default UUIDv7).
	NewID func() string
	// Logger receives server events and internal errors (default: discard).
	Logger *slog.Logger
	// Version is reported to clients at initialization (default
	// tenure.Version(), the build's version).
	Version string
	// AfterAppend, when set, is called after remember appends messages,
	// with the principal and what was appended: the hook that digests the
	// threads (structured state and summaries) as POST /v1/messages does.
	// It runs in the tool call: a slow one should hand the work off.
	AfterAppend func(ctx context.Context, p tenure.Principal, msgs []tenure.Message)
	// OnCompile, when set, is called after each compilation of
	// compile_context and recall, with the principal, what the compiler
	// returned and how long it took: the hook that keeps traces and counts
	// compilations as POST /v1/compile does. It runs in the tool call and
	// must not block.
	OnCompile func(ctx context.Context, p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error)
}

// Server is an MCP server over a Store. It is safe for concurrent use by
// any number of sessions and transports.
type Server struct {
	store Store
	opt   Options
	srv   *sdk.Server
	// refs maps the per-request references HTTPHandler puts in a trusted
	// header to the principal resolved for that request.
	refs sync.Map
}

// NewServer returns a server over store with its tools and resources
// registered. It does no I/O.
func NewServer(store Store, opt Options) *Server {
	if len(opt.Hierarchy.Ranks) == 0 {
		opt.Hierarchy = tenure.DefaultHierarchy
	}
	if opt.Compiler == nil {
		opt.Compiler = compile.New(store, compile.Options{Hierarchy: opt.Hierarchy})
	}
	if opt.Compiles == nil {
		opt.Compiles = admit.New("compilations", 0)
	}
	if opt.DefaultBudget <= 0 {
		opt.DefaultBudget = 2000
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Version == "" {
		opt.Version = tenure.Version()
	}
	s := &Server{store: store, opt: opt}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "tenure", Title: "Tenure", Version: opt.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opt.Logger})
	s.addTools()
	s.addResources()
	return s
}

// instructions tell the client what the server is for.
const instructions = `Tenure is governed memory: claims with scope, authority, permissions and history.
Call compile_context before answering to get what you should see for the task, within a token budget.
Use remember to store durable facts, preferences and decisions (kind "object") or conversation turns
(kind "message"); supersede when a fact changed; forget to retire what no longer holds; recall and
history to inspect what is stored and why. State items in the envelope show [uid]s: expand_state_item
returns the messages they came from.`

// Run serves one session over t until the client disconnects or ctx is
// done.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// RunIO serves one session of newline-delimited JSON-RPC read from r and
// written to w, until r ends or ctx is done.
func (s *Server) RunIO(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
}

// RunStdio serves one session over the process's standard input and
// output, until the input ends or ctx is done.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.RunIO(ctx, os.Stdin, os.Stdout)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// principalRefHeader carries, from HTTPHandler to the tool and resource
// handlers, the reference of the principal resolved for the request. It is
// never read from the client: HTTPHandler removes any copy the client sent.
const principalRefHeader = "Tenure-Internal-Principal-Ref"

// HTTPHandler returns a streamable HTTP handler serving the server's MCP
// sessions. With Options.PrincipalFromRequest, every HTTP request is
// authenticated on its own and its calls run as the principal it resolves
// to. Each call returns an independent handler with its own sessions.
func (s *Server) HTTPHandler() http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{Logger: s.opt.Logger})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.Header.Del(principalRefHeader)
		if s.opt.PrincipalFromRequest != nil {
			p, err := s.opt.PrincipalFromRequest(r)
			if err != nil {
				writeHTTPError(w, s.opt.Logger, err)
				return
			}
			ref := newRef()
			s.refs.Store(ref, p)
			defer s.refs.Delete(ref)
			r.Header.Set(principalRefHeader, ref)
		}
		h.ServeHTTP(w, r)
	})
}

// PrincipalFromContext is an Options.PrincipalFromRequest for a server
// mounted behind a transport that authenticates each request and stores
// its principal with tenure.ContextWithPrincipal, as tenure serve does.
// Errors: CodeUnauthenticated when the request carries no principal.
func PrincipalFromContext(r *http.Request) (tenure.Principal, error) {
	p, ok := tenure.PrincipalFromContext(r.Context())
	if !ok {
		return p, tenure.Errorf(tenure.CodeUnauthenticated, "", "the request has no authenticated principal")
	}
	return p, nil
}

// newRef returns an unguessable request reference.
func newRef() string { return rand.Text() }

// call is who a tool or resource call runs as, and where.
type call struct {
	p tenure.Principal
	s tenure.Scope
}

// read is the read mode of the call: what is true now, in its scope.
func (c call) read() tenure.Read { return tenure.Read{Scope: c.s} }

// identity resolves the principal and scope of a request. Errors:
// CodeUnauthenticated (an HTTP request without a resolved principal),
// CodeInvalid or CodeForbidden (a bad principal or scope).
func (s *Server) identity(req sdk.Request) (call, error) {
	p := s.opt.Principal
	if extra := req.GetExtra(); extra != nil && extra.Header != nil && s.opt.PrincipalFromRequest != nil {
		v, ok := s.refs.Load(extra.Header.Get(principalRefHeader))
		if !ok {
			return call{}, tenure.Errorf(tenure.CodeUnauthenticated, "", "the request has no authenticated principal")
		}
		p = v.(tenure.Principal)
	}
	p = p.WithDefaults(s.opt.Hierarchy)
	if err := p.Validate(s.opt.Hierarchy); err != nil {
		return call{}, prefixField("principal.", err)
	}
	sc, err := s.opt.Scope.Resolve(p)
	if err != nil {
		return call{}, err
	}
	return call{p: p, s: sc}, nil
}
