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

var sessionsSpec = commandSpec{
	name:    "sessions",
	args:    "list|show THREAD SESSION|state",
	summary: "conversation sessions and the session state of a user and persona",
	detail: `list shows the sessions of the principal's user that its persona may see
(--persona's and those with no persona), the latest activity first: each
is created by its first message and closed after 30 minutes of inactivity,
or by 'tenure end-session'. show THREAD SESSION shows one; state shows the
session state of the user with the persona: message count, last
interaction, the curator's last run and the rolling summary's diagnostics.
See docs/sessions.md.`,
	new: func() subcommand { return new(sessionsCmd) },
}

type sessionsCmd struct {
	common
	thread string
	active bool
	limit  int
}

func (c *sessionsCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.thread, "thread", "", "list: only this thread's `id`")
	fs.BoolVar(&c.active, "active", false, "list: only sessions still open")
	fs.IntVar(&c.limit, "limit", 0, "list: at most `n` sessions (default 100)")
}

func (c *sessionsCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if len(args) == 0 {
		return tenure.Errorf(tenure.CodeInvalid, "", "want list, show THREAD SESSION or state")
	}
	want := map[string]int{"list": 1, "show": 3, "state": 1}
	n, ok := want[args[0]]
	if !ok {
		return tenure.Errorf(tenure.CodeInvalid, "", "unknown sessions command %q (want list, show or state)", args[0])
	}
	if len(args) != n {
		return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure sessions %s", sessionsSpec.args)
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		switch args[0] {
		case "list":
			ss, err := st.Sessions(ctx, p, tenure.SessionQuery{ThreadID: c.thread, Active: c.active, Limit: c.limit})
			if err != nil {
				return err
			}
			if ss == nil {
				ss = []tenure.Session{}
			}
			return c.output(sio, ss, func() error { return printSessions(sio.out, ss) })
		case "show":
			s, err := st.Session(ctx, p, args[1], args[2])
			if err != nil {
				return err
			}
			return c.output(sio, s, func() error { return printSessions(sio.out, []tenure.Session{s}) })
		}
		s, err := st.SessionState(ctx, p)
		if err != nil {
			return err
		}
		return c.output(sio, s, func() error { return printState(sio.out, s) })
	})
}

// printSessions prints sessions as a table.
func printSessions(w io.Writer, ss []tenure.Session) error {
	var b bytes.Buffer
	if len(ss) == 0 {
		b.WriteString("no sessions\n")
	} else {
		t := newTable(&b)
		fmt.Fprintln(t, "THREAD\tSESSION\tPERSONA\tTURNS\tSTARTED\tLAST ACTIVITY\tENDED\tSUMMARY")
		for _, s := range ss {
			ended := "active"
			if s.EndedAt != nil {
				ended = stamp(*s.EndedAt)
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.ThreadID, s.SessionID, orDash(s.PersonaID), s.TurnCount,
				stamp(s.StartedAt), stamp(s.LastActivityAt), ended, orDash(s.SummaryKey))
		}
		t.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

// printState prints a session state.
func printState(w io.Writer, s tenure.SessionState) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "persona: %s\nmessages: %d\n", orDash(s.PersonaID), s.MessageCount)
	if !s.LastInteraction.IsZero() {
		fmt.Fprintf(&b, "last interaction: %s\n", stamp(s.LastInteraction))
	}
	if s.LastUserMessage != "" {
		fmt.Fprintf(&b, "last user message: %s\n", s.LastUserMessage)
	}
	if s.Curator.LastRunAt != nil {
		fmt.Fprintf(&b, "curator: last run %s over %d memories\n", stamp(*s.Curator.LastRunAt), s.Curator.LastMemoryCountAtRun)
	}
	if s.LastRollingAttemptAt != nil {
		fmt.Fprintf(&b, "rolling summary: last attempt %s", stamp(*s.LastRollingAttemptAt))
		if s.LastRollingSuccessAt != nil {
			fmt.Fprintf(&b, ", last success %s", stamp(*s.LastRollingSuccessAt))
		}
		if e := s.LastRollingError; e != nil {
			fmt.Fprintf(&b, ", last error %s: %s", e.Reason, e.Detail)
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
