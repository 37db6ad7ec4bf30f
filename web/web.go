package web

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/snapshot"
)

// Store is what the pages read and write, as the signed-in principal; the
// embedded engine (sqlite.Store) satisfies it.
type Store interface {
	tenure.Store
	tenure.MessageStore
	snapshot.Store
	// Expand returns a state item and the messages it came from. Errors:
	// CodeInvalid, CodeNotFound, CodeConflict.
	Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error)
	// ListPage returns one page of a listing. Errors: CodeInvalid.
	ListPage(ctx context.Context, p tenure.Principal, f tenure.Filter) (tenure.Page, error)
	// Dependants returns the current objects that depend on an object.
	// Errors: CodeNotFound.
	Dependants(ctx context.Context, p tenure.Principal, id string) ([]tenure.Object, error)
	// Threads lists the threads with messages p can see. Errors:
	// CodeInvalid.
	Threads(ctx context.Context, p tenure.Principal, f tenure.ThreadFilter) ([]tenure.Thread, error)
}

// Keys finds API keys by the hash of their secret; sqlite.Store satisfies
// it.
type Keys interface {
	// KeyByHash returns the key whose secret hashes to hash, revoked or
	// not. Errors: CodeNotFound.
	KeyByHash(ctx context.Context, hash string) (tenure.APIKey, error)
}

// KeyAdmin manages API keys; sqlite.Store satisfies it.
type KeyAdmin interface {
	// Keys lists a tenant's keys.
	Keys(ctx context.Context, tenant string) ([]tenure.APIKey, error)
	// CreateKey stores a new key and returns it with its secret. Errors:
	// CodeInvalid.
	CreateKey(ctx context.Context, k tenure.APIKey) (tenure.APIKey, string, error)
	// RevokeKey revokes a key. Errors: CodeNotFound.
	RevokeKey(ctx context.Context, id string) (tenure.APIKey, error)
}

// Compiler compiles context envelopes; *compile.Compiler satisfies it.
type Compiler interface {
	// Compile runs one compilation as req.Principal.
	Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error)
}

// Traces keeps compile traces; the HTTP server (*http.Server) satisfies
// it, so that the playground's traces are the API's: recorded alike and
// read under the same rules.
type Traces interface {
	// RecordCompile records a compilation as p's.
	RecordCompile(p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error)
	// Trace returns a trace as p may read it. Errors: CodeNotFound.
	Trace(p tenure.Principal, id string) (compile.Trace, error)
}

// Options configures a Handler. The zero value works: pages whose
// dependency is missing say so.
type Options struct {
	// Compiler runs the playground's compilations; Traces records and
	// reads their traces.
	Compiler Compiler
	Traces   Traces
	// KeyAdmin lists, creates and revokes keys for holders of keys:admin.
	KeyAdmin KeyAdmin
	// Metrics is summarized on the operations page for holders of
	// metrics:read.
	Metrics prometheus.Gatherer
	// Ready reports whether the server can serve (the health panel).
	Ready func(ctx context.Context) error
	// Hierarchy ranks principals (default tenure.DefaultHierarchy).
	Hierarchy tenure.Hierarchy
	// SessionTTL is how long a sign-in lasts (default 8h).
	SessionTTL time.Duration
	// SecureCookies marks cookies Secure even on plain-HTTP requests
	// (behind a TLS-terminating proxy); requests over TLS always get
	// Secure cookies.
	SecureCookies bool
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives page errors (default: discard).
	Logger *slog.Logger
	// PageSize is the number of objects per page (default 50).
	PageSize int
}

//go:embed templates/*.html templates/*.tmpl
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is the path the inspector is served under.
const Prefix = "/ui/"

// Handler serves the inspector's pages.
type Handler struct {
	store    Store
	keys     Keys
	opt      Options
	sessions *sessions
	pages    map[string]*template.Template
	mux      *http.ServeMux
}

