package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
)

var serveSpec = commandSpec{
	name:    "serve",
	summary: "serve the store over HTTP: the /v1 JSON API, MCP, metrics and health checks",
	detail: `serve opens --db and serves on --addr the versioned JSON API (/v1/...;
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
--shutdown-timeout.`,
	new: func() subcommand { return new(serveCmd) },
}

type serveCmd struct {
	db, addr            string
	logFormat, logLevel string
	traceTTL, shutdown  time.Duration
	maxTraces           int
	maxBodyMiB          int
	llm                 llmFlags
	digest              bool
	digestWorkers       int
	rollingEvery        int
}

func (c *serveCmd) define(fs *flag.FlagSet) {
	fs.StringVar(&c.db, "db", defaultDBPath(), "database `file` ($TENURE_DB sets the default)")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen `address` host:port")
	fs.StringVar(&c.logFormat, "log-format", "text", "log `format` on stderr: text or json")
	fs.StringVar(&c.logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.DurationVar(&c.traceTTL, "trace-ttl", time.Hour, "keep compile traces for `duration` (GET /v1/traces/{id})")
	fs.IntVar(&c.maxTraces, "max-traces", 1000, "keep at most `n` compile traces")
	fs.IntVar(&c.maxBodyMiB, "max-body", 16, "largest request body in `MiB`")
	fs.DurationVar(&c.shutdown, "shutdown-timeout", 30*time.Second, "on SIGTERM, wait this `duration` for requests and digests in flight")
	c.llm.define(fs)
	fs.BoolVar(&c.digest, "digest", true, "digest the threads of every append in the background (state items and summaries)")
	fs.IntVar(&c.digestWorkers, "digest-workers", 4, "run at most `n` background digests at once")
	fs.IntVar(&c.rollingEvery, "rolling-every", summarize.DefaultRollingEvery, "rewrite a thread's rolling summary every `N` user turns")
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
	}{{"--trace-ttl", c.traceTTL > 0}, {"--max-traces", c.maxTraces > 0}, {"--max-body", c.maxBodyMiB > 0 && c.maxBodyMiB <= 4096},
		{"--shutdown-timeout", c.shutdown > 0}, {"--digest-workers", c.digestWorkers > 0 && c.digestWorkers <= 256}} {
		if !f.ok {
			return tenure.Errorf(tenure.CodeInvalid, f.name, "out of range")
		}
	}
	if c.rollingEvery < 1 {
		return tenure.Errorf(tenure.CodeInvalid, "--rolling-every", "must be at least 1")
	}
	if err := c.llm.validate(); err != nil {
		return err
	}
	// Listen before opening the store, so that a taken address fails fast.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "--addr", Message: "cannot listen on " + c.addr, Err: err}
	}
	defer ln.Close()
	st := sqlite.New(c.db, sqlite.Options{Logger: log})
	if err := st.Open(ctx); err != nil {
		return err
	}
	defer st.Close()
	if err := bootstrapKey(ctx, st, sio.err); err != nil {
		return err
	}
	srv := tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{
		Logger:          log,
		Ready:           func(ctx context.Context) error { return st.DB().PingContext(ctx) },
		Mounts:          serveMounts(st, log),
		MaxBodyBytes:    int64(c.maxBodyMiB) << 20,
		TraceTTL:        c.traceTTL,
		MaxTraces:       c.maxTraces,
		ShutdownTimeout: c.shutdown,
		Digester:        c.digester(st),
		ManualDigest:    !c.digest,
		DigestWorkers:   c.digestWorkers,
	})
	fmt.Fprintf(sio.err, "tenure serve: %s on http://%s (API /v1, OpenAPI /v1/openapi.json, MCP %s, metrics /metrics)\n", c.db, ln.Addr(), mcpPath)
	return srv.Serve(ctx, ln)
}

// digester digests threads with the deterministic rules and the
// extractive summarizer, or with the model --llm configures (the
// extractive summarizer as its fallback), like 'tenure extract'.
func (c *serveCmd) digester(st *sqlite.Store) tenurehttp.Digester {
	var x extract.Extractor = extract.NewRules(extract.RulesOptions{})
	var sum engine.Summarizer = summarize.NewExtractive(summarize.Options{})
	if comp := c.llm.completer(); comp != nil {
		x = extract.NewLLM(comp, extract.LLMOptions{})
		sum = summarize.Fallback(summarize.NewLLM(comp, summarize.Options{}), sum)
	}
	return tenurehttp.NewDigester(st, x, sum, engine.SummaryOptions{RollingEvery: c.rollingEvery})
}

// serveMounts returns the handlers serve mounts beside the API, behind the
// same API-key authentication; they read the caller with
// tenure.PrincipalFromContext. The MCP endpoint is at /mcp.
func serveMounts(st *sqlite.Store, log *slog.Logger) map[string]http.Handler {
	return map[string]http.Handler{mcpPath: mcpHandler(st, log)}
}

// adminKeyName names the key serve creates on an empty key table.
const adminKeyName = "admin"

// bootstrapKey creates the first API key when the database has none, acting
// as the local owner, and prints it once on w.
func bootstrapKey(ctx context.Context, st *sqlite.Store, w io.Writer) error {
	k, secret, created, err := st.CreateFirstKey(ctx, tenure.APIKey{Name: adminKeyName, Principal: localOwner()})
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
