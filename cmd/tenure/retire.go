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

var retireSpec = commandSpec{
	name:    "retire",
	summary: "run the retirement sweep, or retire --id objects now",
	detail: `The sweep retires every visible object whose decay weight fell below its
threshold, or whose valid time ended, by its own retirement_rule. With --id it
retires those objects by --rule instead (default archive).`,
	new: func() subcommand { return new(retireCmd) },
}

type retireCmd struct {
	common
	dryRun bool
	ids    stringList
	rule   string
}

func (c *retireCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.BoolVar(&c.dryRun, "dry-run", false, "report what would be retired without retiring it")
	fs.Var(&c.ids, "id", "retire the object with this `id` now (repeatable)")
	fs.StringVar(&c.rule, "rule", "", "retirement `rule` for --id objects: archive, hard_delete, demote_to_archival, trigger_user_confirmation")
}

// options validates the flags into retirement options.
func (c *retireCmd) options(s tenure.Scope) (tenure.RetireOptions, error) {
	opt := tenure.RetireOptions{Scope: s, DryRun: c.dryRun, ObjectIDs: c.ids}
	if c.rule == "" {
		return opt, nil
	}
	if len(c.ids) == 0 {
		return opt, tenure.Errorf(tenure.CodeInvalid, "--rule", "applies only with --id; the sweep uses each object's own retirement_rule")
	}
	var err error
	opt.Rule, err = tenure.ParseVocab("--rule", c.rule, tenure.RetirementRules)
	return opt, err
}

func (c *retireCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(retireSpec, args, 0); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	opt, err := c.options(s)
	if err != nil {
		return fmt.Errorf("retire: %w", err)
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		rep, err := st.Retire(ctx, p, opt)
		if err != nil {
			return err
		}
		return c.output(sio, rep, func() error { return printRetire(sio.out, rep) })
	})
}

// printRetire prints a summary line and one line per retirement.
func printRetire(w io.Writer, rep tenure.RetireReport) error {
	var b bytes.Buffer
	verb := "retired"
	if rep.DryRun {
		verb = "dry run: would retire"
	}
	fmt.Fprintf(&b, "%s %s of %s scanned at %s\n", verb, plural(len(rep.Actions), "object"), plural(rep.Scanned, "object"), stamp(rep.At))
	t := newTable(&b)
	for _, a := range rep.Actions {
		rule := string(a.Rule)
		if rule == "" {
			rule = "clear"
		}
		fmt.Fprintf(t, "  %s\t%s\t%s\tweight %.3f\t%s", rule, a.Key, a.Reason, a.Weight, a.ObjectID)
		if a.ResolutionID != "" {
			fmt.Fprintf(t, "\tresolution %s", a.ResolutionID)
		}
		fmt.Fprintln(t)
	}
	t.Flush()
	_, err := w.Write(b.Bytes())
	return err
}
