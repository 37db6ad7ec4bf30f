package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tenure-dev/tenure/compile"
)

var endSessionSpec = commandSpec{
	name:    "end-session",
	args:    "SESSION_ID",
	summary: "clear a session's working set",
	new:     func() subcommand { return new(endSessionCmd) },
}

type endSessionCmd struct{ common }

func (c *endSessionCmd) define(fs *flag.FlagSet) { c.common.define(fs) }

// endSessionResult is end-session's JSON output.
type endSessionResult struct {
	SessionID string `json:"session_id"`
	Cleared   int    `json:"cleared"`
}

func (c *endSessionCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(endSessionSpec, args, 1); err != nil {
		return err
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		n, err := st.EndSession(ctx, p, args[0])
		if err != nil {
			return err
		}
		res := endSessionResult{SessionID: args[0], Cleared: n}
		return c.output(sio, res, func() error {
			_, err := fmt.Fprintf(sio.out, "session %s ended: cleared %s\n", res.SessionID, plural(n, "working-set item"))
			return err
		})
	})
}
