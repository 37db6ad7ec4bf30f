package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/tenure-dev/tenure"
)

// runHelp prints the usage, or one command's usage and flags.
func runHelp(args []string, sio stdio) int {
	switch len(args) {
	case 0:
		fmt.Fprint(sio.out, usage())
		return 0
	case 1:
		if spec, ok := lookup(args[0]); ok {
			fmt.Fprint(sio.out, commandUsage(spec))
			return 0
		}
	}
	return fail(sio, false, tenure.Errorf(tenure.CodeInvalid, "", "help: unknown command %q (run 'tenure help' for the list)", strings.Join(args, " ")))
}

// usage is the top-level usage text: every command, the common flags, the
// default principal and the exit statuses.
func usage() string {
	var b strings.Builder
	b.WriteString("tenure reads and writes a Tenure store of Context Objects.\n\n")
	b.WriteString("Usage:\n  tenure <command> [flags] [arguments]\n  tenure help [command]\n\nCommands:\n")
	for _, c := range commands {
		b.WriteString(flagLine(strings.TrimSpace(c.name+" "+c.args), c.summary))
	}
	b.WriteString(flagLine("help [COMMAND]", "this text, or a command's own flags"))
	b.WriteString(commonHelp)
	b.WriteString("\nExit status (from tenure.ExitCode):\n  0 ok")
	for i, c := range []tenure.Code{tenure.CodeInternal, tenure.CodeInvalid, tenure.CodeNotFound, tenure.CodeForbidden,
		tenure.CodeConflict, tenure.CodeUnauthenticated, tenure.CodeTooLarge, tenure.CodeUnavailable, tenure.CodeTimeout} {
		sep := ", "
		if i%5 == 4 {
			sep = ",\n  "
		}
		fmt.Fprintf(&b, "%s%d %s", sep, tenure.ExitCode(c), c)
		if c == tenure.CodeInvalid {
			b.WriteString(" (and usage errors)")
		}
	}
	b.WriteString(".\n")
	return b.String()
}

// commonHelp documents the flags every command takes and the principal the
// CLI acts as. The defaults are interpolated from the domain so the text
// cannot drift from the code.
var commonHelp = fmt.Sprintf(`
Common flags (every command but eval, serve and keys):
  --db FILE              database file (default $TENURE_DB, else ./tenure.db),
                         or a PostgreSQL URL postgres://… (docs/postgres.md)
  --server URL           talk to a 'tenure serve' server instead of --db
                         (default $TENURE_SERVER); put, get, history, list,
                         compile, extract, expand, snapshot, retire,
                         resolutions and end-session
  --key KEY              the API key for --server (default $TENURE_KEY): the
                         server runs every request as the key's principal, so
                         the principal flags apply to a local --db only
  --json                 print JSON; errors go to stderr as
                         {"code","message","field"}
  --principal FILE       who is asking, as JSON: user_id, user_name, tenant_id,
                         organization, department, roles, authority, clearance,
                         permissions (unknown fields are rejected)
  --tenant ID, --user ID, --authority RANK, --clearance LEVEL,
  --roles a,b, --permissions a,b
                         override single fields of the principal
  --project ID, --session ID, --task-id ID, --scope-id ID
                         the scope to read and write in; put fills them into
                         objects that leave project_id, session_id, task_id or
                         scope_id empty

Principal: without --principal the CLI acts as the local owner:
  user_id %q, tenant_id %q, roles ["admin"],
  authority %q (highest of %s),
  clearance %q,
  permissions %s.
Fields a --principal file leaves out take the store's defaults:
  tenant_id %q, clearance %q, authority %q.
The override flags change only their own field, so "--authority intern"
alone keeps the owner's clearance: add "--clearance restricted" to read as
an intern would. Permissions are the exception: with --user or --authority
the owner's permissions are dropped unless --permissions gives them.

Times (--as-of-tx, --as-of-valid, --valid-at, --tx-from, --tx-until) are RFC 3339 (2025-01-31T09:00:00Z) or a
date (2025-01-31, meaning midnight UTC).
`, localUser, tenure.DefaultTenant, tenure.DefaultHierarchy.Top(), strings.Join(tenure.DefaultHierarchy.Ranks, " > "),
	tenure.HighlyRestricted, strings.Join(ownerPermissions, ","), tenure.DefaultTenant, tenure.Public, tenure.DefaultHierarchy.Lowest())

// commandUsage is "tenure help NAME": the command's synopsis, description
// and own flags (the common ones are listed by "tenure help").
func commandUsage(spec commandSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: tenure %s\n\n%s.\n", strings.TrimSpace(spec.name+" [flags] "+spec.args), upperFirst(spec.summary))
	if spec.detail != "" {
		fmt.Fprintf(&b, "\n%s\n", spec.detail)
	}
	fs := newFlagSet(spec.name)
	spec.new().define(fs)
	var own strings.Builder
	hasCommon := fs.Lookup("scope-id") != nil // eval, serve and keys take their own flags
	fs.VisitAll(func(f *flag.Flag) {
		if hasCommon && isCommonFlag(f.Name) {
			return
		}
		typ, text := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if typ != "" {
			name += " " + strings.ToUpper(typ)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			text += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		own.WriteString(flagLine(name, text))
	})
	if own.Len() > 0 {
		fmt.Fprintf(&b, "\nFlags:\n%s", own.String())
	}
	if hasCommon {
		b.WriteString(commonHelp)
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Help text layout: flag names in a column, their text wrapped beside it.
const (
	helpNameWidth = 22
	helpWidth     = 79
)

// flagLine lays out one flag: its name, then its text wrapped to
// helpWidth with a hanging indent; a name too wide for its column puts the
// text on the next line.
func flagLine(name, text string) string {
	indent := strings.Repeat(" ", 3+helpNameWidth)
	var b strings.Builder
	b.WriteString("  " + name)
	if len(name) > helpNameWidth {
		b.WriteString("\n" + indent)
	} else {
		b.WriteString(strings.Repeat(" ", helpNameWidth-len(name)+1))
	}
	col := len(indent)
	first := true
	for _, w := range strings.Fields(text) {
		if !first && col+1+len(w) > helpWidth {
			b.WriteString("\n" + indent)
			col = len(indent)
			first = true
		}
		if !first {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
		first = false
	}
	b.WriteByte('\n')
	return b.String()
}
