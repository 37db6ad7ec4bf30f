package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/snapshot"
)

var snapshotSpec = commandSpec{
	name:    "snapshot",
	args:    "start|delta|close|get|history",
	summary: "a multi-agent workflow's shared snapshot: start, delta, close, get, history",
	detail: `A workflow's snapshot is the state its agents share (docs/snapshots.md): the
query, bindings (term → concept id), entities, rules and whatever else agents
contribute. Round 0 holds the query; agents submit deltas for the open round;
closing the round aggregates them into the next snapshot with the workflow's
strategy (weighted-merge by default; majority-vote, highest-weight, union,
expert-override), keeps the state under its size limit and says whether the
workflow converged.

  snapshot start --workflow W --query Q [--strategy S] [--max-bytes N] ...
  snapshot delta --workflow W [--agent A] --round N --weight W --op OP
                 --path JSONPATH [--value JSON] --provenance TEXT
  snapshot close --workflow W [--round N]   what changed, conflicts, converged
  snapshot get --workflow W [--round N] [--binding TERM]
  snapshot history --workflow W --path JSONPATH

A delta's agent is its caller: --agent acts as that agent on a local --db;
over --server the API key is the agent. --value is JSON: quote a string
('"sea:customer:001"'). Paths are RFC 9535 JSONPath ($.bindings.customer,
$.entities[?@.type == 'customer']); add appends when the path names an
array. A bound concept id changes only with --op rebind, its reason in
--provenance. The workflow's creator closes its rounds.`,
	new: func() subcommand { return new(snapshotCmd) },
}

type snapshotCmd struct {
	common
	workflow string
	// start
	query, strategy, onViolation, clipping, classification, config string
	maxBytes                                                       byteSize
	maxStringBytes, maxEntities, maxRules                          int
	threshold                                                      float64
	pathStrategies, experts                                        stringList
	// delta
	agent, op, path, value, provenance, weight string
	round                                      int
	// get
	binding string
}

// snapshotFlags are the flags of each action besides --workflow and the
// common ones.
var snapshotFlags = map[string][]string{
	"start": {"query", "strategy", "max-bytes", "on-violation", "clip", "max-string-bytes", "max-entities", "max-rules",
		"threshold", "path-strategy", "expert", "classification", "config"},
	"delta":   {"agent", "round", "weight", "op", "path", "value", "provenance"},
	"close":   {"round"},
	"get":     {"round", "binding"},
	"history": {"path"},
}

func (c *snapshotCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.workflow, "workflow", "", "the workflow's `id` (required)")
	fs.StringVar(&c.query, "query", "", "start: the original user `query` (required)")
	fs.StringVar(&c.strategy, "strategy", "", "start: the aggregation `strategy`: "+joinVocab(snapshot.Strategies)+" (default weighted-merge)")
	c.maxBytes = byteSize{n: snapshot.DefaultMaxStateSize, bareUnit: 1}
	fs.Var(&c.maxBytes, "max-bytes", "start: the state's size `limit` in bytes, or with a unit (64KiB)")
	fs.StringVar(&c.onViolation, "on-violation", "", "start: over the limit, `clip` or reject (default clip)")
	fs.StringVar(&c.clipping, "clip", "", "start: clipping `strategies` in order, comma-separated: "+joinVocab(snapshot.ClipStrategies)+
		" (default truncate-strings; drop-lowest-weight always runs last)")
	fs.IntVar(&c.maxStringBytes, "max-string-bytes", 0, "start: what truncate-strings leaves of a long string, in `bytes` (default 512)")
	fs.IntVar(&c.maxEntities, "max-entities", 0, "start: keep at most `n` entities, evicting the oldest")
	fs.IntVar(&c.maxRules, "max-rules", 0, "start: keep at most `n` rules, evicting the oldest")
	fs.Float64Var(&c.threshold, "threshold", 0, "start: a round that changes less than this `share` of the state converges (default: only a round that changes nothing)")
	fs.Var(&c.pathStrategies, "path-strategy", "start: `PREFIX=STRATEGY`, a strategy under a path prefix such as $.entities=union (repeatable)")
	fs.Var(&c.experts, "expert", "start: `PREFIX=AGENT[,AGENT]`, the agents (ids or roles) that win under a prefix with expert-override (repeatable)")
	fs.StringVar(&c.classification, "classification", "", "start: the clearance `level` needed to see the workflow (default public)")
	fs.StringVar(&c.config, "config", "", "start: the workflow's configuration as a JSON `file` (the flags override it)")
	fs.StringVar(&c.agent, "agent", "", "delta: act as this `agent` (a local --db only; over --server the key is the agent)")
	fs.IntVar(&c.round, "round", 0, "delta: the open `round`; close: refuse unless this round is open; get: a past round's snapshot")
	fs.StringVar(&c.weight, "weight", "", "delta: the router-assigned `weight`, in [0, 1] (required)")
	fs.StringVar(&c.op, "op", "", "delta: the `operation`: "+joinVocab(snapshot.Operations))
	fs.StringVar(&c.path, "path", "", "delta, history: a `JSONPath` such as $.bindings.customer")
	fs.StringVar(&c.value, "value", "", "delta: the new value as `JSON` (not for remove)")
	fs.StringVar(&c.provenance, "provenance", "", "delta: why this change, as `text` (required; for rebind, the reason)")
	fs.StringVar(&c.binding, "binding", "", "get: print only the concept id bound to this `term`")
}

