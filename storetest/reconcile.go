package storetest

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testReconcile covers each branch of the implicit reconciliation protocol.
func testReconcile(t *testing.T, f Factory) {
	t.Run("AuthorityLevel", func(t *testing.T) {
		e := newEnv(t, f)
		dev := e.put(admin, tenure.Object{Key: "tone", Value: []byte(`"formal"`), AuthorityLevel: tenure.Ptr(1)})
		e.clock.Advance(time.Hour)
		r := e.put(admin, tenure.Object{Key: "tone", Value: []byte(`"casual"`), AuthorityLevel: tenure.Ptr(3)})
		if r.Outcome != tenure.OutcomeOverridden || r.Reason != tenure.ReasonAuthority || r.Object.SupersessionLink != dev.Object.ObjectID {
			t.Errorf("weaker claim: %s/%s link %q, want overridden/authority_level link %s", r.Outcome, r.Reason, r.Object.SupersessionLink, dev.Object.ObjectID)
		}
		if r.Object.ContradictionStatus != tenure.Overridden || r.Object.IsValid {
			t.Errorf("weaker claim contradiction %s valid %v", r.Object.ContradictionStatus, r.Object.IsValid)
		}
		e.wantValue(admin, "tone", tenure.Read{}, "formal")
		// A stronger level displaces the held claim even if older in valid time.
		e.clock.Advance(time.Hour)
		r = e.put(admin, tenure.Object{Key: "tone", Value: []byte(`"terse"`), AuthorityLevel: tenure.Ptr(0), ValidFrom: T0.Add(-time.Hour)})
		if r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 1 || r.Changes[0].To != tenure.StatusOverridden {
			t.Fatalf("stronger claim: %+v", r)
		}
		e.wantValue(admin, "tone", tenure.Read{}, "terse")
	})
	t.Run("AuthorRank", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(employee, fact("budget", "10k"))
		e.clock.Advance(time.Hour)
		r := e.put(cfo, fact("budget", "8k"))
		if r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 1 || r.Changes[0].Reason != tenure.ReasonAuthorRank {
			t.Fatalf("manager over employee: %+v", r)
		}
		e.clock.Advance(time.Hour)
		if r := e.put(employee, fact("budget", "12k")); r.Outcome != tenure.OutcomeOverridden {
			t.Errorf("employee after manager: outcome %s, want overridden", r.Outcome)
		}
		e.wantValue(employee, "budget", tenure.Read{}, "8k")
	})
	t.Run("ValidTime", func(t *testing.T) {
		e := newEnv(t, f)
		old := e.put(employee, tenure.Object{Key: "stock", Value: []byte(`100`), ValidFrom: day(0)})
		e.clock.Set(day(14))
		r := e.put(employee, tenure.Object{Key: "stock", Value: []byte(`95`), ValidFrom: day(14)})
		if r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 1 || r.Changes[0].Reason != tenure.ReasonValidTime {
			t.Fatalf("newer valid time: %+v", r)
		}
		o := e.get(employee, old.Object.ObjectID)
		if o.Status != tenure.StatusSuperseded || o.ValidUntil == nil || !o.ValidUntil.Equal(day(14)) {
			t.Errorf("older claim: status %s valid_until %v, want superseded until %v", o.Status, o.ValidUntil, day(14))
		}
		e.wantValue(employee, "stock", tenure.Read{}, "95")
		e.wantValue(employee, "stock", tenure.Read{AsOfValid: ptrTime(day(3))}, "100")
		// A late report of an earlier value becomes history, not current.
		e.clock.Set(day(20))
		late := e.put(employee, tenure.Object{Key: "stock", Value: []byte(`97`), ValidFrom: day(7)})
		if late.Outcome != tenure.OutcomeSuperseded || late.Object.ValidUntil == nil || !late.Object.ValidUntil.Equal(day(14)) {
			t.Errorf("late claim: %s until %v, want superseded until %v", late.Outcome, late.Object.ValidUntil, day(14))
		}
		e.wantValue(employee, "stock", tenure.Read{}, "95")
		e.wantValue(employee, "stock", tenure.Read{AsOfValid: ptrTime(day(10))}, "97")
		e.wantValue(employee, "stock", tenure.Read{AsOfValid: ptrTime(day(3))}, "100")
	})
	t.Run("ValidPrecision", func(t *testing.T) {
		// "I live in Austin" said on 10 January, then "I moved to Denver
		// last month" said on 5 February: the move is dated to January at
		// month precision, which holds 10 January, so the later report
		// wins although its valid_from (1 January) is earlier.
		e := newEnv(t, f)
		jan1, jan10, feb5 := day(0).Truncate(24*time.Hour), day(9), day(35)
		e.clock.Set(jan10)
		austin := e.put(employee, tenure.Object{Key: "lives_in", Value: []byte(`"Austin"`), ValidFrom: jan10})
		e.clock.Set(feb5)
		r := e.put(employee, tenure.Object{Key: "lives_in", Value: []byte(`"Denver"`), ValidFrom: jan1, ValidPrecision: tenure.PrecisionMonth})
		if r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 1 || r.Changes[0].Reason != tenure.ReasonValidTime {
			t.Fatalf("later report in the same month: %+v, want created superseding Austin", r)
		}
		if r.Object.ValidPrecision != tenure.PrecisionMonth {
			t.Errorf("valid_precision = %q, want month", r.Object.ValidPrecision)
		}
		// Its window closes at the later valid_from, its own: the move
		// happened some time in January, and January is Denver's.
		if o := e.get(employee, austin.Object.ObjectID); o.Status != tenure.StatusSuperseded || o.ValidUntil == nil || !o.ValidUntil.Equal(jan10) {
			t.Errorf("earlier report: status %s until %v, want superseded until %v", o.Status, o.ValidUntil, jan10)
		}
		e.wantValue(employee, "lives_in", tenure.Read{}, "Denver")
		e.wantValue(employee, "lives_in", tenure.Read{AsOfValid: ptrTime(day(19))}, "Denver")
		if got := e.get(employee, r.Object.ObjectID); got.ValidPrecision != tenure.PrecisionMonth {
			t.Errorf("stored valid_precision = %q, want month", got.ValidPrecision)
		}

		// The same report without a precision is a late report of an
		// earlier state: history, as before.
		e = newEnv(t, f)
		e.clock.Set(jan10)
		e.put(employee, tenure.Object{Key: "lives_in", Value: []byte(`"Austin"`), ValidFrom: jan10})
		e.clock.Set(feb5)
		if r := e.put(employee, tenure.Object{Key: "lives_in", Value: []byte(`"Denver"`), ValidFrom: jan1}); r.Outcome != tenure.OutcomeSuperseded {
			t.Errorf("exact earlier valid time: outcome %s, want superseded", r.Outcome)
		}
		e.wantValue(employee, "lives_in", tenure.Read{}, "Austin")

		// Outside the period the later valid time still wins: December
		// does not hold 10 January.
		e = newEnv(t, f)
		e.clock.Set(jan10)
		e.put(employee, tenure.Object{Key: "lives_in", Value: []byte(`"Austin"`), ValidFrom: jan10})
		e.clock.Set(feb5)
		r = e.put(employee, tenure.Object{Key: "lives_in", Value: []byte(`"Denver"`), ValidFrom: jan1.AddDate(0, -1, 0), ValidPrecision: tenure.PrecisionMonth})
		if r.Outcome != tenure.OutcomeSuperseded {
			t.Errorf("earlier period: outcome %s, want superseded", r.Outcome)
		}
		e.wantValue(employee, "lives_in", tenure.Read{}, "Austin")
	})
	t.Run("SourceTrust", func(t *testing.T) {
		e := newEnv(t, f)
		at := day(1)
		e.clock.Set(day(2))
		strong := e.put(employee, tenure.Object{Key: "hq", Value: []byte(`"Chicago"`), ValidFrom: at, SourceAuthority: tenure.Ptr(0.9)})
		r := e.put(employee, tenure.Object{Key: "hq", Value: []byte(`"Boston"`), ValidFrom: at, SourceAuthority: tenure.Ptr(0.4)})
		if r.Outcome != tenure.OutcomeOverridden || r.Reason != tenure.ReasonSourceTrust || r.Object.ContradictionStatus != tenure.Disputed {
			t.Errorf("weaker source: %s/%s/%s, want overridden/source_trust/disputed", r.Outcome, r.Reason, r.Object.ContradictionStatus)
		}
		// Equal source authority: confidence decides.
		r = e.put(employee, tenure.Object{Key: "hq", Value: []byte(`"Denver"`), ValidFrom: at, SourceAuthority: tenure.Ptr(0.9), ConfidenceScore: tenure.Ptr(0.5)})
		if r.Outcome != tenure.OutcomeOverridden || r.Reason != tenure.ReasonSourceTrust {
			t.Errorf("lower confidence: %s/%s", r.Outcome, r.Reason)
		}
		e.wantValue(employee, "hq", tenure.Read{}, "Chicago")
		if got := e.get(employee, strong.Object.ObjectID); got.Status != tenure.StatusActive {
			t.Errorf("stronger source status = %s", got.Status)
		}
	})
	t.Run("TieQuarantines", func(t *testing.T) {
		e := newEnv(t, f)
		at := day(1)
		e.clock.Set(day(2))
		a := e.put(employee, tenure.Object{Key: "meeting", Value: []byte(`"Tuesday 2pm"`), ValidFrom: at})
		r := e.put(employee, tenure.Object{Key: "meeting", Value: []byte(`"Thursday 3pm"`), ValidFrom: at})
		if r.Outcome != tenure.OutcomeQuarantined || r.ResolutionID == "" {
			t.Fatalf("tie: outcome %s resolution %q, want quarantined with a resolution", r.Outcome, r.ResolutionID)
		}
		for _, id := range []string{a.Object.ObjectID, r.Object.ObjectID} {
			o := e.get(employee, id)
			if o.Status != tenure.StatusQuarantined || o.ContradictionStatus != tenure.Disputed || o.IsValid {
				t.Errorf("%s: status %s contradiction %s valid %v, want quarantined/disputed", id, o.Status, o.ContradictionStatus, o.IsValid)
			}
		}
		e.wantMissing(employee, "meeting", tenure.Read{})
		open, err := e.s.Resolutions(e.ctx, employee, true)
		if err != nil || len(open) != 1 || len(open[0].ObjectIDs) != 2 || open[0].Kind != tenure.ResolveConflict {
			t.Fatalf("open resolutions = %+v, %v; want one conflict naming both", open, err)
		}
		// A new claim settles the slot and closes the request.
		e.clock.Advance(time.Hour)
		e.put(employee, fact("meeting", "Friday 10am"))
		e.wantValue(employee, "meeting", tenure.Read{}, "Friday 10am")
		if open, _ := e.s.Resolutions(e.ctx, employee, true); len(open) != 0 {
			t.Errorf("resolution still open after a new claim: %+v", open)
		}
	})
	t.Run("DisjointWindows", func(t *testing.T) {
		e := newEnv(t, f)
		e.clock.Set(day(1))
		e.put(employee, tenure.Object{Key: "office", Value: []byte(`"Paris"`), ValidFrom: day(0), ValidUntil: ptrTime(day(10))})
		r := e.put(employee, tenure.Object{Key: "office", Value: []byte(`"Rome"`), ValidFrom: day(10)})
		if r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 0 {
			t.Fatalf("disjoint windows conflicted: %+v", r)
		}
		e.wantValue(employee, "office", tenure.Read{}, "Paris")
		e.wantValue(employee, "office", tenure.Read{AsOfValid: ptrTime(day(12))}, "Rome")
	})
}
