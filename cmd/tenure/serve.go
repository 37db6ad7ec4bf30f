package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/mcp"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
	"github.com/tenure-dev/tenure/web"
)

var serveSpec = commandSpec{
	name:    "serve",
	summary: "serve the store over HTTP: the /v1 JSON API, MCP, metrics and health checks",
	detail: `serve opens --db and serves on --addr the web inspector (/ui/; / redirects
there; sign in with an API key), the versioned JSON API (/v1/...;
the OpenAPI document is at /v1/openapi.json), the MCP endpoint (/mcp,
streamable HTTP), Prometheus metrics (/metrics) and health checks (/healthz,
/readyz), until interrupted (SIGINT, SIGTERM): then it stops accepting
connections and lets requests in flight finish.

Every /v1 call needs an API key (Authorization: Bearer tk_...) and runs as
its principal. On first start with no key in the database, serve creates
an admin key acting as the local owner and prints it once on stderr; create
more with 'tenure keys create'. Other commands reach the server with
--server URL --key KEY (or $TENURE_SERVER and $TENURE_KEY).

After every append (POST /v1/messages) the server digests the threads
touched in the background, as the appending key's principal: their new
messages become state items and the summaries due are written, as with
'tenure extract'; --digest=false leaves that to POST /v1/extract. The
deterministic rules and the extractive summarizer do the work unless --llm
configures a model. On shutdown, running digests finish within
--shutdown-timeout.

With --embedder openai (--embed-url, --embed-model) the digest also embeds
the thread's new messages, and compilations (API and MCP) find past
messages by meaning as well as by their words; an endpoint that fails
never fails a compilation, whose trace then warns that history was ranked
lexically. Only the text of the --embed-tenants tenants is ever sent to
the endpoint (default: every tenant's); 'tenure embed' fills the vectors
an outage left out.

Limits: a request body over --max-body, a compile input over its
--max-*-bytes limit, or stored content over --max-content-bytes is refused
with 413 too_large naming the field, and nothing is written. Past
--max-concurrent-compiles compilations (/v1/compile and MCP compile_context
and recall together) or --max-concurrent-extractions POST /v1/extract calls,
up to four times the cap of calls wait up to --queue-wait for a slot; a call
past that is refused with 503 unavailable and Retry-After. Sizes take a
unit: 512KiB, 10MiB, 1GiB.

/metrics counts every tenant's requests: it needs an API key holding the
metrics:read permission ('tenure keys create --guest --permissions metrics:read';
the admin key serve creates holds it). With --metrics-addr it is served
there instead, without a key, and not on --addr at all: bind it to a
loopback or private address that only the monitoring system reaches.

With --curate-every D (at least 1m; default 0, off) the server runs the
curator every D for every user and persona that has memories or a session
state, as 'tenure curate' does for one: near-duplicate memories are folded,
stale ones archived, pinned ones left alone, and each run is recorded in the
session state (GET /v1/session-state). A tick curates at most 100 users and
personas and the next goes on from there; ticks never overlap; on shutdown
the run in flight is cancelled. Runs are logged and counted in /metrics
(tenure_curator_runs_total, _folds_total, _archived_total).`,
	new: func() subcommand { return new(serveCmd) },
}

type serveCmd struct {
	db, addr, metricsAddr string
	logFormat, logLevel   string
	traceTTL, shutdown    time.Duration
	maxTraces             int
	fullTraces            bool
	llm                   llmFlags
	embed                 embedFlags
	pg                    pgFlags
	digest                bool
	digestWorkers         int
	rollingEvery          int
	curateEvery           time.Duration
	limits                serveLimits
}

// serveLimits are the flags that bound what one request, and many at once,
// may take.
type serveLimits struct {
	body, query, document, message, content byteSize
	compiles, extractions                   int
	queueWait                               time.Duration
}