func (c *snapshotCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if len(args) != 1 || snapshotFlags[args[0]] == nil {
		return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure snapshot start|delta|close|get|history [flags] (see tenure help snapshot)")
	}
	action := args[0]
	var bad string
	c.fs.Visit(func(f *flag.Flag) {
		if bad == "" && f.Name != "workflow" && !isCommonFlag(f.Name) && !slices.Contains(snapshotFlags[action], f.Name) {
			bad = f.Name
		}
	})
	if bad != "" {
		return tenure.Errorf(tenure.CodeInvalid, "--"+bad, "does not apply to snapshot %s", action)
	}
	if c.workflow == "" {
		return tenure.Errorf(tenure.CodeInvalid, "--workflow", "required: the workflow's id")
	}
	if c.agent != "" && c.serverURL() != "" {
		return tenure.Errorf(tenure.CodeInvalid, "--agent", "applies to a local --db only: over --server the API key is the agent")
	}
	if c.agent != "" && c.set("user") {
		return tenure.Errorf(tenure.CodeInvalid, "--agent", "give --agent or --user, not both")
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	if c.agent != "" {
		// Acting as an agent is not acting as the owner: its permissions
		// do not carry over unless --permissions says so.
		p.UserID = c.agent
		if !c.set("permissions") {
			p.Permissions = nil
		}
		if err := p.Validate(tenure.DefaultHierarchy); err != nil {
			return prefixField("--agent: ", err)
		}
	}
	var w snapshot.Workflow
	var d snapshot.Delta
	switch action {
	case "start":
		if w, err = c.workflowConfig(); err != nil {
			return err
		}
	case "delta":
		if d, err = c.delta(); err != nil {
			return err
		}
	case "history":
		if c.path == "" {
			return tenure.Errorf(tenure.CodeInvalid, "--path", "required: a JSONPath such as $.bindings.customer")
		}
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		switch action {
		case "start":
			snap, err := st.StartWorkflow(ctx, p, w)
			if err != nil {
				return flagField(err)
			}
			return c.output(sio, snap, func() error { return printStarted(sio.out, snap) })
		case "delta":
			res, err := st.SubmitDeltas(ctx, p, c.workflow, []snapshot.Delta{d})
			if err != nil {
				return flagField(err)
			}
			return c.output(sio, res, func() error { return printSubmitted(sio.out, res) })
		case "close":
			snap, err := st.CloseRound(ctx, p, c.workflow, c.round)
			if err != nil {
				return flagField(err)
			}
			return c.output(sio, snap, func() error { return printClosed(sio.out, snap) })
		case "get":
			return c.get(ctx, sio, st, p)
		}
		h, err := st.PathHistory(ctx, p, c.workflow, c.path)
		if err != nil {
			return flagField(err)
		}
		return c.output(sio, h, func() error { return printPathHistory(sio.out, h) })
	})
}

