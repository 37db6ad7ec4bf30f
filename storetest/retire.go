package storetest

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

// testRetire checks decay weights and each retirement rule.
func testRetire(t *testing.T, f Factory) {
	e := newEnv(t, f)
	decay := &tenure.DecayRule{HalfLifeDays: 10, MinimumThreshold: 0.3}
	mk := func(key string, rule tenure.RetirementRule) tenure.Object {
		return e.put(employee, tenure.Object{Key: key, Content: key, DecayRule: decay, RetirementRule: rule}).Object
	}
	archive := mk("a", tenure.RetireArchive)
	demote := mk("b", tenure.RetireDemoteToArchival)
	del := mk("c", tenure.RetireHardDelete)
	confirm := mk("d", tenure.RetireConfirm)
	norule := mk("e", "")
	fresh := e.put(employee, tenure.Object{Key: "f", Content: "f", DecayRule: &tenure.DecayRule{HalfLifeDays: 100, MinimumThreshold: 0.3}}).Object
	dependent := e.put(employee, tenure.Object{Key: "g", Content: "g", DependsOn: []string{"a"}}).Object

	if w := archive.DecayWeight(day(10)); w < 0.49 || w > 0.51 {
		t.Errorf("weight after one half-life = %v, want 0.5", w)
	}
	e.clock.Set(day(20)) // weight 0.25 < 0.3 for the 10-day rules
	dry, err := e.s.Retire(e.ctx, employee, tenure.RetireOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Actions) != 5 {
		t.Fatalf("dry run planned %d actions, want 5: %+v", len(dry.Actions), dry.Actions)
	}
	e.wantValue(employee, "a", tenure.Read{}, "a")

	rep, err := e.s.Retire(e.ctx, employee, tenure.RetireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]tenure.RetirementRule{}
	for _, a := range rep.Actions {
		rules[a.ObjectID] = a.Rule
		if a.Reason != tenure.ReasonDecayed || a.Weight >= 0.3 {
			t.Errorf("action %+v: want decayed below 0.3", a)
		}
	}
	want := map[string]tenure.RetirementRule{archive.ObjectID: tenure.RetireArchive, demote.ObjectID: tenure.RetireDemoteToArchival,
		del.ObjectID: tenure.RetireHardDelete, confirm.ObjectID: tenure.RetireConfirm, norule.ObjectID: tenure.RetireArchive}
	for id, r := range want {
		if rules[id] != r {
			t.Errorf("%s retired with %q, want %q", id, rules[id], r)
		}
	}
	if _, ok := rules[fresh.ObjectID]; ok {
		t.Error("object above its threshold was retired")
	}
	e.wantMissing(employee, "a", tenure.Read{})
	if o := e.get(employee, archive.ObjectID); o.Status != tenure.StatusArchived {
		t.Errorf("archived status %s", o.Status)
	}
	if o := e.get(employee, demote.ObjectID); o.Tier != tenure.TierArchival || o.Status != tenure.StatusActive {
		t.Errorf("demoted: tier %s status %s", o.Tier, o.Status)
	}
	if _, err := e.s.Get(e.ctx, employee, del.ObjectID, tenure.Read{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("hard-deleted object still readable: %v", err)
	}
	h, err := e.s.History(e.ctx, employee, "c", tenure.Scope{})
	if err != nil || len(h.Versions) != 0 || len(h.Deletions) != 1 || h.Deletions[0].ObjectID != del.ObjectID {
		t.Errorf("history after hard delete = %+v, %v; want one tombstone", h, err)
	}
	if o := e.get(employee, confirm.ObjectID); !o.NeedsReview || o.Status != tenure.StatusActive {
		t.Errorf("confirmation: needs_review %v status %s", o.NeedsReview, o.Status)
	}
	open, _ := e.s.Resolutions(e.ctx, employee, true)
	if len(open) != 1 || open[0].Kind != tenure.ResolveConfirmation {
		t.Errorf("open resolutions = %+v, want one confirmation", open)
	}
	if o := e.get(employee, dependent.ObjectID); !o.NeedsReview {
		t.Error("dependent of an archived object not flagged for review")
	}
	// A second sweep does not repeat finished work.
	again, err := e.s.Retire(e.ctx, employee, tenure.RetireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range again.Actions {
		if a.Rule != tenure.RetireConfirm || a.ResolutionID != open[0].ID {
			t.Errorf("second sweep repeated %+v", a)
		}
	}
	// Explicit retirement (forget) respects authority.
	policy := e.put(cfo, tenure.Object{Key: "p", Content: "p"})
	_, err = e.s.Retire(e.ctx, intern, tenure.RetireOptions{ObjectIDs: []string{policy.Object.ObjectID}})
	wantCode(t, err, tenure.CodeForbidden, "object_ids[0]")
	if _, err := e.s.Retire(e.ctx, cfo, tenure.RetireOptions{ObjectIDs: []string{policy.Object.ObjectID}}); err != nil {
		t.Fatal(err)
	}
	e.wantMissing(cfo, "p", tenure.Read{})
	_, err = e.s.Retire(e.ctx, cfo, tenure.RetireOptions{Rule: "shred"})
	wantCode(t, err, tenure.CodeInvalid, "rule")
	_, err = e.s.Retire(e.ctx, cfo, tenure.RetireOptions{Rule: tenure.RetireHardDelete})
	wantCode(t, err, tenure.CodeInvalid, "rule")
}
