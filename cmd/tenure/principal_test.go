package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
)

func TestPrincipal(t *testing.T) {
	db := newDB(t)
	salary := put(t, db, `{"key":"salary","value":100,"security_classification":"confidential"}`)
	if salary.Object.WrittenBy != localUser || salary.Object.AuthorAuthority != tenure.DefaultHierarchy.Top() {
		t.Errorf("default principal wrote as %q/%q, want %q/%q", salary.Object.WrittenBy, salary.Object.AuthorAuthority, localUser, tenure.DefaultHierarchy.Top())
	}
	memo := put(t, db, `{"key":"memo","value":"hello"}`)
	intern := []string{"--user", "ivy", "--authority", "intern", "--clearance", "restricted", "--roles", "intern"}
	internFile := writeFile(t, "intern.json", `{"user_id":"ivy","tenant_id":"default","authority":"intern","roles":["intern"]}`)
	managerFile := writeFile(t, "manager.json", `{"user_id":"max","user_name":"Max","tenant_id":"default","organization":"acme",
		"department":"finance","roles":["manager"],"authority":"manager","clearance":"confidential","permissions":[]}`)
	notFound := tenure.ExitCode(tenure.CodeNotFound)
	for _, tc := range []struct {
		name  string
		flags []string
		want  int
	}{
		{"Owner", nil, 0},
		{"InternFlags", intern, notFound},
		{"InternFile", []string{"--principal", internFile}, notFound},
		{"InternFileWithClearanceFlag", []string{"--principal", internFile, "--clearance", "confidential"}, 0},
		{"ManagerFile", []string{"--principal", managerFile}, 0},
		{"OtherTenant", []string{"--tenant", "acme"}, notFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tenureCLI(t, "", append([]string{"get", "salary", "--db", db}, tc.flags...)...)
			if r.code != tc.want {
				t.Errorf("get salary: exit %d, want %d; stderr %s", r.code, tc.want, r.stderr)
			}
		})
	}
	t.Run("InternList", func(t *testing.T) {
		if diff := cmp.Diff([]string{`memo="hello"`}, listed(t, db, append(intern, "--status", "all")...)); diff != "" {
			t.Errorf("intern's list (-want +got):\n%s", diff)
		}
	})
	t.Run("InternCannotRetireOwnersObject", func(t *testing.T) {
		r := tenureCLI(t, "", append([]string{"retire", "--id", memo.Object.ObjectID, "--db", db}, intern...)...)
		if want := tenure.ExitCode(tenure.CodeForbidden); r.code != want {
			t.Errorf("retire: exit %d, want %d (forbidden); stderr %s", r.code, want, r.stderr)
		}
	})
	t.Run("InternWrites", func(t *testing.T) {
		r := put(t, db, `{"key":"idea","value":"x"}`, intern...)
		if r.Object.WrittenBy != "ivy" || r.Object.AuthorAuthority != "intern" {
			t.Errorf("written by %q/%q, want ivy/intern", r.Object.WrittenBy, r.Object.AuthorAuthority)
		}
	})
}