// workflowConfig builds the workflow to start from --config and the flags.
func (c *snapshotCmd) workflowConfig() (snapshot.Workflow, error) {
	var w snapshot.Workflow
	if c.config != "" {
		data, err := os.ReadFile(c.config)
		if err != nil {
			return w, &tenure.Error{Code: tenure.CodeInvalid, Field: "--config", Message: "cannot read the workflow configuration", Err: err}
		}
		if w, err = parseOne[snapshot.Workflow](data, "workflow configuration"); err != nil {
			return w, prefixField("--config: ", err)
		}
	}
	w.WorkflowID = c.workflow
	if c.query != "" {
		w.Query = c.query
	}
	if w.Query == "" {
		return w, tenure.Errorf(tenure.CodeInvalid, "--query", "required: the original user query")
	}
	set := func(name string, fn func()) {
		if c.set(name) {
			fn()
		}
	}
	set("strategy", func() { w.Strategy = snapshot.Strategy(c.strategy) })
	set("max-bytes", func() { w.MaxStateSize = int(min(c.maxBytes.n, snapshot.MaxMaxStateSize+1)) })
	set("on-violation", func() { w.OnViolation = c.onViolation })
	set("max-string-bytes", func() { w.MaxStringBytes = c.maxStringBytes })
	set("max-entities", func() { w.MaxEntities = c.maxEntities })
	set("max-rules", func() { w.MaxRules = c.maxRules })
	set("threshold", func() { w.ConvergenceThreshold = c.threshold })
	set("classification", func() { w.SecurityClassification = tenure.Classification(c.classification) })
	set("clip", func() {
		w.Clipping = nil
		for _, s := range splitList(c.clipping) {
			w.Clipping = append(w.Clipping, snapshot.ClipStrategy(s))
		}
	})
	for _, ps := range c.pathStrategies {
		prefix, s, ok := strings.Cut(ps, "=")
		if !ok {
			return w, tenure.Errorf(tenure.CodeInvalid, "--path-strategy", "want PREFIX=STRATEGY, such as $.entities=union, got %q", ps)
		}
		if w.PathStrategies == nil {
			w.PathStrategies = map[string]snapshot.Strategy{}
		}
		w.PathStrategies[prefix] = snapshot.Strategy(s)
	}
	for _, e := range c.experts {
		prefix, agents, ok := strings.Cut(e, "=")
		if !ok {
			return w, tenure.Errorf(tenure.CodeInvalid, "--expert", "want PREFIX=AGENT[,AGENT], such as $.bindings=semantic-mapper, got %q", e)
		}
		w.Experts = append(w.Experts, snapshot.Expert{Path: prefix, Agents: splitList(agents)})
	}
	return w, nil
}

// delta builds the delta of the flags.
func (c *snapshotCmd) delta() (snapshot.Delta, error) {
	d := snapshot.Delta{Round: c.round, Operation: snapshot.Operation(c.op), Path: c.path, Provenance: c.provenance}
	for _, f := range []string{"round", "weight", "op", "path", "provenance"} {
		if !c.set(f) {
			return d, tenure.Errorf(tenure.CodeInvalid, "--"+f, "required for snapshot delta")
		}
	}
	w, err := strconv.ParseFloat(c.weight, 64)
	if err != nil {
		return d, tenure.Errorf(tenure.CodeInvalid, "--weight", "want a number in [0, 1], got %q", c.weight)
	}
	d.Weight = &w
	if c.set("value") {
		if !json.Valid([]byte(c.value)) {
			return d, tenure.Errorf(tenure.CodeInvalid, "--value", "not JSON: quote a string ('\"sea:customer:001\"'), got %q", c.value)
		}
		d.Value = json.RawMessage(c.value)
	}
	return d, nil
}

func (c *snapshotCmd) get(ctx context.Context, sio stdio, st backend, p tenure.Principal) error {
	if c.binding != "" {
		if c.set("round") {
			return tenure.Errorf(tenure.CodeInvalid, "--binding", "reads the current snapshot: leave out --round")
		}
		b, err := st.Binding(ctx, p, c.workflow, c.binding)
		if err != nil {
			return flagField(err)
		}
		return c.output(sio, b, func() error { _, err := fmt.Fprintln(sio.out, b.ConceptID); return err })
	}
	var r snapshot.Read
	if c.set("round") {
		r.Round = &c.round
	}
	snap, err := st.Snapshot(ctx, p, c.workflow, r)
	if err != nil {
		return flagField(err)
	}
	return c.output(sio, snap, func() error { return printSnapshot(sio.out, snap) })
}

// snapshotFlagFields maps the store's field names to the command's flags.
var snapshotFlagFields = map[string]string{"workflowId": "--workflow", "agentId": "--agent", "round": "--round", "weight": "--weight",
	"operation": "--op", "path": "--path", "value": "--value", "provenance": "--provenance", "query": "--query", "strategy": "--strategy",
	"maxStateSize": "--max-bytes", "onViolation": "--on-violation", "maxStringBytes": "--max-string-bytes", "maxEntities": "--max-entities",
	"maxRules": "--max-rules", "convergenceThreshold": "--threshold", "securityClassification": "--classification", "term": "--binding",
	"pathStrategies": "--path-strategy", "experts": "--expert", "clipping": "--clip"}

// flagField names an error's field by the flag that gave it ("[0].weight"
// is --weight).
func flagField(err error) error {
	te := *tenure.AsError(err)
	name := strings.TrimPrefix(te.Field, "[0].")
	if i := strings.IndexAny(name, ".["); i > 0 {
		name = name[:i]
	}
	flag, ok := snapshotFlagFields[name]
	if !ok {
		return err
	}
	te.Field = flag
	return &te
}

