package tenure_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

func TestHierarchy(t *testing.T) {
	h := tenure.DefaultHierarchy
	if !(h.Rank("policy") > h.Rank("manager") && h.Rank("manager") > h.Rank("employee") &&
		h.Rank("employee") > h.Rank("intern") && h.Rank("intern") > h.Rank("guest")) {
		t.Error("default hierarchy out of order")
	}
	if h.Rank("emperor") != -1 || h.Top() != "policy" || h.Lowest() != "guest" {
		t.Error("rank lookups wrong")
	}
	custom := tenure.Hierarchy{Ranks: []string{"owner", "member"}}
	if custom.Rank("owner") != 1 || custom.Rank("member") != 0 {
		t.Error("custom hierarchy ranks wrong")
	}
	if err := (tenure.Hierarchy{Ranks: []string{"a", "a"}}).Validate(); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("duplicate ranks accepted: %v", err)
	}
}

func TestCanRead(t *testing.T) {
	p := tenure.Principal{TenantID: "t", Authority: "employee", Roles: []string{"sales"}, Clearance: tenure.Restricted}
	cases := []struct {
		name string
		o    tenure.Object
		ok   bool
	}{
		{"Public", tenure.Object{TenantID: "t", SecurityClassification: tenure.Public}, true},
		{"AtClearance", tenure.Object{TenantID: "t", SecurityClassification: tenure.Restricted}, true},
		{"AboveClearance", tenure.Object{TenantID: "t", SecurityClassification: tenure.Confidential}, false},
		{"OtherTenant", tenure.Object{TenantID: "u", SecurityClassification: tenure.Public}, false},
		{"AllowedRole", tenure.Object{TenantID: "t", SecurityClassification: tenure.Public, PermissionScope: tenure.PermissionScope{AllowRoles: []string{"sales"}}}, true},
		{"AllowedByAuthority", tenure.Object{TenantID: "t", SecurityClassification: tenure.Public, PermissionScope: tenure.PermissionScope{AllowRoles: []string{"employee"}}}, true},
		{"NotAllowed", tenure.Object{TenantID: "t", SecurityClassification: tenure.Public, PermissionScope: tenure.PermissionScope{AllowRoles: []string{"hr"}}}, false},
		{"DenyWins", tenure.Object{TenantID: "t", SecurityClassification: tenure.Public, PermissionScope: tenure.PermissionScope{AllowRoles: []string{"sales"}, DenyRoles: []string{"sales"}}}, false},
	}
	for _, c := range cases {
		if got := p.CanRead(&c.o); got != c.ok {
			t.Errorf("%s: CanRead = %v, want %v", c.name, got, c.ok)
		}
	}
}
