package web_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/extract"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/web"
)

// env is a server with the inspector mounted, over a seeded store.
type env struct {
	t        *testing.T
	ctx      context.Context
	st       *sqlite.Store
	srv      *httptest.Server
	keys     map[string]string // secret by principal name
	ids      map[string]string // object ids by name
	resolved string
}

var (
	owner = tenure.Principal{UserID: "owner", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted,
		Permissions: []string{tenure.PermKeysAdmin, tenure.PermMetricsRead, tenure.PermTraceRead, tenure.PermAnyUser}}
	alice = tenure.Principal{UserID: "alice", TenantID: "acme", Authority: "employee", Clearance: tenure.Confidential}
	bob   = tenure.Principal{UserID: "bob", TenantID: "acme", Authority: "employee", Clearance: tenure.Confidential}
)

// day returns a fixed date: the store's clock and the claims' valid times.
func day(n int) time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, n) }

// newEnv opens a store in a temporary directory, seeds it (a supersession
// chain, a quarantined conflict, a user's private object, a thread with
// state items) and serves it with the inspector.
func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	now := day(0)
	st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Now: func() time.Time { return now }})
	if err := st.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &env{t: t, ctx: ctx, st: st, keys: map[string]string{}, ids: map[string]string{}}
	for name, p := range map[string]tenure.Principal{"owner": owner, "alice": alice, "bob": bob} {
		_, secret, err := st.CreateKey(ctx, tenure.APIKey{Name: name, Principal: p})
		if err != nil {
			t.Fatal(err)
		}
		e.keys[name] = secret
	}
	put := func(p tenure.Principal, name string, o tenure.Object) {
		t.Helper()
		r, err := st.Put(ctx, p, o)
		if err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
		e.ids[name] = r.Object.ObjectID
	}
	put(alice, "db1", tenure.Object{Key: "billing.database", Value: []byte(`"MySQL"`), ValidFrom: day(-30), WhyItMatters: "where invoices live"})
	now = day(1)
	put(alice, "db2", tenure.Object{Key: "billing.database", Value: []byte(`"PostgreSQL"`), ValidFrom: day(1), Supersedes: "billing.database"})
	put(alice, "dep", tenure.Object{Key: "billing.backup", Content: "Nightly pg_dump of the billing database", DependsOn: []string{"billing.database"}})
	now = day(2)
	put(alice, "m1", tenure.Object{Key: "standup.time", Value: []byte(`"Tuesday 10:00"`), ValidFrom: day(2)})
	put(alice, "m2", tenure.Object{Key: "standup.time", Value: []byte(`"Thursday 15:00"`), ValidFrom: day(2)})
	put(alice, "xss", tenure.Object{Key: "note.xss", Content: `<img src=x onerror="alert(1)"><script>alert(2)</script>`})
	put(bob, "bob", tenure.Object{Key: "bob.private", Content: "bob secret plan", UserID: "bob"})
	now = day(3)
	msgs := []tenure.Message{
		{ThreadID: "launch", UserID: "alice", ID: "m1", SessionID: "s1", Role: "user", Speaker: "Alice", Content: "Hi, let's plan the billing launch.", CreatedAt: day(3)},
		{ThreadID: "launch", UserID: "alice", ID: "m2", SessionID: "s1", Role: "user", Speaker: "Alice", Content: "We decided to go with PostgreSQL for the billing service.", CreatedAt: day(3).Add(time.Minute)},
		{ThreadID: "launch", UserID: "alice", ID: "m3", SessionID: "s2", Role: "assistant", Content: "Noted. Anything else?", CreatedAt: day(4)},
		{ThreadID: "launch", UserID: "alice", ID: "m4", SessionID: "s2", Role: "user", Speaker: "Alice", Content: "Remind me to email the auditors by Friday.", CreatedAt: day(4).Add(time.Minute)},
	}
	if _, err := st.AppendMessages(ctx, alice, msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExtractState(ctx, alice, "launch", extract.NewRules(extract.RulesOptions{})); err != nil {
		t.Fatal(err)
	}
	now = day(5)
	comp := compile.New(st, compile.Options{Now: func() time.Time { return now }})
	late := &lateServer{}
	ui := web.New(st, st, web.Options{Compiler: comp, Traces: late, KeyAdmin: st, Now: func() time.Time { return now },
		Ready:   func(context.Context) error { return nil },
		Metrics: prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return late.s.Gatherer().Gather() })})
	hs := tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{UI: ui, Compiler: comp, Now: func() time.Time { return now }})
	late.s = hs
	e.srv = httptest.NewServer(hs.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

type lateServer struct{ s *tenurehttp.Server }

func (l *lateServer) RecordCompile(p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error) {
	l.s.RecordCompile(p, env, tr, d, err)
}

func (l *lateServer) Trace(p tenure.Principal, id string) (compile.Trace, error) {
	return l.s.Trace(p, id)
}
