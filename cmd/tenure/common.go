package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/entity"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/sqlite"
)

// localUser is the user id of the default principal, the store's owner.
const localUser = "local"

// common holds the flags every command takes: where the store is (a
// local file, or a server), how to print, who is asking and in which scope.
type common struct {
	principalFlags
	db          string
	server, key string
	json        bool
	project     string
	session     string
	task        string
	scopeID     string
}

// isCommonFlag lets "tenure help CMD" list only a command's own flags.
func isCommonFlag(name string) bool {
	fs := newFlagSet("common")
	new(common).define(fs)
	return fs.Lookup(name) != nil
}

func (c *common) define(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.db, "db", defaultDBPath(), "database `file`, or a PostgreSQL URL postgres://…")
	fs.StringVar(&c.server, "server", "", "talk to the Tenure server at `URL` instead of --db (default $TENURE_SERVER)")
	fs.StringVar(&c.key, "key", "", "API `key` for --server (default $TENURE_KEY)")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.StringVar(&c.principalFile, "principal", "", "JSON principal `file`")
	fs.StringVar(&c.tenant, "tenant", "", "principal's tenant `id`")
	fs.StringVar(&c.user, "user", "", "principal's user `id`")
	fs.StringVar(&c.authority, "authority", "", "principal's `rank` in the authority hierarchy")
	fs.StringVar(&c.clearance, "clearance", "", "principal's clearance `level`")
	fs.StringVar(&c.roles, "roles", "", "principal's `roles`, comma-separated")
	fs.StringVar(&c.permissions, "permissions", "", "principal's `permissions`, comma-separated")
	fs.StringVar(&c.persona, "persona", "", "the `persona` the principal acts as (with --server, for a key bound to none)")
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
		// The owner holds every capability explicitly: rank decides who
		// wins a conflict, permissions decide what may be written or seen.
		Permissions: ownerPermissions,
	}
}

// ownerPermissions are the local owner's and the first admin key's.
var ownerPermissions = []string{tenure.PermRulesWrite, tenure.PermEnvironmentWrite, tenure.PermTraceRead, tenure.PermTraceFull}

// principal builds and validates who is asking, so that a bad principal is
// rejected before the store is opened.
func (c *common) principal() (tenure.Principal, error) {
	p, err := c.overlayPrincipal(localOwner(), nil)
	if err != nil {
		return p, err
	}
	if c.principalFile == "" && (c.set("user") || c.set("authority")) && !c.set("permissions") {
		// Acting as someone else is not acting as the owner: the owner's
		// permissions do not carry over unless --permissions says so.
		p.Permissions = nil
	}
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

// identity returns the validated principal and scope. With --server the
// principal is the API key's, decided by the server: identity returns the
// zero principal and the scope as given, and withBackend refuses principal
// flags.
func (c *common) identity() (tenure.Principal, tenure.Scope, error) {
	if c.serverURL() != "" {
		return tenure.Principal{}, c.scope(), nil
	}
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

// backend is what the object commands read and write through: the
// embedded store with a local compiler, or a Tenure server through the HTTP
// client, so that the same command code runs on a file or remotely.
type backend interface {
	tenure.Store
	tenure.MessageStore
	snapshot.Store
	entity.Registry
	Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error)
	Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error)
	tenure.SessionStore
	// ListPage returns one page of a listing. Errors: CodeInvalid.
	ListPage(ctx context.Context, p tenure.Principal, f tenure.Filter) (tenure.Page, error)
}

var (
	_ backend = localBackend{}
	_ backend = (*tenurehttp.Client)(nil)
)

// localBackend is the embedded store with a compiler over it.
type localBackend struct {
	*dbStore
	compiler *compile.Compiler
}

// Compile implements backend.
func (l localBackend) Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
	return l.compiler.Compile(ctx, req)
}

// serverURL is --server, else $TENURE_SERVER; "" means the local --db.
func (c *common) serverURL() string {
	if c.server != "" {
		return c.server
	}
	return envServer()
}

// withBackend runs fn on the server of --server, or else on the store of
// --db (opened and closed around fn) with a compiler configured by copt.
func (c *common) withBackend(ctx context.Context, copt compile.Options, fn func(backend) error) error {
	return c.withBackendOptions(ctx, sqlite.Options{}, copt, fn)
}

// withBackendOptions is withBackend with the local store's options.
func (c *common) withBackendOptions(ctx context.Context, sopt sqlite.Options, copt compile.Options, fn func(backend) error) error {
	server := c.serverURL()
	if server == "" {
		return c.withStoreOptions(ctx, sopt, func(st *dbStore) error {
			// A local compile records the memories it used before the
			// store closes.
			uses := memory.NewUseTracker(st, memory.UseTrackerOptions{})
			defer uses.Close()
			if copt.Uses == nil {
				copt.Uses = uses
			}
			return fn(localBackend{dbStore: st, compiler: compile.New(st, copt)})
		})
	}
	if err := c.checkRemote(server); err != nil {
		return err
	}
	return fn(c.client(server))
}

