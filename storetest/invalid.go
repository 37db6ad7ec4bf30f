package storetest

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testInvalid checks that bad input is rejected with the field named and
// that nothing is written.
func testInvalid(t *testing.T, f Factory) {
	e := newEnv(t, f)
	ok := func() tenure.Object { return tenure.Object{Key: "k", Content: "c"} }
	cases := []struct {
		name  string
		mut   func(*tenure.Object)
		p     tenure.Principal
		code  tenure.Code
		field string
	}{
		{"Empty", func(o *tenure.Object) { *o = tenure.Object{} }, employee, tenure.CodeInvalid, "content"},
		{"ObjectType", func(o *tenure.Object) { o.ObjectType = "rumour" }, employee, tenure.CodeInvalid, "object_type"},
		{"Layer", func(o *tenure.Object) { o.Layer = "attic" }, employee, tenure.CodeInvalid, "layer"},
		{"Classification", func(o *tenure.Object) { o.SecurityClassification = "secret" }, employee, tenure.CodeInvalid, "security_classification"},
		{"TaskType", func(o *tenure.Object) { o.ApplicableTaskTypes = []tenure.TaskType{"poetry"} }, employee, tenure.CodeInvalid, "applicable_task_types"},
		{"MemoryType", func(o *tenure.Object) { o.MemoryType = "episodic" }, employee, tenure.CodeInvalid, "memory_type"},
		{"ScopeKind", func(o *tenure.Object) { o.Scope = "galaxy" }, employee, tenure.CodeInvalid, "scope"},
		{"RetirementRule", func(o *tenure.Object) { o.RetirementRule = "burn" }, employee, tenure.CodeInvalid, "retirement_rule"},
		{"ConstraintType", func(o *tenure.Object) { o.IsConstraint, o.ConstraintType = true, "vibe" }, employee, tenure.CodeInvalid, "constraint_type"},
		{"ConstraintTypeWithoutConstraint", func(o *tenure.Object) { o.ConstraintType = tenure.ConstraintBudget }, employee, tenure.CodeInvalid, "constraint_type"},
		{"SourceAuthority", func(o *tenure.Object) { o.SourceAuthority = tenure.Ptr(1.5) }, employee, tenure.CodeInvalid, "source_authority"},
		{"ConfidenceNaN", func(o *tenure.Object) { o.ConfidenceScore = tenure.Ptr(math.NaN()) }, employee, tenure.CodeInvalid, "confidence_score"},
		{"AuthorityLevel", func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(7) }, employee, tenure.CodeInvalid, "authority_level"},
		{"ValidWindow", func(o *tenure.Object) { o.ValidFrom = day(2); o.ValidUntil = ptrTime(day(1)) }, employee, tenure.CodeInvalid, "valid_until"},
		{"ValidPrecision", func(o *tenure.Object) { o.ValidPrecision = "fortnight" }, employee, tenure.CodeInvalid, "valid_precision"},
		{"ValidFromOutOfCalendar", func(o *tenure.Object) { o.ValidFrom = time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC) }, employee, tenure.CodeInvalid, "valid_from"},
		{"ValidUntilOutOfCalendar", func(o *tenure.Object) { o.ValidUntil = ptrTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) }, employee, tenure.CodeInvalid, "valid_until"},
		{"TxStart", func(o *tenure.Object) { o.TxStart = day(1) }, employee, tenure.CodeInvalid, "tx_start"},
		{"Status", func(o *tenure.Object) { o.Status = tenure.StatusSuperseded }, employee, tenure.CodeInvalid, "status"},
		{"SupersessionLink", func(o *tenure.Object) { o.SupersessionLink = "x" }, employee, tenure.CodeInvalid, "supersession_link"},
		{"SourceOrigin", func(o *tenure.Object) { o.SourceOrigin = "not a uri" }, employee, tenure.CodeInvalid, "source_origin"},
		{"DecayHalfLife", func(o *tenure.Object) { o.DecayRule = &tenure.DecayRule{HalfLifeDays: 0} }, employee, tenure.CodeInvalid, "decay_rule.half_life_days"},
		{"DecayThreshold", func(o *tenure.Object) { o.DecayRule = &tenure.DecayRule{HalfLifeDays: 1, MinimumThreshold: 2} }, employee, tenure.CodeInvalid, "decay_rule.minimum_threshold"},
		{"HypotheticalWithoutID", func(o *tenure.Object) { o.Scope = tenure.ScopeHypothetical }, employee, tenure.CodeInvalid, "scope_id"},
		{"GlobalWithScopeID", func(o *tenure.Object) { o.ScopeID = "x" }, employee, tenure.CodeInvalid, "scope_id"},
		{"WorkingSetWithoutSession", func(o *tenure.Object) { o.Layer = tenure.LayerWorkingSet }, employee, tenure.CodeInvalid, "session_id"},
		{"KeyControlChar", func(o *tenure.Object) { o.Key = "a\nb" }, employee, tenure.CodeInvalid, "key"},
		{"KeyTooLong", func(o *tenure.Object) { o.Key = strings.Repeat("k", 300) }, employee, tenure.CodeTooLarge, "key"},
		{"ContentTooLong", func(o *tenure.Object) { o.Content = strings.Repeat("x", tenure.MaxContentLen+1) }, employee, tenure.CodeTooLarge, "content"},
		{"ValueNotJSON", func(o *tenure.Object) { o.Value = json.RawMessage(`{bad`) }, employee, tenure.CodeInvalid, "value"},
		{"EmptyAlias", func(o *tenure.Object) { o.Aliases = []string{""} }, employee, tenure.CodeInvalid, "aliases"},
		{"BadPrincipalAuthority", func(*tenure.Object) {}, tenure.Principal{UserID: "x", TenantID: "acme", Authority: "emperor"}, tenure.CodeInvalid, "authority"},
		{"BadPrincipalClearance", func(*tenure.Object) {}, tenure.Principal{UserID: "x", TenantID: "acme", Clearance: "cosmic"}, tenure.CodeInvalid, "clearance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ok()
			c.mut(&o)
			_, err := e.s.Put(e.ctx, c.p, o)
			wantCode(t, err, c.code, c.field)
		})
	}
	t.Run("VocabularyErrorListsValues", func(t *testing.T) {
		_, err := e.s.Put(e.ctx, employee, tenure.Object{Content: "c", ObjectType: "rumour"})
		if err == nil || !strings.Contains(err.Error(), "policy_rule") {
			t.Errorf("error %v does not list the allowed values", err)
		}
	})
	t.Run("BatchAllOrNothing", func(t *testing.T) {
		_, err := e.s.PutBatch(e.ctx, employee, []tenure.Object{ok(), {Key: "k2", Content: "c", Layer: "attic"}})
		wantCode(t, err, tenure.CodeInvalid, "[1].layer")
	})
	list, err := e.s.List(e.ctx, admin, tenure.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("invalid writes left %d objects behind", len(list))
	}
}
