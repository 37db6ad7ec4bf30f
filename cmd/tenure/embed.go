package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
)

var embedSpec = commandSpec{
	name:    "embed",
	summary: "embed the stored messages that have no vector yet (a backfill), to find them by meaning",
	detail: `embed sends the messages of --db that have no vector of --embed-model to the
embedding endpoint, a batch at a time, and stores each batch's vectors as it
comes back: every tenant's messages allowed by --embed-tenants, or with
--tenant that tenant's (and with --thread that thread's). A text embedded
before, by any message, is not sent again. When the endpoint fails, what was
embedded stays; run embed again to embed the rest. ingest and the digests
of serve, mcp and compile --thread embed new messages by themselves: embed
catches up after an outage, or after the model changed.

The text of every message embedded goes to --embed-url: see
docs/security.md. For a local model with Ollama:
  ollama pull nomic-embed-text
  tenure embed --embedder openai --embed-url http://localhost:11434/v1 \
    --embed-model nomic-embed-text`,
	new: func() subcommand { return new(embedCmd) },
}

type embedCmd struct {
	common
	embed      embedFlags
	thread     string
	noProgress bool
}

func (c *embedCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	c.embed.define(fs, false)
	fs.StringVar(&c.thread, "thread", "", "embed only this thread's messages (of --tenant's tenant)")
	fs.BoolVar(&c.noProgress, "no-progress", false, "never show the progress bar (it shows only on a terminal)")
}

// embedResult is embed's JSON output.
type embedResult struct {
	semantic.Report
	Error *tenure.Error `json:"error,omitempty"`
}

func (c *embedCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(embedSpec, args, 0); err != nil {
		return err
	}
	if err := c.embed.setUp(); err != nil {
		return err
	}
	if c.embed.space == nil {
		return tenure.Errorf(tenure.CodeInvalid, "--embedder", "required: --embedder openai with --embed-url and --embed-model (embed sends the messages to that endpoint)")
	}
	tenant := ""
	if c.set("tenant") {
		tenant = c.tenant
	}
	if c.thread != "" && tenant == "" {
		return tenure.Errorf(tenure.CodeInvalid, "--thread", "needs --tenant: thread ids are a tenant's")
	}
	return c.withStoreOptions(ctx, c.embed.storeOptions(sqlite.Options{}), func(st *dbStore) error {
		bar := newProgress(progressOut(sio, c.noProgress), 0, "embed", "msg")
		rep, err := st.EmbedMessages(ctx, tenant, c.thread, bar.SetOf)
		bar.Finish()
		out := embedResult{Report: rep}
		if err != nil {
			out.Error = tenure.AsError(err)
		}
		if werr := c.output(sio, out, func() error {
			_, err := fmt.Fprintln(sio.out, vectorsNote(rep, out.Error))
			return err
		}); werr != nil {
			return werr
		}
		return err
	})
}

// vectorsNote says in one line what embedding messages did.
func vectorsNote(r semantic.Report, err *tenure.Error) string {
	note := fmt.Sprintf("embedded %s with %s", plural(r.Embedded, "message"), r.Model)
	if r.Embedded > 0 {
		note += fmt.Sprintf(" (%d from the cache, %s sent in %s)", r.Cached, plural(r.Sent, "text"), plural(r.Requests, "request"))
	}
	if r.KeptLocal > 0 {
		note += fmt.Sprintf("; %s kept local by --embed-tenants", plural(r.KeptLocal, "message"))
	}
	if r.Refused > 0 {
		note += fmt.Sprintf("; %s refused by the endpoint (or empty), not sent again", plural(r.Refused, "message"))
	}
	if err != nil {
		note += fmt.Sprintf("; %s left without a vector: %v (run 'tenure embed' when the endpoint is back)", plural(r.Left, "message"), err)
	}
	return note
}