// define declares the limit flags with their defaults.
func (l *serveLimits) define(fs *flag.FlagSet) {
	l.body = byteSize{n: 16 << 20, bareUnit: 1 << 20}
	l.query = byteSize{n: compile.DefaultQueryBytes, bareUnit: 1}
	l.document = byteSize{n: compile.DefaultDocumentBytes, bareUnit: 1}
	l.message = byteSize{n: compile.DefaultMessageBytes, bareUnit: 1}
	l.content = byteSize{n: tenure.MaxContentLen, bareUnit: 1}
	fs.Var(&l.body, "max-body", "largest request body `size` (a bare number is MiB)")
	fs.Var(&l.query, "max-query-bytes", "largest `size` of a compile request's query and current turn")
	fs.Var(&l.document, "max-document-bytes", "largest `size` of each document of a compile request")
	fs.Var(&l.message, "max-message-bytes", "largest `size` of each tail message (tool output included), instruction and tool of a compile request")
	fs.Var(&l.content, "max-content-bytes", "largest `size` of a stored object's content and value and of an appended message's content")
	fs.IntVar(&l.compiles, "max-concurrent-compiles", admit.DefaultCapacity(), "run at most `n` compilations at once, HTTP and MCP together, twice GOMAXPROCS by default")
	fs.IntVar(&l.extractions, "max-concurrent-extractions", admit.DefaultCapacity(), "run at most `n` POST /v1/extract digests at once, twice GOMAXPROCS by default")
	fs.DurationVar(&l.queueWait, "queue-wait", time.Second, "past a concurrency cap, up to four times the cap of calls wait at most this `duration` for a slot before 503 (0: refuse at once)")
}

// check names the first limit out of range.
func (l *serveLimits) check() error {
	for _, f := range []struct {
		name string
		ok   bool
	}{{"--max-body", l.body.n > 0 && l.body.n <= 4<<30}, {"--max-query-bytes", l.query.n > 0 && l.query.n <= 1<<30},
		{"--max-document-bytes", l.document.n > 0 && l.document.n <= 1<<30}, {"--max-message-bytes", l.message.n > 0 && l.message.n <= 1<<30},
		{"--max-content-bytes", l.content.n > 0 && l.content.n <= 1<<30},
		{"--max-concurrent-compiles", l.compiles > 0 && l.compiles <= 4096}, {"--max-concurrent-extractions", l.extractions > 0 && l.extractions <= 4096},
		{"--queue-wait", l.queueWait >= 0 && l.queueWait <= time.Minute}} {
		if !f.ok {
			return tenure.Errorf(tenure.CodeInvalid, f.name, "out of range")
		}
	}
	return nil
}

// compileLimits returns the compiler's input limits.
func (l *serveLimits) compileLimits() compile.Limits {
	return compile.Limits{QueryBytes: int(l.query.n), DocumentBytes: int(l.document.n), MessageBytes: int(l.message.n)}
}

func (c *serveCmd) define(fs *flag.FlagSet) {
	fs.StringVar(&c.db, "db", defaultDBPath(), "database `file` or PostgreSQL URL postgres://… ($TENURE_DB sets the default)")
	c.pg.define(fs)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen `address` host:port")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve /metrics without a key on this private `address` host:port instead of on --addr with one")
	fs.StringVar(&c.logFormat, "log-format", "text", "log `format` on stderr: text or json")
	fs.StringVar(&c.logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.DurationVar(&c.traceTTL, "trace-ttl", time.Hour, "keep compile traces for `duration` (GET /v1/traces/{id})")
	fs.IntVar(&c.maxTraces, "max-traces", 1000, "keep at most `n` compile traces")
	fs.BoolVar(&c.fullTraces, "full-traces", false, "keep compile traces whole (default: compact, the omitted candidates counted by reason, ten of each listed)")
	c.limits.define(fs)
	fs.DurationVar(&c.shutdown, "shutdown-timeout", 30*time.Second, "on SIGTERM, wait this `duration` for requests and digests in flight")
	c.llm.define(fs)
	c.embed.define(fs, false)
	fs.BoolVar(&c.digest, "digest", true, "digest the threads of every append in the background (state items and summaries)")
	fs.IntVar(&c.digestWorkers, "digest-workers", 4, "run at most `n` background digests at once")
	fs.IntVar(&c.rollingEvery, "rolling-every", summarize.DefaultRollingEvery, "rewrite a thread's rolling summary every `N` user turns")
	fs.DurationVar(&c.curateEvery, "curate-every", 0, "run the curator ('tenure curate') for every user and persona every `duration` (0: never)")
}

