package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// Factory opens a fresh, empty store that reads time from now and uses the
// default hierarchy. It registers its own cleanup.
type Factory func(t *testing.T, now func() time.Time) tenure.Store

// Clock is a settable test clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{t: t.UTC()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t.UTC()
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// T0 is the suite's starting time.
var T0 = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)

// day returns T0 plus n days.
func day(n float64) time.Time { return T0.Add(time.Duration(n * 24 * float64(time.Hour))) }

// env is one test's store, clock and principals.
type env struct {
	t     *testing.T
	s     tenure.Store
	clock *Clock
	ctx   context.Context
}

func newEnv(t *testing.T, f Factory) *env {
	t.Helper()
	c := NewClock(T0)
	return &env{t: t, s: f(t, c.Now), clock: c, ctx: context.Background()}
}

// Principals used across the suite.
var (
	admin = tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted, Roles: []string{"admin"},
		Permissions: []string{tenure.PermRulesWrite, tenure.PermEnvironmentWrite}}
	cfo = tenure.Principal{UserID: "cfo", TenantID: "acme", Authority: "manager", Clearance: tenure.Confidential, Roles: []string{"finance"},
		Permissions: []string{tenure.PermRulesWrite}}
	employee = tenure.Principal{UserID: "eve", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted, Roles: []string{"sales"}}
	intern   = tenure.Principal{UserID: "ian", TenantID: "acme", Authority: "intern", Clearance: tenure.Public}
	outsider = tenure.Principal{UserID: "oz", TenantID: "globex", Authority: "policy", Clearance: tenure.HighlyRestricted, Roles: []string{"admin"}}
)

func (e *env) put(p tenure.Principal, o tenure.Object) tenure.WriteResult {
	e.t.Helper()
	r, err := e.s.Put(e.ctx, p, o)
	if err != nil {
		e.t.Fatalf("put %s: %v", o.Key, err)
	}
	return r
}

func (e *env) current(p tenure.Principal, key string, r tenure.Read) tenure.Object {
	e.t.Helper()
	o, err := e.s.CurrentValue(e.ctx, p, key, r)
	if err != nil {
		e.t.Fatalf("current value %s: %v", key, err)
	}
	return o
}

func (e *env) wantValue(p tenure.Principal, key string, r tenure.Read, want string) {
	e.t.Helper()
	o, err := e.s.CurrentValue(e.ctx, p, key, r)
	if err != nil {
		e.t.Fatalf("current value %s: %v (want %s)", key, err, want)
	}
	if got := tenure.ValueText(o.Value); got != want {
		e.t.Errorf("current value %s = %q, want %q", key, got, want)
	}
}

func (e *env) wantMissing(p tenure.Principal, key string, r tenure.Read) {
	e.t.Helper()
	o, err := e.s.CurrentValue(e.ctx, p, key, r)
	if code := tenure.ErrorCode(err); code != tenure.CodeNotFound {
		e.t.Errorf("current value %s = %q (err %v), want not_found", key, tenure.ValueText(o.Value), err)
	}
}

func (e *env) get(p tenure.Principal, id string) tenure.Object {
	e.t.Helper()
	o, err := e.s.Get(e.ctx, p, id, tenure.Read{})
	if err != nil {
		e.t.Fatalf("get %s: %v", id, err)
	}
	return o
}

// fact builds a keyed claim with a string value.
func fact(key, value string) tenure.Object {
	v, _ := json.Marshal(value)
	return tenure.Object{Key: key, Value: v}
}

func wantCode(t *testing.T, err error, code tenure.Code, field string) {
	t.Helper()
	if got := tenure.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
	if field != "" && tenure.ErrorField(err) != field {
		t.Fatalf("error field = %q (%v), want %q", tenure.ErrorField(err), err, field)
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// Run runs the whole conformance suite.
func Run(t *testing.T, f Factory) {
	t.Run("TestVectors", func(t *testing.T) { testVectors(t, f) })
	t.Run("Reconcile", func(t *testing.T) { testReconcile(t, f) })
	t.Run("Explicit", func(t *testing.T) { testExplicit(t, f) })
	t.Run("ReadModes", func(t *testing.T) { testReadModes(t, f) })
	t.Run("History", func(t *testing.T) { testHistory(t, f) })
	t.Run("Dependencies", func(t *testing.T) { testDependencies(t, f) })
	t.Run("Scopes", func(t *testing.T) { testScopes(t, f) })
	t.Run("Permissions", func(t *testing.T) { testPermissions(t, f) })
	t.Run("Audience", func(t *testing.T) { testAudience(t, f) })
	t.Run("Layers", func(t *testing.T) { testLayers(t, f) })
	t.Run("Retire", func(t *testing.T) { testRetire(t, f) })
	t.Run("Edits", func(t *testing.T) { testEdits(t, f) })
	t.Run("Invalid", func(t *testing.T) { testInvalid(t, f) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, f) })
	t.Run("List", func(t *testing.T) { testList(t, f) })
	t.Run("WritePolicy", func(t *testing.T) { testWritePolicy(t, f) })
}
