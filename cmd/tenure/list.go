package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

var listSpec = commandSpec{
	name:    "list",
	summary: "the latest versions of the objects matching filters",
	new:     func() subcommand { return new(listCmd) },
}

// statusAll is the --status value that lists every status.
const statusAll = "all"

type listCmd struct {
	common
	layer, scopeKind, status, objectType, prefix string
	limit                                        int
}

func (c *listCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.layer, "layer", "", "only objects in this `layer`")
	fs.StringVar(&c.scopeKind, "scope", "", "only objects of this scope `kind` (global, task, hypothetical, draft, session)")
	fs.StringVar(&c.status, "status", string(tenure.StatusActive), "only objects with this `status`; all for every status")
	fs.StringVar(&c.objectType, "type", "", "only objects of this object_type (`type`)")
	fs.StringVar(&c.prefix, "prefix", "", "only keys starting with `prefix`")
	fs.IntVar(&c.limit, "limit", 0, "at most `n` objects (default 100, at most 10000)")
}

// filter validates the filter flags into a tenure.Filter.
func (c *listCmd) filter(s tenure.Scope) (tenure.Filter, error) {
	f := tenure.Filter{Scope: s, KeyPrefix: c.prefix, Limit: c.limit}
	var err error
	if c.layer != "" {
		if f.Layer, err = tenure.ParseVocab("--layer", c.layer, tenure.Layers); err != nil {
			return f, err
		}
	}
	if c.scopeKind != "" {
		if f.ScopeKind, err = tenure.ParseVocab("--scope", c.scopeKind, tenure.ScopeKinds); err != nil {
			return f, err
		}
	}
	if c.status != statusAll {
		if f.Status, err = tenure.ParseVocab("--status", c.status, tenure.Statuses); err != nil {
			return f, err
		}
	}
	if c.objectType != "" {
		if f.ObjectType, err = tenure.ParseVocab("--type", c.objectType, tenure.ObjectTypes); err != nil {
			return f, err
		}
	}
	if c.limit < 0 || c.limit > 10000 {
		return f, tenure.Errorf(tenure.CodeInvalid, "--limit", "must be between 0 and 10000, got %d", c.limit)
	}
	return f, f.Validate()
}

func (c *listCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(listSpec, args, 0); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	f, err := c.filter(s)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		objs, err := st.List(ctx, p, f)
		if err != nil {
			return err
		}
		if objs == nil {
			objs = []tenure.Object{}
		}
		return c.output(sio, objs, func() error { return printList(sio.out, objs) })
	})
}

// printList prints the objects as a table.
func printList(w io.Writer, objs []tenure.Object) error {
	var b bytes.Buffer
	if len(objs) == 0 {
		b.WriteString("no objects\n")
	} else {
		t := newTable(&b)
		fmt.Fprintln(t, "KEY\tVALUE\tSTATUS\tLAYER\tTYPE\tSCOPE\tV\tVALID FROM\tOBJECT ID")
		for _, o := range objs {
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", o.Key, clip(valueText(&o), 40), o.Status, o.Layer,
				o.ObjectType, o.Scope, o.Version, stamp(o.ValidFrom), o.ObjectID)
		}
		t.Flush()
		fmt.Fprintln(&b, plural(len(objs), "object"))
	}
	_, err := w.Write(b.Bytes())
	return err
}
