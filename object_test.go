package tenure_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestDefaults(t *testing.T) {
	cases := []struct {
		name  string
		in    tenure.Object
		check func(o tenure.Object) string
	}{
		{"ContentBecomesValue", tenure.Object{Key: "k", Content: "hello"}, func(o tenure.Object) string {
			if string(o.Value) != `"hello"` || o.NormalizedClaim != `k == "hello"` {
				return "value " + string(o.Value) + " claim " + o.NormalizedClaim
			}
			return ""
		}},
		{"ValueBecomesContent", tenure.Object{Key: "n", Value: json.RawMessage(`{"b":1, "a":2}`)}, func(o tenure.Object) string {
			if o.Content != `{"a":2,"b":1}` {
				return "content " + o.Content
			}
			return ""
		}},
		{"Trust", tenure.Object{Content: "x"}, func(o tenure.Object) string {
			sa, cs := o.Trust()
			if sa != 0.5 || cs != 1 || o.Level() != tenure.LevelUser {
				return "trust/level wrong"
			}
			return ""
		}},
		{"OrganizationalSource", tenure.Object{Content: "x", Source: "finance_system"}, func(o tenure.Object) string {
			return want(o.MemoryType, tenure.MemoryOrganizational)
		}},
		{"CapabilitySource", tenure.Object{Content: "x", Source: "observation"}, func(o tenure.Object) string {
			return want(o.MemoryType, tenure.MemoryCapability) + want(o.Level(), tenure.LevelInferred)
		}},
		{"UserSource", tenure.Object{Content: "x", Source: "preference"}, func(o tenure.Object) string {
			return want(o.MemoryType, tenure.MemoryUser)
		}},
		{"CorpusIsRetrieved", tenure.Object{Content: "x", Layer: tenure.LayerCorpus}, func(o tenure.Object) string {
			return want(o.ObjectType, tenure.TypeRetrievedPassage) + want(o.Level(), tenure.LevelRetrieved)
		}},
		{"ConstraintType", tenure.Object{Content: "x", IsConstraint: true}, func(o tenure.Object) string {
			return want(o.ObjectType, tenure.TypeActionableConstraint)
		}},
		{"SessionScopeID", tenure.Object{Content: "x", Scope: tenure.ScopeSession, SessionID: "s1"}, func(o tenure.Object) string {
			return want(o.ScopeID, "s1")
		}},
		{"Times", tenure.Object{Content: "x"}, func(o tenure.Object) string {
			if !o.ValidFrom.Equal(now) || !o.LastConfirmed.Equal(now) {
				return "times not defaulted to now"
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.in
			o.TenantID = "t"
			o.ApplyDefaults(now)
			if err := o.Validate(); err != nil {
				t.Fatalf("validate: %v", err)
			}
			if msg := c.check(o); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func want[T comparable](got, want T) string {
	if got != want {
		return strings.TrimSpace(strings.Join([]string{"got", toString(got), "want", toString(want)}, " ")) + "; "
	}
	return ""
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestCheckInputAllowsEdits(t *testing.T) {
	o := tenure.Object{Content: "x", TxStart: now, Status: tenure.StatusSuperseded}
	if err := o.CheckInput(); tenure.ErrorField(err) != "tx_start" {
		t.Errorf("new claim with tx_start: %v", err)
	}
	o.Version = 3
	if err := o.CheckInput(); err != nil {
		t.Errorf("edit with store fields: %v", err)
	}
}

func TestUnknownVocabularyListsAllowed(t *testing.T) {
	_, err := tenure.ParseVocab("layer", "attic", tenure.Layers)
	e := tenure.AsError(err)
	if e.Code != tenure.CodeInvalid || e.Field != "layer" || !strings.Contains(e.Message, "working_set") {
		t.Errorf("error = %+v", e)
	}
}

func TestObjectJSONRoundTrip(t *testing.T) {
	o := tenure.Object{Key: "k", Content: "c", TenantID: "t", AuthorityLevel: tenure.Ptr(0),
		PermissionScope: tenure.PermissionScope{AllowRoles: []string{"a"}}, DecayRule: &tenure.DecayRule{HalfLifeDays: 3}}
	o.ApplyDefaults(now)
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"object_id"`, `"normalized_claim"`, `"canonical_entity_ids"`, `"source_authority"`,
		`"confidence_score"`, `"security_classification"`, `"permission_scope"`, `"valid_from"`, `"valid_until"`, `"tx_start"`,
		`"tx_end"`, `"last_confirmed"`, `"why_it_matters"`, `"applicable_task_types"`, `"contradiction_status"`, `"authority_level":0`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON lacks %s: %s", field, b)
		}
	}
	var back tenure.Object
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Level() != 0 || back.DecayRule.HalfLifeDays != 3 || back.PermissionScope.AllowRoles[0] != "a" {
		t.Errorf("round trip lost fields: %+v", back)
	}
}

func TestErrorTable(t *testing.T) {
	for _, c := range []struct {
		code       tenure.Code
		http, exit int
	}{{tenure.CodeInvalid, 400, 2}, {tenure.CodeNotFound, 404, 3}, {tenure.CodeForbidden, 403, 4},
		{tenure.CodeConflict, 409, 5}, {tenure.CodeUnauthenticated, 401, 6}, {tenure.CodeInternal, 500, 1}, {"bogus", 500, 1}} {
		if tenure.HTTPStatus(c.code) != c.http || tenure.ExitCode(c.code) != c.exit {
			t.Errorf("%s → %d/%d, want %d/%d", c.code, tenure.HTTPStatus(c.code), tenure.ExitCode(c.code), c.http, c.exit)
		}
	}
	err := tenure.Errorf(tenure.CodeInvalid, "key", "bad %s", "thing")
	if err.Error() != "key: bad thing" || tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("error = %q", err.Error())
	}
}