// New returns the inspector over store, authenticating with keys. It does
// no I/O.
func New(store Store, keys Keys, opt Options) *Handler {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.SessionTTL <= 0 {
		opt.SessionTTL = 8 * time.Hour
	}
	if len(opt.Hierarchy.Ranks) == 0 {
		opt.Hierarchy = tenure.DefaultHierarchy
	}
	if opt.PageSize <= 0 {
		opt.PageSize = 50
	}
	h := &Handler{store: store, keys: keys, opt: opt, sessions: newSessions(opt.SessionTTL, opt.Now), mux: http.NewServeMux()}
	h.pages = parsePages()
	h.routes()
	return h
}

func (h *Handler) routes() {
	static, _ := fs.Sub(staticFS, "static")
	h.mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(static)))
	h.mux.HandleFunc("GET /ui/signin", h.signinPage)
	h.mux.HandleFunc("POST /ui/signin", h.signin)
	page := func(pattern string, fn pageFunc) { h.mux.Handle(pattern, h.authed(fn)) }
	page("POST /ui/signout", h.signout)
	page("GET /ui/{$}", h.home)
	page("GET /ui/objects", h.objects)
	page("GET /ui/objects/{id}", h.object)
	page("GET /ui/conflicts", h.conflicts)
	page("POST /ui/conflicts/{id}/resolve", h.resolve)
	page("GET /ui/threads", h.threads)
	page("GET /ui/threads/{id}", h.thread)
	page("GET /ui/compile", h.compilePage)
	page("POST /ui/compile", h.compile)
	page("GET /ui/traces", h.traceLookup)
	page("GET /ui/traces/{id}", h.trace)
	page("GET /ui/snapshots", h.snapshots)
	page("GET /ui/entities", h.entities)
	page("GET /ui/ops", h.ops)
	page("GET /ui/keys", h.keysPage)
	page("POST /ui/keys", h.createKey)
	page("POST /ui/keys/{id}/revoke", h.revokeKey)
	h.mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, nil, tenure.Errorf(tenure.CodeNotFound, "", "no page %s", r.URL.Path))
	})
}

// ServeHTTP serves the pages under /ui/ with the inspector's security
// headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make form POSTs send Origin: null
	if !strings.HasPrefix(r.URL.Path, "/ui/static/") {
		hd.Set("Cache-Control", "no-store")
	}
	h.mux.ServeHTTP(w, r)
}

// view is what every page template gets.
type view struct {
	Title     string
	Nav       string
	Principal *tenure.Principal
	KeyName   string
	CSRF      string
	Admin     bool
	Error     *tenure.Error
	Flash     string
	Data      any
}

// pageFunc serves a page as the signed-in principal.
type pageFunc func(w http.ResponseWriter, r *http.Request, c *call) error

// call is one signed-in request.
type call struct {
	p    tenure.Principal
	key  tenure.APIKey
	sess *session
}

// render writes page with data.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, c *call, status int, page, title, nav string, data any) error {
	t, ok := h.pages[page]
	if !ok {
		return tenure.Internal("render", errors.New("no template "+page))
	}
	v := view{Title: title, Nav: nav, Data: data}
	if c != nil {
		v.Principal, v.KeyName, v.CSRF = &c.p, c.key.Name, c.sess.csrf
		v.Admin = c.p.HasPermission(tenure.PermKeysAdmin)
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", v); err != nil {
		return tenure.Internal("render "+page, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
	return nil
}

// fail renders err as an error page with the status of its code; internal
// errors are logged and shown without their cause.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, c *call, err error) {
	te := *tenure.AsError(err)
	if te.Code == "" || te.Code == tenure.CodeInternal {
		h.opt.Logger.Error("web page failed", "path", r.URL.Path, "err", err)
		te = tenure.Error{Code: tenure.CodeInternal, Message: "internal error"}
	} else if te.Err != nil {
		te.Message += ": " + te.Err.Error()
		te.Err = nil
	}
	if rerr := h.render(w, r, c, tenure.HTTPStatus(te.Code), "error.html", "Error", "", &te); rerr != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}