// logger builds the server's logger on w from the flags.
func (c *serveCmd) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "--log-level", "unknown value %q (allowed: debug, info, warn, error)", c.logLevel)
	}
	opt := &slog.HandlerOptions{Level: level}
	switch c.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opt)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opt)), nil
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, "--log-format", "unknown value %q (allowed: text, json)", c.logFormat)
}

func (c *serveCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(serveSpec, args, 0); err != nil {
		return err
	}
	log, err := c.logger(sio.err)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		ok   bool
	}{{"--trace-ttl", c.traceTTL > 0}, {"--max-traces", c.maxTraces > 0},
		{"--shutdown-timeout", c.shutdown > 0}, {"--digest-workers", c.digestWorkers > 0 && c.digestWorkers <= 256},
		{"--curate-every", c.curateEvery == 0 || c.curateEvery >= time.Minute}} {
		if !f.ok {
			return tenure.Errorf(tenure.CodeInvalid, f.name, "out of range")
		}
	}
	if err := c.limits.check(); err != nil {
		return err
	}
	if c.rollingEvery < 1 {
		return tenure.Errorf(tenure.CodeInvalid, "--rolling-every", "must be at least 1")
	}
	if err := c.llm.validate(); err != nil {
		return err
	}
	if err := c.embed.setUp(); err != nil {
		return err
	}
	// Listen before opening the store, so that a taken address fails fast.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "--addr", Message: "cannot listen on " + c.addr, Err: err}
	}
	defer ln.Close()
	var mln net.Listener
	if c.metricsAddr != "" {
		if mln, err = net.Listen("tcp", c.metricsAddr); err != nil {
			return &tenure.Error{Code: tenure.CodeUnavailable, Field: "--metrics-addr", Message: "cannot listen on " + c.metricsAddr, Err: err}
		}
		defer mln.Close()
	}
	st, err := openStore(ctx, c.db, c.embed.storeOptions(sqlite.Options{Logger: log, MaxContentBytes: int(c.limits.content.n)}), &c.pg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := bootstrapKey(ctx, st, sio.err); err != nil {
		return err
	}
	// Compilations report the memories they include; their use counts
	// are written in batches, off the compilations' path.
	uses := memory.NewUseTracker(st, memory.UseTrackerOptions{Logger: log})
	uses.Start()
	defer uses.Close()
	// One compiler and one compile cap for the API and MCP.
	comp := compile.New(st, c.embed.compileOptions(compile.Options{Logger: log, Limits: c.limits.compileLimits(), Uses: uses}))
	compiles := admit.New("compilations", c.limits.compiles).WithQueue(4*c.limits.compiles, c.limits.queueWait)
	// MCP appends digest like POST /v1/messages, through the server's
	// background digester, and MCP compilations are recorded like POST
	// /v1/compile's (traces at GET /v1/traces/{id}, compile metrics), once
	// the server exists.
	var srv *tenurehttp.Server
	mcpOpt := mcp.Options{Logger: log, Compiler: comp, Compiles: compiles,
		AfterAppend: func(_ context.Context, p tenure.Principal, msgs []tenure.Message) {
			if srv != nil {
				srv.ScheduleDigests(p, msgs, "mcp")
			}
		},
		OnCompile: func(_ context.Context, p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error) {
			if srv != nil {
				srv.RecordCompile(p, env, tr, d, err)
			}
		}}
	// The web inspector records and reads traces and reads metrics
	// through the server, once it exists.
	late := &lateServer{}
	ready := func(ctx context.Context) error { return st.Ping(ctx) }
	ui := web.New(st, st, web.Options{Compiler: comp, Traces: late, KeyAdmin: st, Ready: ready, Logger: log,
		Metrics: prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return late.s.Gatherer().Gather() })})
	reg := serverRegistry()
	registerDBMetrics(reg, st)
	srv = tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{
		Registry:        reg,
		UI:              ui,
		Logger:          log,
		Ready:           ready,
		Compiler:        comp,
		Compiles:        compiles,
		Extractions:     admit.New("extractions", c.limits.extractions).WithQueue(4*c.limits.extractions, c.limits.queueWait),
		Mounts:          map[string]http.Handler{mcpPath: mcpHandler(st, mcpOpt)},
		MaxBodyBytes:    c.limits.body.n,
		SeparateMetrics: mln != nil,
		TraceTTL:        c.traceTTL,
		MaxTraces:       c.maxTraces,
		FullTraces:      c.fullTraces,
		ShutdownTimeout: c.shutdown,
		Digester:        c.digester(st),
		ManualDigest:    !c.digest,
		DigestWorkers:   c.digestWorkers,
	})
	metrics := "metrics /metrics with a metrics:read key"
	if mln != nil {
		metrics = fmt.Sprintf("metrics without a key on http://%s/metrics", mln.Addr())
		stop := serveMetrics(ctx, mln, srv.MetricsHandler(), log)
		defer stop()
	}
	late.s = srv
	stopCurator := c.startCurator(ctx, st, reg, log)
	defer stopCurator()
	fmt.Fprintf(sio.err, "tenure serve: %s on http://%s (web inspector /ui/, API /v1, OpenAPI /v1/openapi.json, MCP %s, %s)\n", dbName(c.db), ln.Addr(), mcpPath, metrics)
	return srv.Serve(ctx, ln)
}

