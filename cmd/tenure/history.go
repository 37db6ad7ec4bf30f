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

var historySpec = commandSpec{
	name:    "history",
	args:    "KEY",
	summary: "every version stored under KEY, and its supersession chain",
	new:     func() subcommand { return new(historyCmd) },
}

type historyCmd struct{ common }

func (c *historyCmd) define(fs *flag.FlagSet) { c.common.define(fs) }

func (c *historyCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(historySpec, args, 1); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		h, err := st.History(ctx, p, args[0], s)
		if err != nil {
			return err
		}
		return c.output(sio, h, func() error { return printHistory(sio.out, h) })
	})
}

// printHistory prints one line per version with both timelines, then the
// chain of objects linked by supersession and any hard deletes.
func printHistory(w io.Writer, h tenure.History) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %s\n", h.Key, plural(len(h.Versions), "version"))
	t := newTable(&b)
	for _, o := range h.Versions {
		fmt.Fprintf(t, "  v%d\t%s\t%s = %s\ttx [%s, %s)\tvalid [%s, %s)\t%s\n", o.Version, o.Status, o.Key, clip(valueText(&o), 40),
			stamp(o.TxStart), openStamp(o.TxEnd), stamp(o.ValidFrom), openStamp(o.ValidUntil), o.ObjectID)
	}
	t.Flush()
	if len(h.Chain) > 0 {
		b.WriteString("chain:\n")
		t = newTable(&b)
		for _, l := range h.Chain {
			fmt.Fprintf(t, "  %s = %s\t%s\tvalid [%s, %s)\t%s", l.Key, clip(tenure.ValueText(l.Value), 40), l.Status,
				stamp(l.ValidFrom), openStamp(l.ValidUntil), l.ObjectID)
			if l.SupersededBy != "" {
				fmt.Fprintf(t, "\tsuperseded by %s", l.SupersededBy)
			}
			fmt.Fprintln(t)
		}
		t.Flush()
	}
	for _, d := range h.Deletions {
		fmt.Fprintf(&b, "deleted: %s (%s) by %s at %s, %s\n", d.ObjectID, plural(d.Versions, "version"), d.DeletedBy, stamp(d.DeletedAt), d.Reason)
	}
	_, err := w.Write(b.Bytes())
	return err
}
