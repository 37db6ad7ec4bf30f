package storetest

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// testAudience checks that claims with different audiences never decide
// each other's outcome unless the deciding one is readable by everyone who
// reads the decided one, and that no answer names an object its reader
// cannot read.
func testAudience(t *testing.T, f Factory) {
	t.Run("Coexist", func(t *testing.T) {
		// The intern writes over a claim it cannot read: both are
		// stored, and each reader sees the preferred claim it can read.
		e := newEnv(t, f)
		e.put(cfo, tenure.Object{Key: "sec.top", Content: "cfo's", SecurityClassification: tenure.Confidential})
		r := e.put(intern, tenure.Object{Key: "sec.top", Content: "intern's"})
		if r.Outcome != tenure.OutcomeCreated || r.Reason != "" || len(r.Changes) != 0 {
			t.Errorf("intern's write: %s %s %v, want created", r.Outcome, r.Reason, r.Changes)
		}
		e.wantValue(intern, "sec.top", tenure.Read{}, "intern's")
		e.wantValue(cfo, "sec.top", tenure.Read{}, "cfo's")
		h, err := e.s.History(e.ctx, intern, "sec.top", tenure.Scope{})
		if err != nil || len(h.Versions) != 1 || len(h.Chain) != 0 || h.Versions[0].SupersessionLink != "" {
			t.Errorf("intern's history: %+v, %v; want its own claim alone", h, err)
		}
		// A claim everyone who reads either can read, outranking both,
		// displaces both.
		m := e.put(admin, tenure.Object{Key: "sec.top", Content: "admin's"})
		if len(m.Changes) != 2 || m.Changes[0].To != tenure.StatusOverridden || m.Changes[1].To != tenure.StatusOverridden {
			t.Errorf("admin's write changed %+v, want both claims overridden", m.Changes)
		}
		e.wantValue(cfo, "sec.top", tenure.Read{}, "admin's")
		e.wantValue(intern, "sec.top", tenure.Read{}, "admin's")
	})
	t.Run("ErrInvalid/SupersedeWiderAudience", func(t *testing.T) {
		e := newEnv(t, f)
		pub := e.put(intern, tenure.Object{Key: "plan", Content: "public plan"})
		_, err := e.s.Put(e.ctx, cfo, tenure.Object{Key: "plan", Content: "secret plan", SecurityClassification: tenure.Confidential,
			Supersedes: "plan"})
		wantCode(t, err, tenure.CodeInvalid, "supersedes")
		if got := e.get(intern, pub.Object.ObjectID); got.Status != tenure.StatusActive {
			t.Errorf("refused supersession changed the target: %s", got.Status)
		}
	})
	t.Run("LinksRedacted", func(t *testing.T) {
		// The cfo supersedes its confidential claim with a public one:
		// the intern reads the new claim but not what it superseded.
		e := newEnv(t, f)
		old := e.put(cfo, tenure.Object{Key: "price", Content: "100", SecurityClassification: tenure.Confidential})
		n := e.put(cfo, tenure.Object{Key: "price", Content: "120", Supersedes: "price"})
		if got := e.get(cfo, n.Object.ObjectID); got.Supersedes != old.Object.ObjectID {
			t.Errorf("cfo reads supersedes %q, want %q", got.Supersedes, old.Object.ObjectID)
		}
		if got := e.get(intern, n.Object.ObjectID); got.Supersedes != "" {
			t.Errorf("intern reads supersedes %q, want it blank", got.Supersedes)
		}
		if got := e.current(intern, "price", tenure.Read{}); got.Supersedes != "" {
			t.Errorf("intern's current value names %q", got.Supersedes)
		}
		list, err := e.s.List(e.ctx, intern, tenure.Filter{KeyPrefix: "price"})
		if err != nil || len(list) != 1 || list[0].Supersedes != "" {
			t.Errorf("intern's list: %+v, %v", list, err)
		}
		h, err := e.s.History(e.ctx, intern, "price", tenure.Scope{})
		if err != nil || len(h.Versions) != 1 || h.Versions[0].Supersedes != "" || len(h.Chain) != 0 {
			t.Errorf("intern's history: %+v, %v", h, err)
		}
	})
	t.Run("Dependencies", func(t *testing.T) {
		// A public claim derived from a key is flagged when a claim of
		// that key its readers can read is displaced, not when one they
		// cannot read is.
		e := newEnv(t, f)
		e.put(cfo, tenure.Object{Key: "rate", Content: "5%", SecurityClassification: tenure.Confidential})
		d := e.put(intern, tenure.Object{Key: "quote", Content: "quote at 5%", DependsOn: []string{"rate"}})
		e.put(admin, tenure.Object{Key: "rate", Content: "6%", SecurityClassification: tenure.Confidential})
		if got := e.get(intern, d.Object.ObjectID); got.NeedsReview {
			t.Error("a displaced claim the intern cannot read flagged its quote")
		}
		e.put(employee, tenure.Object{Key: "rate", Content: "4%"})
		e.put(admin, tenure.Object{Key: "rate", Content: "7%"})
		if got := e.get(intern, d.Object.ObjectID); !got.NeedsReview {
			t.Error("a displaced public claim did not flag its quote")
		}
	})
	t.Run("Resolutions", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(cfo, tenure.Object{Key: "bonus", Content: "10%", SecurityClassification: tenure.Confidential, ValidFrom: T0})
		q := e.put(cfo, tenure.Object{Key: "bonus", Content: "12%", SecurityClassification: tenure.Confidential, ValidFrom: T0})
		if q.Outcome != tenure.OutcomeQuarantined {
			t.Fatalf("tie: %s", q.Outcome)
		}
		for p, want := range map[*tenure.Principal]int{&cfo: 1, &intern: 0, &employee: 0} {
			if got, err := e.s.Resolutions(e.ctx, *p, true); err != nil || len(got) != want {
				t.Errorf("%s lists %d resolutions, %v; want %d", p.UserID, len(got), err, want)
			}
		}
	})
	t.Run("Tombstones", func(t *testing.T) {
		e := newEnv(t, f)
		x := e.put(cfo, tenure.Object{Key: "memo", Content: "layoffs", SecurityClassification: tenure.Confidential})
		if _, err := e.s.Retire(e.ctx, cfo, tenure.RetireOptions{ObjectIDs: []string{x.Object.ObjectID}, Rule: tenure.RetireHardDelete}); err != nil {
			t.Fatal(err)
		}
		h, err := e.s.History(e.ctx, cfo, "memo", tenure.Scope{})
		if err != nil || len(h.Deletions) != 1 {
			t.Errorf("cfo's history: %+v, %v; want the deletion", h, err)
		}
		_, err = e.s.History(e.ctx, intern, "memo", tenure.Scope{})
		_, never := e.s.History(e.ctx, intern, "never", tenure.Scope{})
		wantCode(t, err, tenure.CodeNotFound, "key")
		if got, want := err.Error(), strings.ReplaceAll(never.Error(), "never", "memo"); got != want {
			t.Errorf("intern's history of a deleted secret: %q, want %q", got, want)
		}
	})
	t.Run("ReplacedLayers", func(t *testing.T) {
		// A working-set item or identity the writer cannot read does not
		// exist for it: its own is stored beside it.
		e := newEnv(t, f)
		ws := e.put(cfo, tenure.Object{Key: "draft", Content: "cfo's draft", Layer: tenure.LayerWorkingSet, SessionID: "s1",
			SecurityClassification: tenure.Confidential})
		mine := e.put(intern, tenure.Object{Key: "draft", Content: "intern's draft", Layer: tenure.LayerWorkingSet, SessionID: "s1"})
		if mine.Outcome != tenure.OutcomeCreated || mine.Object.ObjectID == ws.Object.ObjectID {
			t.Errorf("intern's draft: %s %s", mine.Outcome, mine.Object.ObjectID)
		}
		got, err := e.s.Get(e.ctx, cfo, ws.Object.ObjectID, tenure.Read{Scope: tenure.Scope{SessionID: "s1"}})
		if err != nil || got.Content != "cfo's draft" || got.Version != 1 {
			t.Errorf("cfo's draft became %q v%d, %v", got.Content, got.Version, err)
		}
		e.put(cfo, tenure.Object{Key: "who", Content: "cfo session", Layer: tenure.LayerIdentity, SessionID: "s1",
			SecurityClassification: tenure.Confidential})
		if id := e.put(intern, tenure.Object{Key: "who", Content: "intern session", Layer: tenure.LayerIdentity, SessionID: "s1"}); id.Outcome != tenure.OutcomeCreated {
			t.Errorf("intern's identity: %s", id.Outcome)
		}
		_, err = e.s.Put(e.ctx, intern, tenure.Object{Key: "who2", Content: "again", Layer: tenure.LayerIdentity, SessionID: "s1"})
		wantCode(t, err, tenure.CodeConflict, "layer") // its own is read-only
	})
}
