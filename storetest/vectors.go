package storetest

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testVectors runs the three test vectors of state-layers.md at the store
// level (the compiler runs them end to end).
func testVectors(t *testing.T, f Factory) {
	t.Run("BasicSupersession", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(admin, fact("status_v1", "approved"))
		e.clock.Advance(time.Minute)
		r := e.put(admin, tenure.Object{Key: "status_v2", Value: []byte(`"cancelled"`), Supersedes: "status_v1"})
		if r.Outcome != tenure.OutcomeCreated {
			t.Fatalf("outcome = %s, want created", r.Outcome)
		}
		e.wantValue(admin, "status_v1", tenure.Read{}, "cancelled")
		e.wantValue(admin, "status_v2", tenure.Read{}, "cancelled")
		old := e.get(admin, r.Object.Supersedes)
		if old.IsValid || old.Status != tenure.StatusSuperseded || old.ContradictionStatus != tenure.Overridden ||
			old.SupersessionLink != r.Object.ObjectID {
			t.Errorf("old = valid %v status %s contradiction %s link %q; want invalid, superseded, overridden, link %s",
				old.IsValid, old.Status, old.ContradictionStatus, old.SupersessionLink, r.Object.ObjectID)
		}
	})
	t.Run("EmphaticRepetition", func(t *testing.T) {
		e := newEnv(t, f)
		first := e.put(admin, fact("order_v1", "approved"))
		for range 2 {
			e.clock.Advance(time.Minute)
			if r := e.put(admin, fact("order_v1", "approved")); r.Outcome != tenure.OutcomeConfirmed || r.Object.ObjectID != first.Object.ObjectID {
				t.Fatalf("repeat: outcome %s id %s, want confirmed %s", r.Outcome, r.Object.ObjectID, first.Object.ObjectID)
			}
		}
		e.clock.Advance(time.Minute)
		e.put(admin, tenure.Object{Key: "order_v2", Value: []byte(`"cancelled"`), Supersedes: "order_v1"})
		e.wantValue(admin, "order_v1", tenure.Read{}, "cancelled")

		// The same with one key: repetition never outweighs a newer claim.
		for range 3 {
			e.put(admin, fact("order", "approved"))
			e.clock.Advance(time.Second)
		}
		e.put(admin, fact("order", "cancelled"))
		e.wantValue(admin, "order", tenure.Read{}, "cancelled")
		h, err := e.s.History(e.ctx, admin, "order", tenure.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		objects := map[string]bool{}
		for _, v := range h.Versions {
			objects[v.ObjectID] = true
		}
		if len(objects) != 2 {
			t.Errorf("history holds %d objects, want 2 (repetitions confirm, not duplicate)", len(objects))
		}
	})
	t.Run("AuthorityOverride", func(t *testing.T) {
		e := newEnv(t, f)
		policy := e.put(cfo, tenure.Object{Key: "discount.max", Value: []byte(`"max 15%"`), Source: "CFO",
			ObjectType: tenure.TypePolicyRule, IsConstraint: true, ConstraintType: tenure.ConstraintPolicy})
		e.clock.Advance(time.Hour)
		// Implicit: the intern's claim is stored but overridden.
		r := e.put(intern, fact("discount.max", "25%"))
		if r.Outcome != tenure.OutcomeOverridden || r.Reason != tenure.ReasonAuthorRank {
			t.Errorf("intern claim: outcome %s reason %s, want overridden by author_rank", r.Outcome, r.Reason)
		}
		e.wantValue(intern, "discount.max", tenure.Read{}, "max 15%")
		// Explicit: superseding the CFO's policy is rejected, nothing written.
		_, err := e.s.Put(e.ctx, intern, tenure.Object{Key: "discount.offer", Value: []byte(`"25%"`), Supersedes: "discount.max"})
		wantCode(t, err, tenure.CodeForbidden, "supersedes")
		if got := e.get(cfo, policy.Object.ObjectID); got.Status != tenure.StatusActive {
			t.Errorf("policy status = %s after intern write, want active", got.Status)
		}
		if _, err := e.s.CurrentValue(e.ctx, admin, "discount.offer", tenure.Read{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("rejected write left a value behind: %v", err)
		}
	})
}
