package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

var resolutionsSpec = commandSpec{
	name:    "resolutions",
	summary: "open resolution requests (conflicts, confirmations)",
	new:     func() subcommand { return new(resolutionsCmd) },
}

type resolutionsCmd struct {
	common
	all bool
}

func (c *resolutionsCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.BoolVar(&c.all, "all", false, "include resolved requests")
}

func (c *resolutionsCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(resolutionsSpec, args, 0); err != nil {
		return err
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		rs, err := st.Resolutions(ctx, p, !c.all)
		if err != nil {
			return err
		}
		if rs == nil {
			rs = []tenure.Resolution{}
		}
		return c.output(sio, rs, func() error { return printResolutions(sio.out, rs, c.all) })
	})
}

// printResolutions prints the requests as a table.
func printResolutions(w io.Writer, rs []tenure.Resolution, all bool) error {
	var b bytes.Buffer
	if len(rs) == 0 {
		if all {
			b.WriteString("no resolution requests\n")
		} else {
			b.WriteString("no open resolution requests\n")
		}
	} else {
		t := newTable(&b)
		fmt.Fprintln(t, "ID\tKIND\tKEY\tREASON\tOBJECTS\tCREATED\tRESOLVED")
		for _, r := range rs {
			resolved := "open"
			if r.ResolvedAt != nil {
				resolved = stamp(*r.ResolvedAt) + " by " + r.ResolvedBy
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, r.Key, r.Reason, strings.Join(r.ObjectIDs, ","), stamp(r.CreatedAt), resolved)
		}
		t.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}
