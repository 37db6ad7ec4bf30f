package http

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/snapshot"
)

// Store is what the server serves: objects, messages, state-item
// expansion, workflow snapshots and the entity registry, read and written
// as a principal. The embedded engine (sqlite.Store) and Client satisfy
// it.
type Store interface {
	tenure.Store
	tenure.MessageStore
	snapshot.Store
	entity.Registry
	// ListPage returns one page of the latest versions matching f visible
	// to p, from f.Cursor on; the page's Next continues it. Errors:
	// CodeInvalid.
	ListPage(ctx context.Context, p tenure.Principal, f tenure.Filter) (tenure.Page, error)
	// Expand returns a state item and the messages it came from. Errors:
	// CodeInvalid, CodeNotFound, CodeConflict.
	Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error)
}

// Compiler compiles context envelopes; *compile.Compiler satisfies it.
type Compiler interface {
	// Compile runs one compilation as req.Principal. Errors: CodeInvalid,
	// CodeTooLarge, and whatever the store returns.
	Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error)
}

// Keys finds API keys; sqlite.Store satisfies it.
type Keys interface {
	// KeyByHash returns the key whose secret hashes to hash (see
	// tenure.HashAPIKey), revoked or not. Errors: CodeNotFound.
	KeyByHash(ctx context.Context, hash string) (tenure.APIKey, error)
}

// ServerOptions configures a Server. The zero value works.
type ServerOptions struct {
	// Compiler compiles envelopes (default: a compile.Compiler over the
	// store, which must then implement compile.Source).
	Compiler Compiler
	// Hierarchy ranks principals (default tenure.DefaultHierarchy). No
	// rank reads others' traces: that takes trace:read (see getTrace).
	Hierarchy tenure.Hierarchy
	// Ready reports whether the server can serve, for GET /readyz (default:
	// always ready until shutdown starts).
	Ready func(ctx context.Context) error
	// Mounts adds handlers by path ("/mcp") behind the same API-key
	// authentication, body limit, request ids, logs and metrics; a handler
	// reads the caller with tenure.PrincipalFromContext. A path serves
	// itself and everything below it, and must not overlap the API's
	// routes. RequestTimeout does not apply (streams may be long).
	Mounts map[string]http.Handler
	// UI is the web inspector, served at /ui/ (and / redirects there)
	// behind the request ids, logs, metrics and panic recovery but without
	// the API-key check: it authenticates its own callers (a session
	// cookie) and runs each page as their key's principal (default: none,
	// and / answers 404).
	UI http.Handler
	// Logger receives one line per request and every server error
	// (default: discard).
	Logger *slog.Logger
	// Registry receives the server's metrics, served at GET /metrics to
	// API keys holding tenure.PermMetricsRead (default: a new private
	// registry with the Go and process collectors).
	Registry *prometheus.Registry
	// SeparateMetrics leaves GET /metrics off the API: the caller serves
	// MetricsHandler, which asks for no key, on a listener of its own that
	// only the monitoring system can reach (tenure serve --metrics-addr).
	SeparateMetrics bool
	// Now is the clock of the trace cache (default time.Now).
	Now func() time.Time
	// MaxBodyBytes caps request bodies (default 16 MiB); larger ones get
	// 413 too_large.
	MaxBodyBytes int64
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// net/http server's (defaults 10s, 60s, 120s, 120s).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// RequestTimeout bounds each API call's work; past it the call fails
	// with 504 timeout (default 60s).
	RequestTimeout time.Duration
	// ShutdownTimeout is how long Serve waits for in-flight requests once
	// its context is done (default 30s).
	ShutdownTimeout time.Duration
	// TraceTTL is how long compile traces stay readable (default 1h);
	// MaxTraces bounds how many are kept (default 1000, oldest dropped
	// first).
	TraceTTL  time.Duration
	MaxTraces int
	// FullTraces keeps traces whole. By default they are kept compact
	// (compile.Trace.Compact: the omitted candidates counted by reason,
	// the first ten of each listed): a few KB each instead of tens or
	// hundreds. A compile request with trace=true gets its whole trace in
	// the answer either way.
	FullTraces bool
	// Digester brings threads' structured state and narrative summaries
	// up to date, for POST /v1/extract and, unless ManualDigest is set, in
	// the background after every POST /v1/messages that appends (default:
	// none; POST /v1/extract then answers 503 unavailable). See
	// NewDigester.
	Digester Digester
	// ManualDigest turns the background digest off: threads are digested
	// only by POST /v1/extract.
	ManualDigest bool
	// DigestWorkers bounds the background digests running at once
	// (default 4). DigestQueue bounds the threads waiting for one (default
	// 10000); past it a request is dropped, and the thread's new messages
	// wait behind its watermarks for its next digest.
	DigestWorkers, DigestQueue int
	// DigestTimeout bounds each background digest (default 5m).
	DigestTimeout time.Duration
	// Compiles caps the compilations running at once: POST /v1/compile's
	// and those of any mounted handler given the same limiter (serve
	// shares it with MCP). Past it a call answers 503 unavailable with
	// Retry-After at once, before its body is read (default
	// admit.New("compilations", 0): twice GOMAXPROCS).
	Compiles *admit.Limiter
	// Extractions caps the POST /v1/extract digests running at once, the
	// same way (default twice GOMAXPROCS). Background digests run on their
	// own DigestWorkers.
	Extractions *admit.Limiter
}