// lateServer hands the web inspector the server's traces once the server
// exists (the server needs the inspector first).
type lateServer struct{ s *tenurehttp.Server }

func (l *lateServer) RecordCompile(p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error) {
	l.s.RecordCompile(p, env, tr, d, err)
}

func (l *lateServer) Trace(p tenure.Principal, id string) (compile.Trace, error) {
	return l.s.Trace(p, id)
}

// serveMetrics serves h at GET /metrics, and nothing else, on ln until
// ctx is done or the returned stop is called.
func serveMetrics(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		<-ctx.Done()
		sctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		hs.Shutdown(sctx)
	}()
	return cancel
}

// digester digests threads with the deterministic rules and the
// extractive summarizer, or with the model --llm configures (the
// extractive summarizer as its fallback), like 'tenure extract'.
func (c *serveCmd) digester(st *dbStore) tenurehttp.Digester {
	var x extract.Extractor = extract.NewRules(extract.RulesOptions{})
	var sum engine.Summarizer = summarize.NewExtractive(summarize.Options{})
	if comp := c.llm.completer(); comp != nil {
		x = extract.NewLLM(comp, extract.LLMOptions{})
		sum = summarize.Fallback(summarize.NewLLM(comp, summarize.Options{}), sum)
	}
	return tenurehttp.NewDigester(st, x, sum, engine.SummaryOptions{RollingEvery: c.rollingEvery})
}

// adminKeyName names the key serve creates on an empty key table.
const adminKeyName = "admin"

// bootstrapKey creates the first API key when the database has none, acting
// as the local owner, and prints it once on w.
func bootstrapKey(ctx context.Context, st *dbStore, w io.Writer) error {
	admin := localOwner()
	admin.Permissions = append(admin.Permissions, tenure.PermMetricsRead, tenure.PermKeysAdmin)
	k, secret, created, err := st.CreateFirstKey(ctx, tenure.APIKey{Name: adminKeyName, Principal: admin})
	if err != nil || !created {
		return err
	}
	p := k.Principal
	_, err = fmt.Fprintf(w, `tenure serve: no API key existed, so one was created (%s): user %q of tenant %q,
authority %q, clearance %q. It is shown only now; store it:

    %s

Use it as "Authorization: Bearer <key>", or: export TENURE_SERVER=http://... TENURE_KEY=<key>.
Create narrower keys with 'tenure keys create' and revoke this one with 'tenure keys revoke %s'.
%s
`, k.ID, p.UserID, p.TenantID, p.Authority, p.Clearance, secret, k.ID, strings.Repeat("-", 72))
	return err
}
