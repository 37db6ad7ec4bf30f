package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

var listSpec = commandSpec{
	name:    "list",
	summary: "the latest versions of the objects matching filters",
	detail: `Objects are listed the oldest stored first (--newest: the most recently stored
first), at most --limit of them. When more may follow, a last line on
standard error gives the cursor that continues the listing: run the same
command with --cursor and it (the page after it may be empty).`,
	new: func() subcommand { return new(listCmd) },
}

// statusAll is the --status value that lists every status.
const statusAll = "all"

type listCmd struct {
	common
	layer, scopeKind, status, objectType, prefix string
	author, validAt, txFrom, txUntil, cursor     string
	newest                                       bool
	limit                                        int
}

func (c *listCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.layer, "layer", "", "only objects in this `layer`")
	fs.StringVar(&c.scopeKind, "scope", "", "only objects of this scope `kind` (global, task, hypothetical, draft, session)")
	fs.StringVar(&c.status, "status", string(tenure.StatusActive), "only objects with this `status`; all for every status")
	fs.StringVar(&c.objectType, "type", "", "only objects of this object_type (`type`)")
	fs.StringVar(&c.prefix, "prefix", "", "only keys starting with `prefix`")
	fs.StringVar(&c.author, "author", "", "only objects written by this principal (`user` id)")
	fs.StringVar(&c.validAt, "valid-at", "", "only objects true at valid `time`")
	fs.StringVar(&c.txFrom, "tx-from", "", "only objects whose latest version was stored at or after `time`")
	fs.StringVar(&c.txUntil, "tx-until", "", "only objects whose latest version was stored before `time`")
	fs.BoolVar(&c.newest, "newest", false, "the most recently stored objects first")
	fs.StringVar(&c.cursor, "cursor", "", "continue a listing from this `cursor` (printed by the previous run)")
	fs.IntVar(&c.limit, "limit", 0, "at most `n` objects (default 100, at most 10000)")
}

// filter validates the filter flags into a tenure.Filter.
func (c *listCmd) filter(s tenure.Scope) (tenure.Filter, error) {
	f := tenure.Filter{Scope: s, KeyPrefix: c.prefix, Author: c.author, Newest: c.newest, Cursor: c.cursor, Limit: c.limit}
	var err error
	for _, t := range []struct {
		flag, v string
		at      **time.Time
	}{{"--valid-at", c.validAt, &f.ValidAt}, {"--tx-from", c.txFrom, &f.TxFrom}, {"--tx-until", c.txUntil, &f.TxUntil}} {
		if *t.at, err = tenure.ParseTime(t.flag, t.v); err != nil {
			return f, err
		}
	}
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
	if err := f.Validate(); err != nil {
		if field := tenure.AsError(err).Field; field == "author" || field == "cursor" {
			return f, prefixField("--", err)
		}
		return f, err
	}
	return f, nil
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
		objs, next, err := listPages(ctx, st, p, f)
		if err != nil {
			return err
		}
		if err := c.output(sio, objs, func() error { return printList(sio.out, objs) }); err != nil {
			return err
		}
		if next != "" {
			_, err = fmt.Fprintf(sio.err, "more may follow: continue with --cursor %s\n", next)
		}
		return err
	})
}

// listPages lists the first f.Limit (default 100) objects from f.Cursor
// on, page by page (a page may hold fewer objects than asked for and
// still have a next one), and returns the cursor that continues after
// them (empty when the listing is complete).
func listPages(ctx context.Context, st backend, p tenure.Principal, f tenure.Filter) ([]tenure.Object, string, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 100
	}
	objs := []tenure.Object{}
	for {
		f.Limit = limit - len(objs)
		pg, err := st.ListPage(ctx, p, f)
		if err != nil {
			return nil, "", err
		}
		objs = append(objs, pg.Objects...)
		if pg.Next == "" || len(objs) >= limit {
			return objs, pg.Next, nil
		}
		f.Cursor = pg.Next
	}
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
