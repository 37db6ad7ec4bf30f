package main

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

func TestKeysCommand(t *testing.T) {
	db := newDB(t)
	created := mustJSON[createdKey](t, "", "keys", "create", "--db", db, "--name", "ci", "--tenant", "acme", "--user", "bob",
		"--authority", "employee", "--roles", "sales,ops")
	k := created.Key
	if !strings.HasPrefix(created.Secret, tenure.APIKeyPrefix) || k.Principal.TenantID != "acme" || k.Principal.Clearance != tenure.Public ||
		len(k.Principal.Roles) != 2 {
		t.Fatalf("keys create = %+v", created)
	}
	r := mustCLI(t, "", "keys", "create", "--db", db, "--tenant", "globex", "--guest")
	if secret := strings.TrimSpace(r.stdout); !strings.HasPrefix(secret, tenure.APIKeyPrefix) || strings.Contains(secret, "\n") {
		t.Errorf("keys create prints %q on stdout, want only the secret", r.stdout)
	}
	if !strings.Contains(r.stderr, `tenant "globex"`) || !strings.Contains(r.stderr, "authority guest") {
		t.Errorf("keys create describes the key as %q", r.stderr)
	}
	all := mustJSON[[]tenure.APIKey](t, "", "keys", "list", "--db", db)
	acme := mustJSON[[]tenure.APIKey](t, "", "keys", "list", "--db", db, "--tenant", "acme")
	if len(all) != 2 || len(acme) != 1 || acme[0].ID != k.ID {
		t.Errorf("keys list: %d keys, acme %d", len(all), len(acme))
	}
	if out := mustCLI(t, "", "keys", "list", "--db", db).stdout; strings.Contains(out, created.Secret) || !strings.Contains(out, k.ID) {
		t.Errorf("keys list shows:\n%s", out)
	}
	revoked := mustJSON[tenure.APIKey](t, "", "keys", "revoke", k.ID, "--db", db)
	if revoked.RevokedAt == nil {
		t.Errorf("keys revoke = %+v", revoked)
	}
	for _, tc := range []struct {
		name string
		args []string
		code tenure.Code
		want string
	}{
		{"ErrNoAction", []string{"keys"}, tenure.CodeInvalid, "usage: tenure keys"},
		{"ErrAction", []string{"keys", "rotate"}, tenure.CodeInvalid, `unknown action "rotate"`},
		{"ErrAuthority", []string{"keys", "create", "--user", "u", "--authority", "janitor"}, tenure.CodeInvalid, "principal.authority"},
		{"ErrNoUser", []string{"keys", "create"}, tenure.CodeInvalid, "--user: required"},
		{"ErrGuestWithUser", []string{"keys", "create", "--user", "u", "--guest"}, tenure.CodeInvalid, "--guest: a guest key has no user"},
		{"ErrCreateFlag", []string{"keys", "list", "--user", "x"}, tenure.CodeInvalid, "--user: applies to keys create only"},
		{"ErrRevokeUnknown", []string{"keys", "revoke", "key_nope"}, tenure.CodeNotFound, "no API key"},
		{"ErrRevokeArgs", []string{"keys", "revoke"}, tenure.CodeInvalid, "usage: tenure keys revoke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tenureCLI(t, "", append(tc.args, "--db", db)...)
			if r.code != tenure.ExitCode(tc.code) || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tenure.ExitCode(tc.code), tc.want)
			}
		})
	}
}
