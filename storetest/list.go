package storetest

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

// testList checks List's filters and limit.
func testList(t *testing.T, f Factory) {
	e := newEnv(t, f)
	e.put(employee, tenure.Object{Key: "a.1", Content: "x", Layer: tenure.LayerProject, ProjectID: "p"})
	e.put(employee, tenure.Object{Key: "a.2", Content: "y", ObjectType: tenure.TypePreference})
	e.put(employee, tenure.Object{Key: "b.1", Content: "z", Scope: tenure.ScopeDraft, ScopeID: "d"})
	e.put(employee, tenure.Object{Key: "a.2", Content: "y2"})
	count := func(f tenure.Filter) int {
		t.Helper()
		l, err := e.s.List(e.ctx, employee, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(l)
	}
	p := tenure.Scope{ProjectID: "p", ScopeID: "d"}
	checks := []struct {
		name string
		f    tenure.Filter
		want int
	}{
		{"All", tenure.Filter{Scope: p}, 4},
		{"Active", tenure.Filter{Scope: p, Status: tenure.StatusActive}, 3},
		{"Superseded", tenure.Filter{Scope: p, Status: tenure.StatusSuperseded}, 1},
		{"Layer", tenure.Filter{Scope: p, Layer: tenure.LayerProject}, 1},
		{"Type", tenure.Filter{Scope: p, ObjectType: tenure.TypePreference}, 1},
		{"ScopeKind", tenure.Filter{Scope: p, ScopeKind: tenure.ScopeDraft}, 1},
		{"KeyPrefix", tenure.Filter{Scope: p, KeyPrefix: "a."}, 3},
		{"Limit", tenure.Filter{Scope: p, Limit: 2}, 2},
		{"OutOfScope", tenure.Filter{}, 2},
	}
	for _, c := range checks {
		if got := count(c.f); got != c.want {
			t.Errorf("%s: %d objects, want %d", c.name, got, c.want)
		}
	}
	_, err := e.s.List(e.ctx, employee, tenure.Filter{Status: "alive"})
	wantCode(t, err, tenure.CodeInvalid, "status")
	// An empty or inverted transaction-time window is a mistake, not a
	// question whose answer is "nothing".
	from := e.clock.Now()
	_, err = e.s.List(e.ctx, employee, tenure.Filter{TxFrom: &from, TxUntil: &from})
	wantCode(t, err, tenure.CodeInvalid, "tx_until")
}
