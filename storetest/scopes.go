package storetest

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// testScopes checks that nothing outside the caller's scope is returned.
func testScopes(t *testing.T, f Factory) {
	t.Run("Tenant", func(t *testing.T) {
		e := newEnv(t, f)
		r := e.put(admin, fact("secret", "acme-only"))
		e.wantMissing(outsider, "secret", tenure.Read{})
		_, err := e.s.Get(e.ctx, outsider, r.Object.ObjectID, tenure.Read{})
		wantCode(t, err, tenure.CodeNotFound, "")
		_, missing := e.s.Get(e.ctx, outsider, "no-such-id", tenure.Read{})
		if got, want := err.Error(), missing.Error(); got != strings.ReplaceAll(want, "no-such-id", r.Object.ObjectID) {
			t.Errorf("denied and missing differ:\n%s\n%s", got, want)
		}
		if _, err := e.s.History(e.ctx, outsider, "secret", tenure.Scope{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("history across tenants: %v", err)
		}
		list, _ := e.s.List(e.ctx, outsider, tenure.Filter{})
		if len(list) != 0 {
			t.Errorf("list across tenants returned %d objects", len(list))
		}
		// Writing into another tenant is refused.
		_, err = e.s.Put(e.ctx, outsider, tenure.Object{TenantID: "acme", Key: "x", Content: "y"})
		wantCode(t, err, tenure.CodeForbidden, "tenant_id")
		// Superseding across tenants finds nothing.
		_, err = e.s.Put(e.ctx, outsider, tenure.Object{Key: "secret", Content: "mine", Supersedes: r.Object.ObjectID})
		wantCode(t, err, tenure.CodeNotFound, "supersedes")
		e.wantValue(admin, "secret", tenure.Read{}, "acme-only")
	})
	t.Run("ProjectUserSessionTask", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(employee, tenure.Object{Key: "style", Content: "tabs", ProjectID: "p1"})
		e.put(employee, tenure.Object{Key: "style", Content: "spaces", ProjectID: "p2"})
		e.put(employee, tenure.Object{Key: "mood", Content: "tired", UserID: "eve"})
		e.put(employee, tenure.Object{Key: "draft", Content: "para 1", SessionID: "s1"})
		e.put(employee, tenure.Object{Key: "step", Content: "3", TaskID: "t1"})
		e.wantValue(employee, "style", tenure.Read{Scope: tenure.Scope{ProjectID: "p1"}}, "tabs")
		e.wantValue(employee, "style", tenure.Read{Scope: tenure.Scope{ProjectID: "p2"}}, "spaces")
		e.wantMissing(employee, "style", tenure.Read{})
		e.wantValue(employee, "mood", tenure.Read{}, "tired")
		e.wantMissing(intern, "mood", tenure.Read{})
		e.wantValue(employee, "draft", tenure.Read{Scope: tenure.Scope{SessionID: "s1"}}, "para 1")
		e.wantMissing(employee, "draft", tenure.Read{Scope: tenure.Scope{SessionID: "s2"}})
		e.wantValue(employee, "step", tenure.Read{Scope: tenure.Scope{TaskID: "t1"}}, "3")
		e.wantMissing(employee, "step", tenure.Read{})
		// Acting for another user needs a permission.
		_, err := e.s.CurrentValue(e.ctx, intern, "mood", tenure.Read{Scope: tenure.Scope{UserID: "eve"}})
		wantCode(t, err, tenure.CodeForbidden, "user_id")
		_, err = e.s.Put(e.ctx, intern, tenure.Object{Key: "mood", Content: "happy", UserID: "eve"})
		wantCode(t, err, tenure.CodeForbidden, "user_id")
		list, err := e.s.List(e.ctx, intern, tenure.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 0 {
			t.Errorf("intern without scope sees %d scoped objects", len(list))
		}
	})
	t.Run("Sandbox", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(employee, fact("budget", "10k"))
		r := e.put(employee, tenure.Object{Key: "budget", Content: "50k", Scope: tenure.ScopeHypothetical, ScopeID: "what-if"})
		if r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 0 {
			t.Fatalf("hypothetical write touched global state: %+v", r)
		}
		e.wantValue(employee, "budget", tenure.Read{}, "10k")
		e.wantValue(employee, "budget", tenure.Read{Scope: tenure.Scope{ScopeID: "what-if"}}, "50k")
		e.wantValue(employee, "budget", tenure.Read{Scope: tenure.Scope{ScopeID: "other"}}, "10k")
		_, err := e.s.Put(e.ctx, employee, tenure.Object{Key: "budget", Content: "1k", Scope: tenure.ScopeDraft, ScopeID: "d1", Supersedes: "budget"})
		wantCode(t, err, tenure.CodeInvalid, "supersedes")
		e.wantValue(employee, "budget", tenure.Read{}, "10k")
	})
}
