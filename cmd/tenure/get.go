package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

var getSpec = commandSpec{
	name:    "get",
	args:    "KEY",
	summary: "the current value of KEY (--id: of the object with id KEY)",
	detail: `Without as-of flags get reads what is true now. --as-of-tx reads what the store
believed at that transaction time; --as-of-valid reads what was true at that
valid time according to the latest belief; both may be combined.`,
	new: func() subcommand { return new(getCmd) },
}

type getCmd struct {
	common
	asOf readFlags
	byID bool
}

func (c *getCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	c.asOf.define(fs)
	fs.BoolVar(&c.byID, "id", false, "treat the argument as an object id and read that object")
}

func (c *getCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(getSpec, args, 1); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	r, err := c.asOf.read(s)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	ref := args[0]
	return c.withBackend(ctx, compile.Options{}, func(st backend) error {
		var o tenure.Object
		if c.byID {
			o, err = st.Get(ctx, p, ref, r)
		} else {
			o, err = st.CurrentValue(ctx, p, ref, r)
		}
		if err != nil {
			return err
		}
		return c.output(sio, o, func() error {
			key := o.Key
			if !c.byID && key != ref {
				key = ref + " → " + key
			}
			_, err := fmt.Fprintf(sio.out, "%s = %s  %s\n", key, valueText(&o), describe(&o))
			return err
		})
	})
}
