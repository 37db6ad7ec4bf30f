package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

var expandSpec = commandSpec{
	name:    "expand",
	args:    "UID",
	summary: "show a structured state item with the messages it came from",
	detail: "EXPAND reads like any other read: an item or message the principal may not see is\n" +
		"reported as missing. --thread is needed only when the uid exists in several threads.",
	new: func() subcommand { return new(expandCmd) },
}

type expandCmd struct {
	common
	thread string
}

func (c *expandCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.thread, "thread", "", "thread `id` of the item")
}

func (c *expandCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(expandSpec, args, 1); err != nil {
		return err
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		x, err := st.Expand(ctx, p, tenure.ExpandRequest{UID: args[0], ThreadID: c.thread})
		if err != nil {
			return err
		}
		return c.output(sio, x, func() error {
			it := x.Item
			fmt.Fprintf(sio.out, "[%s] %s (%s) %s\n", it.UID, it.Type, it.Status, it.Text)
			for _, m := range x.Messages {
				fmt.Fprintf(sio.out, "  %s  %s  %s: %s\n", m.ID, m.CreatedAt.Format("2006-01-02 15:04"), speakerName(m), m.Text())
			}
			for _, id := range x.Missing {
				fmt.Fprintf(sio.out, "  %s  (missing or not visible)\n", id)
			}
			return nil
		})
	})
}

func speakerName(m tenure.Message) string {
	if m.Speaker != "" {
		return m.Speaker
	}
	return m.Role
}
