package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
)

var extractSpec = commandSpec{
	name:    "extract",
	args:    "",
	summary: "turn a thread's new messages into structured state and summaries",
	detail: "Reads the thread's messages after its watermarks, extracts decisions, constraints, actions,\n" +
		"questions, risks and profile facts (deterministic rules, or --llm), reconciles them into the\n" +
		"thread's state, and writes the rolling summary and the summaries of closed sessions.\n" +
		"Each channel fails on its own: a failing model never blocks the other channel.",
	new: func() subcommand { return new(extractCmd) },
}

type extractCmd struct {
	common
	llm          llmFlags
	embed        embedFlags
	thread       string
	noSummaries  bool
	rollingEvery int
}

func (c *extractCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	c.llm.define(fs)
	c.embed.define(fs, false)
	fs.StringVar(&c.thread, "thread", "", "thread `id` (required)")
	fs.BoolVar(&c.noSummaries, "no-summaries", false, "skip the narrative channel")
	fs.IntVar(&c.rollingEvery, "rolling-every", summarize.DefaultRollingEvery, "rewrite the rolling summary every `N` user turns")
}

func (c *extractCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(extractSpec, args, 0); err != nil {
		return err
	}
	if c.thread == "" {
		return tenure.Errorf(tenure.CodeInvalid, "--thread", "required")
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
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	var x extract.Extractor = extract.NewRules(extract.RulesOptions{})
	var sum engine.Summarizer = summarize.NewExtractive(summarize.Options{})
	if comp := c.llm.completer(); comp != nil {
		x = extract.NewLLM(comp, extract.LLMOptions{})
		sum = summarize.Fallback(summarize.NewLLM(comp, summarize.Options{}), sum)
	}
	if c.noSummaries {
		sum = nil
	}
	if server := c.serverURL(); server != "" {
		return c.extractRemote(ctx, sio, server)
	}
	return c.withStoreOptions(ctx, c.embed.storeOptions(sqlite.Options{}), func(st *dbStore) error {
		res := st.Digest(ctx, p, c.thread, x, sum, engine.SummaryOptions{RollingEvery: c.rollingEvery})
		if err := c.output(sio, res, func() error { return printExtract(sio, res) }); err != nil {
			return err
		}
		return res.Err()
	})
}

func printExtract(sio stdio, res engine.DigestResult) error {
	s := res.State
	fmt.Fprintf(sio.out, "state: %s read; %d inserted, %d merged, %d superseded, %d conflicting, %d dropped; %s\n",
		plural(s.Messages, "message"), s.ItemsInserted, s.ItemsMerged, s.ItemsSuperseded, s.ItemsConflicted, s.ItemsDropped,
		plural(s.FactsWritten, "fact"))
	if s.SkippedReason != "" {
		fmt.Fprintf(sio.out, "state: nothing to do (%s)\n", s.SkippedReason)
	}
	if res.StateError != nil {
		fmt.Fprintf(sio.out, "state: failed: %v\n", res.StateError)
	}
	if res.Summary != nil {
		if res.Summary.Rolling != nil {
			fmt.Fprintf(sio.out, "summary: rolling summary rewritten (%d characters)\n", len(res.Summary.Rolling.Content))
		}
		fmt.Fprintf(sio.out, "summary: %s summarized\n", plural(len(res.Summary.Sessions), "closed session"))
	}
	if res.SummaryError != nil {
		fmt.Fprintf(sio.out, "summary: failed: %v\n", res.SummaryError)
	}
	return nil
}

// extractRemote asks the server to digest the thread; the server's own
// extractor and summarizer settings apply.
func (c *extractCmd) extractRemote(ctx context.Context, sio stdio, server string) error {
	if err := c.checkRemote(server); err != nil {
		return err
	}
	var local string
	c.fs.Visit(func(f *flag.Flag) {
		if f.Name == "rolling-every" || strings.HasPrefix(f.Name, "llm") || strings.HasPrefix(f.Name, "embed") {
			local = "--" + f.Name
		}
	})
	if local != "" {
		return tenure.Errorf(tenure.CodeInvalid, local, "not with --server: the server's model, embedder and summary settings apply (see tenure serve)")
	}
	res, err := c.client(server).Extract(ctx, c.thread, !c.noSummaries)
	if err != nil {
		return err
	}
	if err := c.output(sio, res, func() error { return printExtract(sio, res) }); err != nil {
		return err
	}
	return res.Err()
}
