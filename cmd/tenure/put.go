package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

var putSpec = commandSpec{
	name:    "put",
	summary: "write objects from stdin: a JSON object, or an array (all or nothing)",
	detail: `Objects use the Context Object's JSON field names (key, value, content, layer,
valid_from, supersedes, ...); unknown fields, wrong types and malformed JSON are
rejected with the field or the line and column, and nothing is written.
Example: echo '{"key":"order.status","value":"shipped"}' | tenure put`,
	new: func() subcommand { return new(putCmd) },
}

type putCmd struct {
	common
	file string
}

func (c *putCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.file, "file", "", "read the objects from `file` instead of stdin (- is stdin)")
}

func (c *putCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(putSpec, args, 0); err != nil {
		return err
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	src, data, err := c.input(sio.in)
	if err != nil {
		return err
	}
	objs, batch, err := parseObjects(data)
	if err != nil {
		return fmt.Errorf("put: %s: %w", src, err)
	}
	for i := range objs {
		c.fillScope(&objs[i])
	}
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		if !batch {
			res, err := st.Put(ctx, p, objs[0])
			if err != nil {
				return err
			}
			return c.output(sio, res, func() error { return printWrites(sio.out, []tenure.WriteResult{res}) })
		}
		res, err := st.PutBatch(ctx, p, objs)
		if err != nil {
			return err
		}
		return c.output(sio, res, func() error { return printWrites(sio.out, res) })
	})
}

// input reads the objects' JSON from --file or stdin and names its source
// for error messages.
func (c *putCmd) input(stdin io.Reader) (string, []byte, error) {
	if c.file == "" || c.file == "-" {
		data, err := readInput(stdin)
		return "stdin", data, err
	}
	f, err := os.Open(c.file)
	if err != nil {
		return c.file, nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "--file", Message: "cannot read input file", Err: err}
	}
	defer f.Close()
	data, err := readInput(f)
	return c.file, data, err
}

// fillScope puts an object in the command's scope unless it names its own;
// with --persona the object is that persona's (read by no other).
func (c *putCmd) fillScope(o *tenure.Object) {
	for _, f := range []struct {
		dst *string
		v   string
	}{{&o.ProjectID, c.project}, {&o.SessionID, c.session}, {&o.TaskID, c.task}, {&o.ScopeID, c.scopeID}, {&o.PersonaID, c.persona}} {
		if *f.dst == "" {
			*f.dst = f.v
		}
	}
}

// printWrites prints one line per written object and one per object the
// write displaced.
func printWrites(w io.Writer, res []tenure.WriteResult) error {
	var b bytes.Buffer
	if len(res) == 0 {
		b.WriteString("nothing to write\n")
	}
	for _, r := range res {
		o := &r.Object
		fmt.Fprintf(&b, "%s  %s = %s  %s", r.Outcome, o.Key, valueText(o), describe(o))
		if r.Reason != "" {
			fmt.Fprintf(&b, "  (%s)", r.Reason)
		}
		b.WriteString("\n")
		writeChanges(&b, r.Changes)
		if r.ResolutionID != "" {
			fmt.Fprintf(&b, "  resolution request %s opened\n", r.ResolutionID)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeChanges prints one line per claim a write (or an entity merge)
// changed.
func writeChanges(b *bytes.Buffer, changes []tenure.Change) {
	for _, ch := range changes {
		fmt.Fprintf(b, "  %s v%d: %s -> %s", ch.Key, ch.Version, ch.From, ch.To)
		if ch.Reason != "" {
			fmt.Fprintf(b, " (%s)", ch.Reason)
		}
		if ch.NeedsReview {
			b.WriteString(", needs review")
		}
		fmt.Fprintf(b, "  [%s]\n", ch.ObjectID)
	}
}
