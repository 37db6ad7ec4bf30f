package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/mcp"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/sqlite"
)

var mcpSpec = commandSpec{
	name:    "mcp",
	summary: "serve the store to an agent over the Model Context Protocol (stdio, or --http)",
	detail: `mcp serves the tools remember, compile_context, recall, supersede,
expand_state_item, history and forget, the workflow snapshot tools
snapshot_start, snapshot_get, snapshot_submit_delta, snapshot_close_round and
snapshot_path_history, and the resources tenure://identity and
tenure://state, to one agent over standard input and output (newline-delimited
JSON-RPC), or with --http ADDR to any number of clients over streamable HTTP
at http://ADDR/mcp. Every call runs as the principal of the principal flags, in
the scope of the scope flags, with the usual permission checks: anyone who can
reach --http ADDR acts as that principal.
Example client configuration: {"command": "tenure", "args": ["mcp", "--db", "/path/tenure.db"]}`,
	new: func() subcommand { return new(mcpCmd) },
}

// mcpPath is where --http serves the MCP endpoint (as tenure serve does).
const mcpPath = "/mcp"

type mcpCmd struct {
	common
	http   string
	budget int
	digest bool
	embed  embedFlags
}

func (c *mcpCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.http, "http", "", "serve streamable HTTP on `address` (host:port) instead of stdio")
	fs.IntVar(&c.budget, "budget", 2000, "token `budget` of compile_context when the call gives none")
	fs.BoolVar(&c.digest, "digest", true, "after remember appends a message, digest its thread (state items, summaries and, with --embedder, vectors)")
	c.embed.define(fs, false)
}

func (c *mcpCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(mcpSpec, args, 0); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	if c.budget <= 0 {
		return tenure.Errorf(tenure.CodeInvalid, "--budget", "must be positive")
	}
	if err := c.embed.setUp(); err != nil {
		return err
	}
	var ln net.Listener
	if c.http != "" {
		// Listen before opening the store so that a bad address fails fast.
		if ln, err = net.Listen("tcp", c.http); err != nil {
			return &tenure.Error{Code: tenure.CodeInvalid, Field: "--http", Message: "cannot listen on " + c.http, Err: err}
		}
		defer ln.Close()
	}
	log := slog.New(slog.NewTextHandler(sio.err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return c.withStoreOptions(ctx, c.embed.storeOptions(sqlite.Options{}), func(st *dbStore) error {
		uses := memory.NewUseTracker(st, memory.UseTrackerOptions{Logger: log})
		uses.Start()
		defer uses.Close()
		opt := mcp.Options{Principal: p, Scope: s, DefaultBudget: c.budget, Logger: log,
			Compiler: compile.New(st, c.embed.compileOptions(compile.Options{Logger: log, Uses: uses}))}
		if c.digest {
			opt.AfterAppend = func(ctx context.Context, p tenure.Principal, msgs []tenure.Message) {
				for _, d := range digestThreads(ctx, st, p, threadsOf(msgs), nil) {
					if err := d.Result.Err(); err != nil {
						log.Warn("digest failed", "thread", d.Thread, "err", err)
					}
				}
			}
		}
		srv := mcp.NewServer(st, opt)
		if ln == nil {
			return ignoreCanceled(srv.RunIO(ctx, sio.in, sio.out))
		}
		return serveMCP(ctx, sio, ln, srv)
	})
}

// mcpHandler is the MCP endpoint tenure serve mounts at mcpPath, behind
// its API-key authentication: each request runs as its key's principal,
// with opt's compiler, compile cap and hooks (zero: MCP's defaults).
func mcpHandler(st *dbStore, opt mcp.Options) http.Handler {
	opt.PrincipalFromRequest = mcp.PrincipalFromContext
	return mcp.NewServer(st, opt).HTTPHandler()
}

// serveMCP serves srv's streamable HTTP handler at mcpPath on ln until ctx
// is done, then shuts down gracefully.
func serveMCP(ctx context.Context, sio stdio, ln net.Listener, srv *mcp.Server) error {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, srv.HTTPHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(sio.err, "tenure mcp: serving streamable HTTP on http://%s%s\n", ln.Addr(), mcpPath)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "--http", Message: "http server stopped", Err: err}
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); errors.Is(err, context.DeadlineExceeded) {
		// Open event streams do not end by themselves: cut them.
		return hs.Close()
	} else if err != nil {
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "--http", Message: "http server shutdown", Err: err}
	}
	return nil
}

// ignoreCanceled treats the end of the command's context (an interrupt)
// as a normal end of the session.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
