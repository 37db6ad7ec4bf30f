package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

// localUser is the user id of the default principal, the store's owner.
const localUser = "local"

// common holds the flags every command takes: where the store is, how to
// print, who is asking and in which scope.
type common struct {
	fs            *flag.FlagSet
	db            string
	json          bool
	principalFile string
	tenant, user  string
	authority     string
	clearance     string
	roles         string
	permissions   string
	project       string
	session       string
	task          string
	scopeID       string
}

// isCommonFlag lets "tenure help CMD" list only a command's own flags.
func isCommonFlag(name string) bool {
	fs := newFlagSet("common")
	new(common).define(fs)
	return fs.Lookup(name) != nil
}

func (c *common) define(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.db, "db", defaultDBPath(), "database `file`")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.StringVar(&c.principalFile, "principal", "", "JSON principal `file`")
	fs.StringVar(&c.tenant, "tenant", "", "principal's tenant `id`")
	fs.StringVar(&c.user, "user", "", "principal's user `id`")
	fs.StringVar(&c.authority, "authority", "", "principal's `rank` in the authority hierarchy")
	fs.StringVar(&c.clearance, "clearance", "", "principal's clearance `level`")
	fs.StringVar(&c.roles, "roles", "", "principal's `roles`, comma-separated")
	fs.StringVar(&c.permissions, "permissions", "", "principal's `permissions`, comma-separated")
	fs.StringVar(&c.project, "project", "", "project `id` of the scope")
	fs.StringVar(&c.session, "session", "", "session `id` of the scope")
	fs.StringVar(&c.task, "task-id", "", "task `id` of the scope")
	fs.StringVar(&c.scopeID, "scope-id", "", "hypothetical or draft sandbox `id` of the scope")
}

// localOwner is the principal of a CLI run without --principal: the person
// who owns the database file may read and write everything in it.
func localOwner() tenure.Principal {
	return tenure.Principal{
		UserID:    localUser,
		TenantID:  tenure.DefaultTenant,
		Authority: tenure.DefaultHierarchy.Top(),
		Clearance: tenure.HighlyRestricted,
		Roles:     []string{"admin"},
	}
}

// principal builds and validates who is asking, so that a bad principal is
// rejected before the store is opened.
func (c *common) principal() (tenure.Principal, error) {
	p := localOwner()
	if c.principalFile != "" {
		data, err := os.ReadFile(c.principalFile)
		if err != nil {
			return p, &tenure.Error{Code: tenure.CodeInvalid, Field: "--principal", Message: "cannot read principal file", Err: err}
		}
		if p, err = parseOne[tenure.Principal](data, "principal"); err != nil {
			return p, fmt.Errorf("principal file %s: %w", c.principalFile, prefixField("principal.", err))
		}
	}
	c.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "tenant":
			p.TenantID = c.tenant
		case "user":
			p.UserID = c.user
		case "authority":
			p.Authority = c.authority
		case "clearance":
			p.Clearance = tenure.Classification(c.clearance)
		case "roles":
			p.Roles = splitList(c.roles)
		case "permissions":
			p.Permissions = splitList(c.permissions)
		}
	})
	p = p.WithDefaults(tenure.DefaultHierarchy)
	if err := p.Validate(tenure.DefaultHierarchy); err != nil {
		return p, fmt.Errorf("principal: %w", prefixField("principal.", err))
	}
	return p, nil
}

// scope is the scope the command runs in, from the scope flags.
func (c *common) scope() tenure.Scope {
	return tenure.Scope{ProjectID: c.project, SessionID: c.session, TaskID: c.task, ScopeID: c.scopeID}
}

// identity returns the validated principal and scope.
func (c *common) identity() (tenure.Principal, tenure.Scope, error) {
	p, err := c.principal()
	if err != nil {
		return p, tenure.Scope{}, err
	}
	s, err := c.scope().Resolve(p)
	if err != nil {
		return p, s, fmt.Errorf("scope: %w", err)
	}
	return p, s, nil
}

// withStore opens the store, runs fn and closes the store, reporting a
// close failure when fn succeeded.
func (c *common) withStore(ctx context.Context, fn func(*sqlite.Store) error) (err error) {
	st := sqlite.New(c.db, sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		if tenure.ErrorCode(err) == tenure.CodeInternal {
			err = &tenure.Error{Code: tenure.CodeUnavailable, Field: "--db", Message: "cannot open database " + c.db, Err: err}
		}
		return err
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = &tenure.Error{Code: tenure.CodeUnavailable, Field: "--db", Message: "cannot close database " + c.db, Err: cerr}
		}
	}()
	return fn(st)
}

// output writes v as indented JSON with --json, else calls human.
func (c *common) output(sio stdio, v any, human func() error) error {
	if c.json {
		return writeJSON(sio.out, v)
	}
	return human()
}

// prefixField returns err with its field prefixed, keeping its code.
func prefixField(prefix string, err error) error {
	te := *tenure.AsError(err)
	if te.Field != "" {
		te.Field = prefix + te.Field
	}
	return &te
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	out := []string{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// parseTime parses a time flag: RFC 3339, or a date meaning midnight UTC.
func parseTime(flagName, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return &t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return &t, nil
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, flagName, "%q is not a time: use RFC 3339 (2025-01-31T09:00:00Z) or a date (2025-01-31)", v)
}

// readFlags are the as-of flags of the bitemporal read modes.
type readFlags struct{ asOfTx, asOfValid string }

func (r *readFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&r.asOfTx, "as-of-tx", "", "read what the store believed at transaction `time`")
	fs.StringVar(&r.asOfValid, "as-of-valid", "", "read what was true at valid `time`, by the latest belief")
}

// read builds the read mode in scope s.
func (r *readFlags) read(s tenure.Scope) (tenure.Read, error) {
	tx, err := parseTime("--as-of-tx", r.asOfTx)
	if err != nil {
		return tenure.Read{}, err
	}
	valid, err := parseTime("--as-of-valid", r.asOfValid)
	if err != nil {
		return tenure.Read{}, err
	}
	return tenure.Read{Scope: s, AsOfTx: tx, AsOfValid: valid}, nil
}
