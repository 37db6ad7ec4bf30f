package engine_test

import (
	"slices"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

func TestAudience(t *testing.T) {
	base := tenure.Object{TenantID: "acme", Key: "k", UserID: "ann", SecurityClassification: tenure.Restricted,
		PermissionScope: tenure.PermissionScope{AllowRoles: []string{"sales", "hr"}, DenyRoles: []string{"intern"}}}
	same := []func(o *tenure.Object){
		func(o *tenure.Object) { o.PermissionScope.AllowRoles = []string{"hr", "sales", "hr"} },
		func(o *tenure.Object) { o.Key, o.Content, o.Value = "other", "other text", []byte(`"v"`) },
		func(o *tenure.Object) { o.Scope = tenure.ScopeGlobal },
		func(o *tenure.Object) { o.Scope, o.ScopeID = tenure.ScopeTask, "t1" }, // scope_id narrows only a sandbox
	}
	differ := []func(o *tenure.Object){
		func(o *tenure.Object) { o.UserID = "bob" },
		func(o *tenure.Object) { o.PersonaID = "coach" },
		func(o *tenure.Object) { o.ProjectID = "p1" },
		func(o *tenure.Object) { o.SessionID = "s1" },
		func(o *tenure.Object) { o.TaskID = "t1" },
		func(o *tenure.Object) { o.Scope, o.ScopeID = tenure.ScopeHypothetical, "h1" },
		func(o *tenure.Object) { o.SecurityClassification = tenure.Confidential },
		func(o *tenure.Object) { o.PermissionScope.AllowRoles = []string{"sales"} },
		func(o *tenure.Object) { o.PermissionScope.DenyRoles = nil },
	}
	want := engine.Audience(&base)
	for i, change := range same {
		o := base.Clone()
		change(&o)
		if got := engine.Audience(&o); got != want {
			t.Errorf("same %d: audience %s, want %s", i, got, want)
		}
	}
	for i, change := range differ {
		o := base.Clone()
		change(&o)
		if got := engine.Audience(&o); got == want {
			t.Errorf("differ %d: audience %s, the same as the base's", i, got)
		}
	}
}

func TestReadableClasses(t *testing.T) {
	objs := []tenure.Object{
		{SecurityClassification: tenure.Public},
		{SecurityClassification: tenure.HighlyRestricted},
		{UserID: "bob", SecurityClassification: tenure.Public},
		{SecurityClassification: tenure.Public, PermissionScope: tenure.PermissionScope{DenyRoles: []string{"sales"}}},
		{SecurityClassification: tenure.Public, PermissionScope: tenure.PermissionScope{AllowRoles: []string{"sales"}}},
		{SecurityClassification: tenure.Public, ProjectID: "p1"},
		{SecurityClassification: tenure.Public, ProjectID: "p2"},
	}
	var classes []engine.ObjectClass
	for i := range objs {
		classes = append(classes, engine.ObjectClass{ID: int64(10 - i), Audience: engine.Audience(&objs[i]), Docs: int64(i + 1), Length: int64(100 * (i + 1))})
	}
	p := tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "employee", Clearance: tenure.Confidential, Roles: []string{"sales"}}
	s := tenure.Scope{UserID: "ann", ProjectID: "p1"}
	t.Run("OK", func(t *testing.T) {
		ids, docs, length, err := engine.ReadableClasses("acme", classes, func(o *tenure.Object) bool { return tenure.Visible(p, s, o) })
		if err != nil {
			t.Fatal(err)
		}
		// Readable: the public one (10), the one allowing sales (6) and
		// project p1's (5).
		if want := []int64{5, 6, 10}; !slices.Equal(ids, want) || docs != 1+5+6 || length != 100+500+600 {
			t.Errorf("got %v, %d docs, length %d; want %v, 12 docs, length 1200", ids, docs, length, want)
		}
	})
	t.Run("OKAnotherTenant", func(t *testing.T) {
		ids, docs, _, err := engine.ReadableClasses("globex", classes, func(o *tenure.Object) bool { return tenure.Visible(p, s, o) })
		if err != nil || len(ids) != 0 || docs != 0 {
			t.Errorf("another tenant's classes: %v, %d docs (%v), want none", ids, docs, err)
		}
	})
	t.Run("OKNoKeep", func(t *testing.T) {
		ids, docs, _, err := engine.ReadableClasses("acme", classes, nil)
		if err != nil || len(ids) != len(classes) || docs != 28 {
			t.Errorf("without keep: %v, %d docs (%v), want every class, 28 docs", ids, docs, err)
		}
	})
	t.Run("ErrBadAudience", func(t *testing.T) {
		bad := append(slices.Clone(classes), engine.ObjectClass{ID: 99, Audience: `{"user_id": 7}`})
		if _, _, _, err := engine.ReadableClasses("acme", bad, func(*tenure.Object) bool { return true }); err == nil {
			t.Error("a class whose audience does not decode was counted or left out silently")
		}
	})
}
