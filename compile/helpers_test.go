package compile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storetest"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// Principals.
var (
	owner = tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted, Roles: []string{"admin"},
		Permissions: []string{tenure.PermRulesWrite}}
	cfo    = tenure.Principal{UserID: "cfo", TenantID: "acme", Authority: "manager", Clearance: tenure.Confidential, Permissions: []string{tenure.PermRulesWrite}}
	intern = tenure.Principal{UserID: "ian", TenantID: "acme", Authority: "intern", Clearance: tenure.Public}
)

type fixture struct {
	t     *testing.T
	ctx   context.Context
	store *sqlite.Store
	clock *storetest.Clock
	c     *compile.Compiler
	// ids are the ids the store hands out next, for goldens that name
	// objects; after them it counts ("id-1", …).
	ids []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clock := storetest.NewClock(t0)
	f := &fixture{t: t, ctx: context.Background(), clock: clock}
	n := 0
	newID := func() string {
		if len(f.ids) > 0 {
			id := f.ids[0]
			f.ids = f.ids[1:]
			return id
		}
		n++
		return fmt.Sprintf("id-%d", n)
	}
	f.store = sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Now: clock.Now, NewID: newID})
	if err := f.store.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.store.Close() })
	f.c = compile.New(f.store, compile.Options{Now: clock.Now, NewID: func() string { return "tr-test" }})
	return f
}

func (f *fixture) put(p tenure.Principal, o tenure.Object) tenure.WriteResult {
	f.t.Helper()
	r, err := f.store.Put(f.ctx, p, o)
	if err != nil {
		f.t.Fatalf("put %s: %v", o.Key, err)
	}
	f.clock.Advance(time.Second)
	return r
}

func (f *fixture) compile(req compile.Request) (compile.Envelope, compile.Trace) {
	f.t.Helper()
	env, tr, err := f.c.Compile(f.ctx, req)
	if err != nil {
		f.t.Fatalf("compile: %v", err)
	}
	if env.Tokens > req.Budget {
		f.t.Fatalf("envelope has %d tokens, budget %d", env.Tokens, req.Budget)
	}
	return env, tr
}

func val(s string) json.RawMessage { b, _ := json.Marshal(s); return b }

func mustContain(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("envelope lacks %q:\n%s", w, text)
		}
	}
}

func mustNotContain(t *testing.T, text string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Errorf("envelope contains %q:\n%s", b, text)
		}
	}
}

func omittedReason(tr compile.Trace, id string) compile.OmitReason {
	for _, o := range tr.Omitted {
		if o.ObjectID == id {
			return o.Reason
		}
	}
	return ""
}

func compiledAs(tr compile.Trace, id string) compile.CompiledAs {
	for _, o := range tr.Compiled {
		if o.ObjectID == id {
			return o.CompiledAs
		}
	}
	return ""
}

// matched returns how an object was compiled because it matched the
// request ("" when it was not, or only as filler of free budget).
func matched(tr compile.Trace, id string) compile.CompiledAs {
	for _, o := range tr.Compiled {
		if o.ObjectID == id && o.Fill == "" {
			return o.CompiledAs
		}
	}
	return ""
}
