package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/memory"
)

var memoriesSpec = commandSpec{
	name:    "memories",
	args:    "list|pin|unpin|importance",
	summary: "list memories, pin or unpin one, set its importance",
	detail: `Memories are profile, people and project facts (docs/memories.md), keyed by
their memory key (type|entity type|entity|fact type): a memory stated again
is updated, never duplicated.

  memories list [--entity REF] [--type T] [--archived]
                          pinned first, then importance, then recency
  memories pin ID         pinned: importance 3, always in the foundation set
                          and on entity cards, never archived by the curator
  memories unpin ID
  memories importance ID N
                          0 trivial, 1 standard, 2 significant (on entity
                          cards), 3 core identity

Each change is a new version of the memory.`,
	new: func() subcommand { return new(memoriesCmd) },
}

type memoriesCmd struct {
	common
	entity, kind string
	archived     bool
	limit        int
}

func (c *memoriesCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.entity, "entity", "", "list: memories about this entity `ref` (person:john_doe)")
	fs.StringVar(&c.kind, "type", "", "list: memories of this `type`: "+joinVocab(tenure.MemoryKinds))
	fs.BoolVar(&c.archived, "archived", false, "list: include archived memories")
	fs.IntVar(&c.limit, "limit", 0, "list: at most `n` memories (default 100)")
}

// memoriesArgs is the number of arguments of each action.
var memoriesArgs = map[string]int{"list": 0, "pin": 1, "unpin": 1, "importance": 2}

func (c *memoriesCmd) exec(ctx context.Context, sio stdio, args []string) error {
	n, ok := 0, false
	if len(args) > 0 {
		n, ok = memoriesArgs[args[0]]
	}
	if !ok || len(args) != n+1 {
		return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure memories list|pin ID|unpin ID|importance ID N (see tenure help memories)")
	}
	action := args[0]
	var bad string
	c.fs.Visit(func(f *flag.Flag) {
		if bad == "" && action != "list" && !isCommonFlag(f.Name) {
			bad = f.Name
		}
	})
	if bad != "" {
		return tenure.Errorf(tenure.CodeInvalid, "--"+bad, "does not apply to memories %s", action)
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	q := memory.Query{Scope: s, Kind: tenure.MemoryKind(c.kind), Entity: c.entity, Archived: c.archived, Limit: c.limit}
	if action == "list" {
		if err := q.Validate(); err != nil {
			return prefixField("--", err)
		}
	}
	importance := 0
	if action == "importance" {
		if importance, err = strconv.Atoi(args[2]); err != nil || importance < 0 || importance > 3 {
			return tenure.Errorf(tenure.CodeInvalid, "importance", "%q is not an importance: 0, 1, 2 or 3", args[2])
		}
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		var res tenure.WriteResult
		var err error
		switch action {
		case "list":
			objs, err := memory.List(ctx, st, p, q)
			if err != nil {
				return err
			}
			if objs == nil {
				objs = []tenure.Object{}
			}
			return c.output(sio, objs, func() error { return printMemories(sio.out, objs) })
		case "pin", "unpin":
			res, err = memory.SetPinned(ctx, st, p, args[1], action == "pin")
		case "importance":
			res, err = memory.SetImportance(ctx, st, p, args[1], importance)
		}
		if err != nil {
			return err
		}
		return c.output(sio, res, func() error { return printMemories(sio.out, []tenure.Object{res.Object}) })
	})
}

// printMemories prints one line per memory: its id, status, importance
// (with a pin), memory key and content.
func printMemories(w io.Writer, objs []tenure.Object) error {
	var b bytes.Buffer
	if len(objs) == 0 {
		b.WriteString("no memories\n")
	}
	t := newTable(&b)
	for _, o := range objs {
		m := o.Memory
		imp := strconv.Itoa(m.EffectiveImportance())
		if m.Pinned {
			imp += " pinned"
		}
		refs := slices.Clone(m.EntityRefs)
		fmt.Fprintf(t, "%s\t%s\timportance %s\t%s\t%s\t%s\n", o.ObjectID, o.MemoryStatus(), imp, o.Key,
			strings.Join(refs, ","), oneLineText(o.Content))
	}
	t.Flush()
	_, err := w.Write(b.Bytes())
	return err
}

// oneLineText collapses whitespace so that a value prints on one line.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
