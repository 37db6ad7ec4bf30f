package http_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
)

// env is a server over a real SQLite store in a temp dir, reached over
// real HTTP, with keys for two users of tenant acme and one of tenant
// globex.
type env struct {
	t     testing.TB
	ctx   context.Context
	store *sqlite.Store
	srv   *tenurehttp.Server
	ts    *httptest.Server
	url   string
	// admin is acme's top-rank key; alice an employee of acme; bob an
	// employee of globex; monitor a key that may only read the metrics.
	admin, alice, bob, monitor string
}

var (
	adminP = tenure.Principal{TenantID: "acme", UserID: "root", Authority: "policy", Clearance: tenure.HighlyRestricted,
		Roles: []string{"admin"}, Permissions: []string{tenure.PermRulesWrite, tenure.PermEnvironmentWrite}}
	aliceP = tenure.Principal{TenantID: "acme", UserID: "alice", Authority: "employee", Clearance: tenure.Restricted}
	bobP   = tenure.Principal{TenantID: "globex", UserID: "bob", Authority: "employee", Clearance: tenure.Restricted}
	// monitorP scrapes the metrics.
	monitorP = tenure.Principal{TenantID: "ops", UserID: "prometheus", Authority: "guest", Clearance: tenure.Public,
		Permissions: []string{tenure.PermMetricsRead}}
)

func newEnv(t testing.TB, opts ...func(*tenurehttp.ServerOptions)) *env {
	t.Helper()
	return newStoreEnv(t, func(_ *sqlite.Store, o *tenurehttp.ServerOptions) {
		for _, opt := range opts {
			opt(o)
		}
	})
}

// newStoreEnv is newEnv with options that need the store.
func newStoreEnv(t testing.TB, configure func(*sqlite.Store, *tenurehttp.ServerOptions)) *env {
	t.Helper()
	ctx := context.Background()
	st := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	var opt tenurehttp.ServerOptions
	configure(st, &opt)
	srv := tenurehttp.NewServer(st, st, opt)
	// Cleanups run last first: the HTTP server closes, then background
	// digests finish, then the store closes.
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := srv.StopDigests(sctx); err != nil {
			t.Errorf("stop digests: %v", err)
		}
	})
	ts := httptest.NewServer(observe(srv.Handler()))
	t.Cleanup(ts.Close)
	e := &env{t: t, ctx: ctx, store: st, srv: srv, ts: ts, url: ts.URL}
	e.admin = e.key(adminP)
	e.alice = e.key(aliceP)
	e.bob = e.key(bobP)
	e.monitor = e.key(monitorP)
	return e
}

// key creates an API key for p and returns its secret.
func (e *env) key(p tenure.Principal) string {
	e.t.Helper()
	_, secret, err := e.store.CreateKey(e.ctx, tenure.APIKey{Name: p.UserID, Principal: p})
	if err != nil {
		e.t.Fatalf("create key: %v", err)
	}
	return secret
}

func (e *env) client(secret string) *tenurehttp.Client {
	return tenurehttp.NewClient(e.url, secret, tenurehttp.ClientOptions{HTTPClient: e.ts.Client()})
}

// reply is a raw HTTP answer.
type reply struct {
	status int
	header http.Header
	body   string
}

// errBody decodes the reply as an error body.
func (r reply) errBody(t testing.TB) tenurehttp.ErrorBody {
	t.Helper()
	var b tenurehttp.ErrorBody
	dec := json.NewDecoder(strings.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("error body %q: %v", r.body, err)
	}
	return b
}

// call sends a raw request with the key secret (none when empty).
func (e *env) call(method, path, secret, body string, header ...string) reply {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// wantError checks that err is a *tenure.Error with code and field.
func wantError(t testing.TB, err error, code tenure.Code, field string) {
	t.Helper()
	if got := tenure.ErrorCode(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
	if got := tenure.ErrorField(err); got != field {
		t.Errorf("error %v: field %q, want %q", err, got, field)
	}
}

// count returns how many object versions the store holds in all tenants.
func (e *env) count() int {
	e.t.Helper()
	var n int
	if err := e.store.DB().QueryRow(`SELECT count(*) FROM objects`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}
