package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/tenure-dev/tenure"
)

var versionSpec = commandSpec{
	name:    "version",
	summary: "print the build's version (module version and VCS revision)",
	new:     func() subcommand { return &versionCmd{} },
}

type versionCmd struct{ json bool }

func (c *versionCmd) define(fs *flag.FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print JSON")
}

func (c *versionCmd) exec(_ context.Context, sio stdio, args []string) error {
	if len(args) > 0 {
		return tenure.Errorf(tenure.CodeInvalid, "", "version takes no arguments")
	}
	if c.json {
		return writeJSON(sio.out, map[string]string{"version": tenure.Version(), "go": runtime.Version()})
	}
	_, err := fmt.Fprintf(sio.out, "tenure %s (%s)\n", tenure.Version(), runtime.Version())
	return err
}
