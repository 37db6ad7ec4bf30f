package storetest

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

// testPermissions checks role and clearance filtering on every read path.
func testPermissions(t *testing.T, f Factory) {
	e := newEnv(t, f)
	salary := e.put(cfo, tenure.Object{Key: "salary.band", Content: "L5: 150k", SecurityClassification: tenure.Confidential})
	e.put(cfo, tenure.Object{Key: "forecast", Content: "Q3 up 4%", PermissionScope: tenure.PermissionScope{AllowRoles: []string{"finance"}}})
	e.put(cfo, tenure.Object{Key: "memo", Content: "offsite", PermissionScope: tenure.PermissionScope{DenyRoles: []string{"intern"}}})
	e.put(cfo, tenure.Object{Key: "menu", Content: "pizza"})

	cases := []struct {
		p       tenure.Principal
		visible map[string]bool
	}{
		{cfo, map[string]bool{"salary.band": true, "forecast": true, "memo": true, "menu": true}},
		{employee, map[string]bool{"memo": true, "menu": true}},
		{intern, map[string]bool{"menu": true}},
		{admin, map[string]bool{"salary.band": true, "memo": true, "menu": true}},
	}
	for _, c := range cases {
		t.Run(c.p.UserID, func(t *testing.T) {
			for _, key := range []string{"salary.band", "forecast", "memo", "menu"} {
				_, err := e.s.CurrentValue(e.ctx, c.p, key, tenure.Read{})
				if got := err == nil; got != c.visible[key] {
					t.Errorf("%s reads %s: visible=%v (%v), want %v", c.p.UserID, key, got, err, c.visible[key])
				}
				_, herr := e.s.History(e.ctx, c.p, key, tenure.Scope{})
				if got := herr == nil; got != c.visible[key] {
					t.Errorf("%s history %s: visible=%v, want %v", c.p.UserID, key, got, c.visible[key])
				}
			}
			list, err := e.s.List(e.ctx, c.p, tenure.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != len(c.visible) {
				t.Errorf("list returned %d objects, want %d", len(list), len(c.visible))
			}
			for _, o := range list {
				if !c.visible[o.Key] {
					t.Errorf("list leaked %s", o.Key)
				}
			}
		})
	}
	// Denied looks exactly like missing.
	_, denied := e.s.Get(e.ctx, intern, salary.Object.ObjectID, tenure.Read{})
	wantCode(t, denied, tenure.CodeNotFound, "object_id")
	// Writing above one's clearance is refused.
	_, err := e.s.Put(e.ctx, intern, tenure.Object{Key: "x", Content: "y", SecurityClassification: tenure.Restricted})
	wantCode(t, err, tenure.CodeForbidden, "security_classification")
	// Writing platform or developer rules needs rank.
	_, err = e.s.Put(e.ctx, employee, tenure.Object{Key: "x", Content: "y", AuthorityLevel: tenure.Ptr(1)})
	wantCode(t, err, tenure.CodeForbidden, "authority_level")
	// A claim the writer cannot read never decides its outcome: the two
	// coexist, and each reader sees the preferred claim it can read.
	r := e.put(intern, tenure.Object{Key: "salary.band", Content: "L5: 300k"})
	if r.Outcome != tenure.OutcomeCreated || r.Object.SupersessionLink != "" || len(r.Changes) != 0 {
		t.Errorf("intern write over hidden claim: outcome %s link %q changes %v, want created alone", r.Outcome, r.Object.SupersessionLink, r.Changes)
	}
	e.wantValue(intern, "salary.band", tenure.Read{}, "L5: 300k")
	e.wantValue(cfo, "salary.band", tenure.Read{}, "L5: 150k")
}
