package http_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// TestTraceAccess checks who reads a trace: its producer (the same user
// with the same or a higher clearance) and trace:read holders of the
// tenant; to anyone else it answers exactly like an id never used. What
// the gates withheld shows only with trace:full.
func TestTraceAccess(t *testing.T) {
	e := newEnv(t)
	ctx := e.ctx
	admin := e.client(e.admin)
	if _, err := admin.Put(ctx, tenure.Principal{}, tenure.Object{Key: "merger.plan", Content: "acquire globex soon",
		SecurityClassification: tenure.Confidential, IsConstraint: true}); err != nil {
		t.Fatal(err)
	}
	key := func(user string, c tenure.Classification, perms ...string) string {
		return e.key(tenure.Principal{TenantID: "acme", UserID: user, Authority: "employee", Clearance: c, Permissions: perms})
	}
	ceoHigh, ceoLow, ceoHigher := key("ceo", tenure.Confidential), key("ceo", tenure.Public), key("ceo", tenure.HighlyRestricted)
	auditor, other := key("audit", tenure.Public, tenure.PermTraceRead), key("eve", tenure.HighlyRestricted)
	fullAuditor := e.client(key("audit", tenure.Public, tenure.PermTraceRead, tenure.PermTraceFull))

	_, tr, err := e.client(ceoHigh).Compile(ctx, compile.Request{Budget: 500, Query: "merger plan"})
	if err != nil {
		t.Fatal(err)
	}
	missing := e.call("GET", "/v1/traces/no-such-trace", e.admin, "")
	for _, tc := range []struct {
		name   string
		secret string
		ok     bool
	}{
		{"Producer", ceoHigh, true},
		{"SameUserHigherClearance", ceoHigher, true},
		{"TraceRead", auditor, true},
		{"ErrNotFound/SameUserLowerClearance", ceoLow, false},
		{"ErrNotFound/OtherUser", other, false},
		{"ErrNotFound/TopRank", e.admin, false},
		{"ErrNotFound/OtherTenant", e.bob, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client(tc.secret).Trace(ctx, tr.TraceID)
			if tc.ok {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			wantError(t, err, tenure.CodeNotFound, "id")
			// The answer a missing id gets, word for word.
			got := e.call("GET", "/v1/traces/"+tr.TraceID, tc.secret, "")
			if want := strings.ReplaceAll(missing.body, "no-such-trace", tr.TraceID); got.body != want {
				t.Errorf("answer %s, want the missing id's %s", got.body, want)
			}
		})
	}

	// Withheld objects: a principal without trace:full never sees them,
	// not even counted; with it, the compile and the trace show them.
	_, tr, err = e.client(ceoLow).Compile(ctx, compile.Request{Budget: 500, Query: "merger plan"})
	if err != nil || len(tr.Withheld) != 0 {
		t.Errorf("compile without trace:full: withheld %v, %v", tr.Withheld, err)
	}
	fullP := tenure.Principal{TenantID: "acme", UserID: "ceo", Authority: "employee", Clearance: tenure.Public,
		Permissions: []string{tenure.PermTraceFull}}
	full := e.client(e.key(fullP))
	_, tr, err = full.Compile(ctx, compile.Request{Budget: 500, Query: "merger plan"})
	if err != nil || tr.Withheld[compile.OmitPermission] != 1 {
		t.Fatalf("compile with trace:full: withheld %v, %v", tr.Withheld, err)
	}
	read, err := e.client(auditor).Trace(ctx, tr.TraceID)
	if err != nil || len(read.Withheld) != 0 || omitted(read, compile.OmitPermission) != 0 {
		t.Errorf("trace:read without trace:full sees withheld %v, %d omitted for permission, %v", read.Withheld,
			omitted(read, compile.OmitPermission), err)
	}
	read, err = fullAuditor.Trace(ctx, tr.TraceID)
	if err != nil || read.Withheld[compile.OmitPermission] != 1 || omitted(read, compile.OmitPermission) != 1 {
		t.Errorf("trace:full reader sees withheld %v, %v", read.Withheld, err)
	}
}

func omitted(tr compile.Trace, reason compile.OmitReason) int {
	n := 0
	for _, o := range tr.Omitted {
		if o.Reason == reason {
			n++
		}
	}
	return n
}
