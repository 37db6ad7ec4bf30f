package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/memory"
)

var curateSpec = commandSpec{
	name:    "curate",
	summary: "fold near-duplicate memories and archive stale ones",
	detail: `The curator folds the near-duplicate memories of one entity and fact type into
the best of them (a new version with source curated_fold naming the folded
ones, which are archived, not deleted) and archives memories of importance 0
unconfirmed and unused for 30 days, of importance 1 for 180 days. Pinned
memories are never touched. Running it again with nothing new does nothing.
A run (not --dry-run) is recorded in the session state of the user and
persona ('tenure sessions state': curator.last_run_at and the memories left
active, curator.last_memory_count_at_run). 'tenure serve --curate-every'
runs it on a schedule for every user.`,
	new: func() subcommand { return new(curateCmd) },
}

type curateCmd struct {
	common
	dryRun     bool
	similarity float64
}

func (c *curateCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.BoolVar(&c.dryRun, "dry-run", false, "report what would be folded and archived without doing it")
	fs.Float64Var(&c.similarity, "similarity", 0, "word overlap (`share`, 0-1) at which two memories are near-duplicates (default 0.6)")
}

func (c *curateCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(curateSpec, args, 0); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	if c.similarity < 0 || c.similarity > 1 {
		return tenure.Errorf(tenure.CodeInvalid, "--similarity", "must be between 0 and 1")
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		// A server runs the curator itself and records the run (POST
		// /v1/curate); a local store records it in the session state of
		// the user and persona ('tenure sessions state').
		opt := memory.CurateOptions{Scope: s, DryRun: c.dryRun, Similarity: c.similarity}
		var rep memory.CurateReport
		var err error
		if rc, ok := st.(remoteCurator); ok {
			rep, err = rc.Curate(ctx, p, opt)
		} else {
			rec, _ := st.(memory.RunRecorder)
			rep, err = memory.CurateAndRecord(ctx, st, rec, p, opt)
		}
		if err != nil {
			return err
		}
		return c.output(sio, rep, func() error { return printCurate(sio.out, rep) })
	})
}

// remoteCurator runs and records a curator run elsewhere (*http.Client).
type remoteCurator interface {
	Curate(ctx context.Context, p tenure.Principal, opt memory.CurateOptions) (memory.CurateReport, error)
}

// printCurate prints a summary line, one line per fold and one per
// archived memory.
func printCurate(w io.Writer, rep memory.CurateReport) error {
	var b bytes.Buffer
	verb := "curated"
	if rep.DryRun {
		verb = "dry run: would curate"
	}
	fmt.Fprintf(&b, "%s %d memories: %s, %d stale archived\n", verb, rep.Memories, plural(len(rep.Folds), "fold"), len(rep.Archived))
	for _, f := range rep.Folds {
		fmt.Fprintf(&b, "  fold %s <- %s\n", f.Kept, strings.Join(f.Folded, ", "))
	}
	for _, id := range rep.Archived {
		fmt.Fprintf(&b, "  archive %s\n", id)
	}
	_, err := w.Write(b.Bytes())
	return err
}
