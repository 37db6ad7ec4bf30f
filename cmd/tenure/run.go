package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tenure-dev/tenure"
)

// stdio is a command's standard streams, passed in so that tests can run
// commands in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// subcommand is one CLI subcommand. define registers its flags (the common
// ones included) and exec runs it with the positional arguments left after
// flag parsing. Flags are parsed and validated before exec opens the store.
type subcommand interface {
	define(fs *flag.FlagSet)
	exec(ctx context.Context, sio stdio, args []string) error
}

// commandSpec describes a subcommand for dispatch and usage text.
type commandSpec struct {
	name    string
	args    string // positional arguments, for usage
	summary string
	detail  string // extra paragraph for "tenure help NAME"
	new     func() subcommand
}

// commands lists the subcommands in the order usage shows them.
var commands = []commandSpec{
	putSpec, getSpec, historySpec, listSpec, ingestSpec, embedSpec, extractSpec, expandSpec, compileSpec, snapshotSpec, entitiesSpec, memoriesSpec, curateSpec, retireSpec, resolutionsSpec, endSessionSpec, sessionsSpec, evalSpec, mcpSpec, serveSpec, keysSpec, migrateSpec, versionSpec,
}

func lookup(name string) (commandSpec, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return commandSpec{}, false
}

// run executes the command line args and returns the exit status. It is
// main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sio := stdio{in: stdin, out: stdout, err: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return tenure.ExitCode(tenure.CodeInvalid)
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return runHelp(rest, sio)
	case "--version", "-version", "-v":
		name = "version"
	}
	spec, ok := lookup(name)
	if !ok {
		err := tenure.Errorf(tenure.CodeInvalid, "", "unknown command %q (run 'tenure help' for the list)", name)
		return fail(sio, wantsJSON(rest), err)
	}
	cmd := spec.new()
	fs := newFlagSet(spec.name)
	cmd.define(fs)
	pos, err := parseArgs(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandUsage(spec))
		return 0
	}
	if err == nil {
		err = cmd.exec(ctx, sio, pos)
	}
	if err != nil {
		return fail(sio, wantsJSON(rest), err)
	}
	return 0
}

// fail reports err on stderr, as JSON when the user asked for JSON output,
// and returns the exit status for its code.
func fail(sio stdio, asJSON bool, err error) int {
	code := tenure.ErrorCode(err)
	if asJSON {
		body := struct {
			Code    tenure.Code `json:"code"`
			Message string      `json:"message"`
			Field   string      `json:"field"`
		}{code, err.Error(), tenure.ErrorField(err)}
		enc := json.NewEncoder(sio.err)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(body) == nil {
			return tenure.ExitCode(code)
		}
	}
	fmt.Fprintf(sio.err, "tenure: %v\n", err)
	return tenure.ExitCode(code)
}

// wantsJSON reports whether --json is among the flags, so that even a flag
// parsing error is reported as JSON.
func wantsJSON(args []string) bool {
	on := false
	for _, a := range args {
		switch a {
		case "--":
			return on
		case "-json", "--json", "-json=true", "--json=true", "-json=1", "--json=1":
			on = true
		case "-json=false", "--json=false", "-json=0", "--json=0":
			on = false
		}
	}
	return on
}

// newFlagSet returns a flag set that reports errors instead of printing
// them or exiting, so run decides the output and the exit status.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses flags anywhere among the arguments ("get KEY --json" as
// well as "get --json KEY") and returns the positional arguments. After
// "--" every argument is positional, for keys that start with a dash.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(fs.Name(), err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError turns a flag package error into an invalid-input error whose
// field names the offending flag.
func flagError(command string, err error) error {
	msg := err.Error()
	field := ""
	if _, after, ok := strings.Cut(msg, "for flag -"); ok {
		field, _, _ = strings.Cut(after, ":")
	} else if i := strings.LastIndex(msg, ": -"); i >= 0 {
		field = strings.TrimLeft(msg[i+2:], "-")
		field, _, _ = strings.Cut(field, "=")
	}
	if field != "" {
		field = "--" + field
	}
	return &tenure.Error{Code: tenure.CodeInvalid, Field: field, Message: msg + " (see 'tenure help " + command + "')"}
}

// wantArgs checks the number of positional arguments.
func wantArgs(spec commandSpec, args []string, n int) error {
	if len(args) == n {
		return nil
	}
	if n == 0 {
		return tenure.Errorf(tenure.CodeInvalid, "", "%s takes no arguments, got %q", spec.name, args)
	}
	return tenure.Errorf(tenure.CodeInvalid, "", "usage: tenure %s [flags] %s (got %d arguments)", spec.name, spec.args, len(args))
}