// Server serves the Tenure API over HTTP. Every /v1 call but the OpenAPI
// document runs as the principal of the caller's API key.
type Server struct {
	store    Store
	keys     Keys
	compiler Compiler
	opt      ServerOptions
	mux      *http.ServeMux
	handler  http.Handler
	routes   []string
	traces   *traceCache
	metrics  *metrics
	digests  *digester
	draining atomic.Bool
}

// NewServer returns a server over store, authenticating with keys. It does
// no I/O.
func NewServer(store Store, keys Keys, opt ServerOptions) *Server {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if len(opt.Hierarchy.Ranks) == 0 {
		opt.Hierarchy = tenure.DefaultHierarchy
	}
	if opt.Compiler == nil {
		if src, ok := store.(compile.Source); ok {
			opt.Compiler = compile.New(src, compile.Options{Hierarchy: opt.Hierarchy, Logger: opt.Logger})
		}
	}
	defaults := []struct {
		d *time.Duration
		v time.Duration
	}{{&opt.ReadHeaderTimeout, 10 * time.Second}, {&opt.ReadTimeout, 60 * time.Second}, {&opt.WriteTimeout, 120 * time.Second},
		{&opt.IdleTimeout, 120 * time.Second}, {&opt.RequestTimeout, 60 * time.Second}, {&opt.ShutdownTimeout, 30 * time.Second},
		{&opt.TraceTTL, time.Hour}, {&opt.DigestTimeout, 5 * time.Minute}}
	for _, d := range defaults {
		if *d.d <= 0 {
			*d.d = d.v
		}
	}
	if opt.MaxBodyBytes <= 0 {
		opt.MaxBodyBytes = 16 << 20
	}
	if opt.MaxTraces <= 0 {
		opt.MaxTraces = 1000
	}
	if opt.DigestWorkers <= 0 {
		opt.DigestWorkers = 4
	}
	if opt.DigestQueue <= 0 {
		opt.DigestQueue = 10000
	}
	if opt.Compiles == nil {
		opt.Compiles = admit.New("compilations", 0)
	}
	if opt.Extractions == nil {
		opt.Extractions = admit.New("extractions", 0)
	}
	s := &Server{store: store, keys: keys, compiler: opt.Compiler, opt: opt, mux: http.NewServeMux()}
	s.traces = newTraceCache(opt.TraceTTL, opt.MaxTraces, opt.Now)
	s.digests = newDigester(opt.Digester, opt.Logger, opt.DigestWorkers, opt.DigestQueue, opt.DigestTimeout)
	s.metrics = newMetrics(opt.Registry, s.traces, s.digests, map[string]*admit.Limiter{"compile": opt.Compiles, "extract": opt.Extractions})
	s.digests.m = s.metrics
	s.register()
	s.handler = s.outer(s.mux)
	return s
}

// register installs the routes. The OpenAPI document (openapi.json) lists
// exactly these; a test keeps the two in step.
func (s *Server) register() {
	public := func(pattern string, h http.HandlerFunc) {
		s.routes = append(s.routes, pattern)
		s.mux.Handle(pattern, h)
	}
	api := func(pattern string, fn apiFunc) {
		s.routes = append(s.routes, pattern)
		s.mux.Handle(pattern, s.authenticated(s.api(fn)))
	}
	public("GET /healthz", s.healthz)
	public("GET /readyz", s.readyz)
	if !s.opt.SeparateMetrics {
		s.routes = append(s.routes, "GET /metrics")
		s.mux.Handle("GET /metrics", s.authenticated(s.permitted(tenure.PermMetricsRead, s.metrics.handler())))
	}
	public("GET /v1/openapi.json", serveOpenAPI)

	api("GET /v1/whoami", s.whoami)
	api("POST /v1/objects", s.putObject)
	api("POST /v1/objects/batch", s.putBatch)
	api("GET /v1/objects", s.listObjects)
	api("GET /v1/objects/{id}", s.getObject)
	api("GET /v1/values/{key}", s.currentValue)
	api("GET /v1/history/{key}", s.history)
	api("GET /v1/memories", s.listMemories)
	api("POST /v1/memories/{id}/pin", s.pinMemory(true))
	api("POST /v1/memories/{id}/unpin", s.pinMemory(false))
	api("PUT /v1/memories/{id}/importance", s.setImportance)
	api("POST /v1/curate", s.curate)
	api("POST /v1/retire", s.retire)
	api("GET /v1/resolutions", s.resolutions)
	api("POST /v1/sessions/{id}/end", s.endSession)
	api("GET /v1/sessions", s.listSessions)
	api("GET /v1/session-state", s.sessionState)
	api("POST /v1/messages", s.appendMessages)
	api("GET /v1/messages", s.listMessages)
	api("POST /v1/compile", s.compile)
	api("GET /v1/traces/{id}", s.getTrace)
	api("POST /v1/expand", s.expand)
	api("POST /v1/extract", s.extract)
	api("PUT /v1/identity", s.setIdentity)
	api("PUT /v1/environment", s.setEnvironment)
	api("POST /v1/workflows", s.startWorkflow)
	api("GET /v1/workflows/{id}", s.getSnapshot)
	api("POST /v1/workflows/{id}/deltas", s.submitDeltas)
	api("POST /v1/workflows/{id}/close", s.closeRound)
	api("GET /v1/workflows/{id}/history", s.pathHistory)
	api("GET /v1/workflows/{id}/bindings/{term}", s.binding)
	s.entityRoutes(api)

	paths := make([]string, 0, len(s.opt.Mounts))
	for p := range s.opt.Mounts {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	root := false
	for _, p := range paths {
		h := s.authenticated(s.limited(s.opt.Mounts[p]))
		base := strings.TrimSuffix(p, "/")
		s.mux.Handle(base+"/", h)
		if base != "" {
			s.mux.Handle(base, h)
		}
		root = root || base == ""
	}
	if s.opt.UI != nil {
		s.mux.Handle("/ui/", s.limited(s.opt.UI))
		if !root {
			s.mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusSeeOther))
		}
	}
	if !root {
		s.mux.HandleFunc("/", s.noRoute)
	}
}

