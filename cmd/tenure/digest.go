package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/summarize"
)

// digestTimeout bounds the digests a command runs on its own (after an
// import, before a compilation, after an MCP append): they bring state up
// to date, but never hold the command up for long.
const digestTimeout = 30 * time.Second

// threadDigest is what digesting one thread did.
type threadDigest struct {
	Thread string              `json:"thread"`
	Result engine.DigestResult `json:"result"`
}

// digestThreads brings each thread's structured state and summaries up to
// date as p, with the deterministic rules and the extractive summarizer
// (what 'tenure extract' runs without --llm), within digestTimeout in all.
// A channel's failure is in its result; progress, when not nil, is told
// how many threads are done.
func digestThreads(ctx context.Context, st *dbStore, p tenure.Principal, threads []string, progress func(done int)) []threadDigest {
	ctx, cancel := context.WithTimeout(ctx, digestTimeout)
	defer cancel()
	x := extract.NewRules(extract.RulesOptions{})
	sum := summarize.NewExtractive(summarize.Options{})
	out := make([]threadDigest, 0, len(threads))
	for i, t := range threads {
		out = append(out, threadDigest{Thread: t, Result: st.Digest(ctx, p, t, x, sum, engine.SummaryOptions{})})
		if progress != nil {
			progress(i + 1)
		}
	}
	return out
}

// digestNote says in one line what digesting a thread did, for the trace
// and the import summary.
func digestNote(d threadDigest) string {
	r := d.Result
	note := fmt.Sprintf("digested thread %s: %d new messages, %d state items inserted, %d merged, %d superseded, %d facts",
		d.Thread, r.State.Messages, r.State.ItemsInserted, r.State.ItemsMerged, r.State.ItemsSuperseded, r.State.FactsWritten)
	if r.Summary != nil && (r.Summary.Rolling != nil || len(r.Summary.Sessions) > 0) {
		n := len(r.Summary.Sessions)
		if r.Summary.Rolling != nil {
			n++
		}
		note += fmt.Sprintf(", %d summaries written", n)
	}
	if v := r.Vectors; v != nil && v.Embedded > 0 {
		note += fmt.Sprintf(", %s embedded", plural(v.Embedded, "message"))
	}
	if err := r.Err(); err != nil {
		note += " (failed: " + err.Error() + ")"
	}
	return note
}

// threadsOf returns the distinct threads of msgs, in order of appearance.
func threadsOf(msgs []tenure.Message) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m.ThreadID] {
			seen[m.ThreadID] = true
			out = append(out, m.ThreadID)
		}
	}
	return out
}

// did reports whether the digest read anything, wrote anything or failed.
func (d threadDigest) did() bool {
	r := d.Result
	return r.State.Messages > 0 || r.Err() != nil || (r.Summary != nil && (r.Summary.Rolling != nil || len(r.Summary.Sessions) > 0)) ||
		(r.Vectors != nil && r.Vectors.Embedded > 0)
}