func printStarted(w io.Writer, s snapshot.Snapshot) error {
	wf := s.Workflow
	_, err := fmt.Fprintf(w, "started workflow %s: round 0, round %d open; %s, at most %d bytes (%s)\n", s.WorkflowID, s.OpenRound,
		wf.Strategy, s.MaxStateSize, wf.OnViolation)
	return err
}

func printSubmitted(w io.Writer, res snapshot.SubmitResult) error {
	var b bytes.Buffer
	for _, d := range res.Deltas {
		what := "accepted"
		if res.Duplicates > 0 {
			what = "already submitted"
		}
		fmt.Fprintf(&b, "%s %s for round %d: %s %s by %s (weight %s) at %s\n", what, d.ID, res.Round, d.Operation, d.Path, d.AgentID,
			strconv.FormatFloat(d.W(), 'f', -1, 64), strings.Join(d.Targets, ", "))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// printClosed prints what closing a round did: counts, what changed, the
// conflicts, what was clipped and whether the workflow converged.
func printClosed(w io.Writer, s snapshot.Snapshot) error {
	var b bytes.Buffer
	rep := s.Report
	fmt.Fprintf(&b, "closed round %d of %s: %s (%d applied, %d partial, %d lost, %d clipped, %d rejected); state %d of %d bytes; round %d open\n",
		s.Round, s.WorkflowID, plural(rep.Deltas, "delta"), rep.Applied, rep.Partial, rep.Lost, rep.Clipped, rep.Rejected, s.StateSize,
		s.MaxStateSize, s.OpenRound)
	if len(rep.Changes) == 0 {
		b.WriteString("changes: none\n")
	} else {
		b.WriteString("changes:\n")
		t := newTable(&b)
		for _, ch := range rep.Changes {
			switch ch.Kind {
			case snapshot.Removed:
				fmt.Fprintf(t, "  %s\t%s\t(was %s)\n", ch.Kind, ch.Path, clip(string(ch.Before), 60))
			case snapshot.Modified:
				fmt.Fprintf(t, "  %s\t%s\t%s → %s\n", ch.Kind, ch.Path, clip(string(ch.Before), 40), clip(string(ch.After), 40))
			default:
				fmt.Fprintf(t, "  %s\t%s\t%s\n", ch.Kind, ch.Path, clip(string(ch.After), 60))
			}
		}
		t.Flush()
	}
	for _, c := range rep.Conflicts {
		var won []string
		for _, wr := range c.Winners {
			won = append(won, fmt.Sprintf("%s (%s)", wr.AgentID, strconv.FormatFloat(wr.Weight, 'f', -1, 64)))
		}
		fmt.Fprintf(&b, "conflict at %s (%s): %s won\n", c.Path, c.Strategy, strings.Join(won, ", "))
		for _, l := range c.Losers {
			fmt.Fprintf(&b, "  %s (%s) lost: %s", l.AgentID, strconv.FormatFloat(l.Weight, 'f', -1, 64), l.Reason)
			if l.Detail != "" {
				fmt.Fprintf(&b, " — %s", l.Detail)
			}
			b.WriteString("\n")
		}
	}
	for _, r := range rep.Rebinds {
		fmt.Fprintf(&b, "rebind %s: %s → %s by %s (%s)\n", r.Term, r.From, r.To, r.AgentID, r.Reason)
	}
	for _, c := range rep.Clips {
		fmt.Fprintf(&b, "clipped %s by %s (%d bytes): %s\n", c.Path, c.Strategy, c.Bytes, c.Detail)
	}
	fmt.Fprintf(&b, "converged: %v (changed %d bytes, %.1f%% of the state)\n", rep.Converged, rep.ChangedBytes, 100*rep.ChangeRatio)
	_, err := w.Write(b.Bytes())
	return err
}

// printSnapshot prints a snapshot's header and its state as JSON.
func printSnapshot(w io.Writer, s snapshot.Snapshot) error {
	converged := "not converged"
	if s.Converged {
		converged = "converged"
	}
	state, err := json.MarshalIndent(s.State, "", "  ")
	if err != nil {
		return tenure.Internal("encode state", err)
	}
	_, err = fmt.Fprintf(w, "workflow %s, round %d (round %d open), %d of %d bytes, %s, %s\n%s\n", s.WorkflowID, s.Round, s.OpenRound,
		s.StateSize, s.MaxStateSize, converged, plural(len(s.Deltas), "delta"), state)
	return err
}

// printPathHistory prints one line per delta: "Round N: agent → value
// (…)".
func printPathHistory(w io.Writer, h snapshot.PathHistory) error {
	var b bytes.Buffer
	if len(h.Deltas) == 0 {
		fmt.Fprintf(&b, "no delta touched %s\n", h.Path)
	}
	for _, d := range h.Deltas {
		b.WriteString(d.String() + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}