// permitted runs next only for a principal holding perm; others get 403
// forbidden.
func (s *Server) permitted(perm string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, _ := tenure.PrincipalFromContext(r.Context()); !p.HasPermission(perm) {
			writeError(w, r, tenure.Errorf(tenure.CodeForbidden, "Authorization", "this API key lacks the %s permission", perm))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// MetricsHandler returns the Prometheus metrics handler without
// authentication, to serve on a private listener (see SeparateMetrics).
// Requests to it are not counted in the request metrics.
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }

// limited caps the request body of a mounted handler at MaxBodyBytes.
func (s *Server) limited(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}

// Routes returns the API's routes as "METHOD /path" patterns, in the order
// they were registered; mounted handlers are not listed.
func (s *Server) Routes() []string { return slices.Clone(s.routes) }

// Handler returns the server's HTTP handler, for tests and for callers
// that run their own http.Server.
func (s *Server) Handler() http.Handler { return s.handler }

// ListenAndServe listens on addr and serves until ctx is done, then shuts
// down gracefully (see Serve).
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "addr", Message: "cannot listen on " + addr, Err: err}
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is done, then shuts down gracefully: it
// stops accepting connections, reports not ready, and waits up to
// ShutdownTimeout for in-flight requests, whose contexts are not canceled
// by the shutdown, so that writes in progress finish; then it stops the
// background digests (see StopDigests) within the same timeout. It
// returns nil after a clean shutdown, CodeTimeout when requests or
// digests were still running at the timeout.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opt.ReadHeaderTimeout,
		ReadTimeout:       s.opt.ReadTimeout,
		WriteTimeout:      s.opt.WriteTimeout,
		IdleTimeout:       s.opt.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.opt.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.draining.Store(false)
	s.digests.reopen()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.opt.Logger.Info("serving", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "serve", Err: err}
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.opt.Logger.Info("shutting down", "timeout", s.opt.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.opt.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		s.StopDigests(sctx)
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "shutdown: requests still running after " + s.opt.ShutdownTimeout.String(), Err: err}
	}
	if err := s.StopDigests(sctx); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "serve", Err: err}
	}
	s.opt.Logger.Info("stopped")
	return nil
}

// StopDigests stops the background digest: threads waiting for one are
// dropped (their new messages stay behind the watermarks for the thread's
// next digest, by POST /v1/extract or after the next append) and the
// running ones are waited for until ctx is done, then canceled. Serve
// calls it when it shuts down; callers that serve Handler themselves call
// it after their http.Server's Shutdown. Errors: CodeTimeout when running
// digests had to be canceled.
func (s *Server) StopDigests(ctx context.Context) error { return s.digests.stop(ctx) }

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Health{Status: "ok", Version: tenure.Version()})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeError(w, r, tenure.Errorf(tenure.CodeUnavailable, "", "shutting down"))
		return
	}
	if s.opt.Ready != nil {
		if err := s.opt.Ready(r.Context()); err != nil {
			writeError(w, r, &tenure.Error{Code: tenure.CodeUnavailable, Message: "not ready", Err: err})
			return
		}
	}
	writeJSON(w, http.StatusOK, Health{Status: "ready"})
}

// noRoute answers requests no route matches: not_found, or
// method_not_allowed (405) with an Allow header when the path exists with
// other methods.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		probe := *r
		probe.Method = m
		if _, pattern := s.mux.Handler(&probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, r, tenure.Errorf(tenure.CodeMethodNotAllowed, "", "%s is not allowed on %s (allowed methods: %s)", r.Method, r.URL.Path, strings.Join(allowed, ", ")))
		return
	}
	writeError(w, r, tenure.Errorf(tenure.CodeNotFound, "", "no route %s %s", r.Method, r.URL.Path))
}