// client is the HTTP client of server with --key (or $TENURE_KEY).
func (c *common) client(server string) *tenurehttp.Client {
	key := c.key
	if key == "" {
		key = envKey()
	}
	return tenurehttp.NewClient(server, key, tenurehttp.ClientOptions{Persona: c.persona})
}

// checkRemote refuses flags that mean nothing with --server: the server
// runs every request as the principal of the API key, on its own database.
func (c *common) checkRemote(server string) error {
	if u, err := url.Parse(server); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return tenure.Errorf(tenure.CodeInvalid, "--server", "%q is not a server URL: want http(s)://host[:port]", server)
	}
	if c.key == "" && envKey() == "" {
		return tenure.Errorf(tenure.CodeInvalid, "--key", "required with --server (or $TENURE_KEY): the API key decides who you are")
	}
	var bad string
	c.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "db", "principal", "tenant", "user", "authority", "clearance", "roles", "permissions":
			if bad == "" {
				bad = f.Name
			}
		}
	})
	if bad == "db" {
		return tenure.Errorf(tenure.CodeInvalid, "--db", "with --server the server's database is used; give one or the other")
	}
	if bad != "" {
		return tenure.Errorf(tenure.CodeInvalid, "--"+bad, "with --server every request runs as the principal of --key; principal flags apply to a local --db only")
	}
	return nil
}

// withStore opens the store, runs fn and closes the store, reporting a
// close failure when fn succeeded. Commands that use it work on a local
// database only.
func (c *common) withStore(ctx context.Context, fn func(*dbStore) error) error {
	return c.withStoreOptions(ctx, sqlite.Options{}, fn)
}

// withStoreOptions is withStore with the store's options.
func (c *common) withStoreOptions(ctx context.Context, opt sqlite.Options, fn func(*dbStore) error) error {
	if server := c.serverURL(); server != "" {
		return tenure.Errorf(tenure.CodeInvalid, "--server", "%s works on a local --db only (unset --server and $TENURE_SERVER)", c.fs.Name())
	}
	return withDBOptions(ctx, c.db, opt, fn)
}

// withDB opens the database file db, runs fn and closes it, reporting a
// close failure when fn succeeded.
func withDB(ctx context.Context, db string, fn func(*dbStore) error) error {
	return withDBOptions(ctx, db, sqlite.Options{}, fn)
}

// withDBOptions is withDB with the store's options.
func withDBOptions(ctx context.Context, db string, opt sqlite.Options, fn func(*dbStore) error) (err error) {
	st, err := openStore(ctx, db, opt, nil)
	if err != nil {
		if tenure.ErrorCode(err) == tenure.CodeInternal {
			err = &tenure.Error{Code: tenure.CodeUnavailable, Field: "--db", Message: "cannot open database " + dbName(db), Err: err}
		}
		return err
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = &tenure.Error{Code: tenure.CodeUnavailable, Field: "--db", Message: "cannot close database " + dbName(db), Err: cerr}
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

// readFlags are the as-of flags of the bitemporal read modes.
type readFlags struct{ asOfTx, asOfValid string }

func (r *readFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&r.asOfTx, "as-of-tx", "", "read what the store believed at transaction `time`")
	fs.StringVar(&r.asOfValid, "as-of-valid", "", "read what was true at valid `time`, by the latest belief")
}

// read builds the read mode in scope s.
func (r *readFlags) read(s tenure.Scope) (tenure.Read, error) {
	tx, err := tenure.ParseTime("--as-of-tx", r.asOfTx)
	if err != nil {
		return tenure.Read{}, err
	}
	valid, err := tenure.ParseTime("--as-of-valid", r.asOfValid)
	if err != nil {
		return tenure.Read{}, err
	}
	return tenure.Read{Scope: s, AsOfTx: tx, AsOfValid: valid}, nil
}

// principalFlags are the flags that describe a principal.
type principalFlags struct {
	fs                                 *flag.FlagSet
	principalFile                      string
	tenant, user, authority, clearance string
	roles, permissions                 string
	persona                            string
}

// set reports whether the flag name was given.
func (c *principalFlags) set(name string) bool {
	given := false
	c.fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// overlayPrincipal starts from p, replaces it with the --principal file when
// one is given, and sets the fields whose flags were given; extra handles
// flags of the command's own.
func (c *principalFlags) overlayPrincipal(p tenure.Principal, extra func(name string, p *tenure.Principal)) (tenure.Principal, error) {
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
		case "persona":
			p.PersonaID = c.persona
		default:
			if extra != nil {
				extra(f.Name, &p)
			}
		}
	})
	return p, nil
}
