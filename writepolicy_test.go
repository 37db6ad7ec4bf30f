package tenure_test

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestCheckWrite(t *testing.T) {
	h := tenure.DefaultHierarchy
	rules := []string{tenure.PermRulesWrite}
	env := []string{tenure.PermEnvironmentWrite}
	obj := func(mut func(*tenure.Object)) *tenure.Object {
		o := &tenure.Object{Key: "k", Content: "v", TenantID: "t"}
		mut(o)
		o.ApplyDefaults(time.Unix(0, 0))
		return o
	}
	cases := []struct {
		name  string
		auth  string
		perms []string
		o     *tenure.Object
		field string // "" means allowed
	}{
		{"OK/plain fact by guest", "guest", nil, obj(func(*tenure.Object) {}), ""},
		{"OK/budget constraint by guest", "guest", nil, obj(func(o *tenure.Object) { o.IsConstraint, o.ConstraintType = true, tenure.ConstraintBudget }), ""},
		{"OK/policy constraint with permission", "intern", rules, obj(func(o *tenure.Object) { o.IsConstraint, o.ConstraintType = true, tenure.ConstraintPolicy }), ""},
		{"OK/level 0 by top rank with permission", "policy", rules, obj(func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(0) }), ""},
		{"OK/environment with permission", "guest", env, obj(func(o *tenure.Object) { o.Layer = tenure.LayerEnvironment }), ""},
		{"ErrForbidden/policy constraint by guest", "guest", nil, obj(func(o *tenure.Object) { o.IsConstraint, o.ConstraintType = true, tenure.ConstraintPolicy }), "constraint_type"},
		{"ErrForbidden/policy layer by manager", "manager", nil, obj(func(o *tenure.Object) { o.Layer = tenure.LayerPolicy }), "layer"},
		{"ErrForbidden/tenant layer", "employee", nil, obj(func(o *tenure.Object) { o.Layer = tenure.LayerTenant }), "layer"},
		{"ErrForbidden/policy rule", "intern", nil, obj(func(o *tenure.Object) { o.ObjectType = tenure.TypePolicyRule }), "object_type"},
		{"ErrForbidden/level 1 by top rank without permission", "policy", nil, obj(func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(1) }), "authority_level"},
		{"ErrForbidden/level 0 by manager with permission", "manager", rules, obj(func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(0) }), "authority_level"},
		{"ErrForbidden/tool layer", "employee", nil, obj(func(o *tenure.Object) { o.Layer = tenure.LayerTool }), "layer"},
		{"ErrForbidden/environment without permission", "policy", rules, obj(func(o *tenure.Object) { o.Layer = tenure.LayerEnvironment }), "layer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := h.CheckWrite(tenure.Principal{TenantID: "t", Authority: c.auth, Permissions: c.perms}, c.o, nil)
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if tenure.ErrorCode(err) != tenure.CodeForbidden || tenure.ErrorField(err) != c.field {
				t.Fatalf("err = %v; want forbidden on %s", err, c.field)
			}
		})
	}
}

func TestValidateWritePolicy(t *testing.T) {
	h := tenure.DefaultHierarchy
	if err := h.ValidateWritePolicy(tenure.DefaultWritePolicy); err != nil {
		t.Fatalf("default policy invalid: %v", err)
	}
	for _, bad := range [][]tenure.WriteRule{
		{{Field: "colour", Value: "red", Permission: "x"}},
		{{Field: "layer", Value: "policy"}},
		{{Field: "layer", Value: "policy", Permission: "x", MinRank: "emperor"}},
	} {
		if err := h.ValidateWritePolicy(bad); tenure.ErrorCode(err) != tenure.CodeInvalid {
			t.Errorf("%+v accepted: %v", bad, err)
		}
	}
}

func TestRetrieved(t *testing.T) {
	for _, c := range []struct {
		o    tenure.Object
		want bool
	}{
		{tenure.Object{SourceOrigin: "https://evil.example/page2"}, true},
		{tenure.Object{SourceOrigin: "HTTP://x.example"}, true},
		{tenure.Object{SourceOrigin: "file:///etc/passwd"}, true},
		{tenure.Object{ObjectType: tenure.TypeRetrievedPassage}, true},
		{tenure.Object{Layer: tenure.LayerCorpus}, true},
		{tenure.Object{AuthorityLevel: tenure.Ptr(tenure.LevelRetrieved)}, true},
		{tenure.Object{SourceOrigin: "user://alice/chat/42"}, false},
		{tenure.Object{}, false},
	} {
		if got := c.o.Retrieved(); got != c.want {
			t.Errorf("%+v: Retrieved = %v, want %v", c.o, got, c.want)
		}
	}
}
