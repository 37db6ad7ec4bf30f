package storetest

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testExplicit covers explicit supersession by id and by key.
func testExplicit(t *testing.T, f Factory) {
	t.Run("ByID", func(t *testing.T) {
		e := newEnv(t, f)
		a := e.put(employee, fact("user.address", "123 Main St"))
		e.clock.Advance(time.Hour)
		b := e.put(employee, tenure.Object{Key: "user.address", Value: []byte(`"456 Oak Ave"`), Supersedes: a.Object.ObjectID})
		if b.Object.Supersedes != a.Object.ObjectID || len(b.Changes) != 1 || b.Changes[0].Reason != tenure.ReasonExplicit {
			t.Fatalf("supersede by id: %+v", b)
		}
		e.wantValue(employee, "user.address", tenure.Read{}, "456 Oak Ave")
		e.wantValue(employee, "user.address", tenure.Read{AsOfValid: ptrTime(T0.Add(time.Minute))}, "123 Main St")
	})
	t.Run("StaleTarget", func(t *testing.T) {
		e := newEnv(t, f)
		a := e.put(employee, fact("k", "1"))
		e.clock.Advance(time.Minute)
		e.put(employee, tenure.Object{Key: "k", Value: []byte(`"2"`), Supersedes: a.Object.ObjectID})
		_, err := e.s.Put(e.ctx, employee, tenure.Object{Key: "k", Value: []byte(`"3"`), Supersedes: a.Object.ObjectID})
		wantCode(t, err, tenure.CodeConflict, "supersedes")
		e.wantValue(employee, "k", tenure.Read{}, "2")
	})
	t.Run("Missing", func(t *testing.T) {
		e := newEnv(t, f)
		_, err := e.s.Put(e.ctx, employee, tenure.Object{Key: "k", Value: []byte(`"x"`), Supersedes: "nope"})
		wantCode(t, err, tenure.CodeNotFound, "supersedes")
		e.wantMissing(employee, "k", tenure.Read{})
	})
	t.Run("ResolvesQuarantine", func(t *testing.T) {
		e := newEnv(t, f)
		e.clock.Set(day(2))
		e.put(employee, tenure.Object{Key: "m", Value: []byte(`"a"`), ValidFrom: day(1)})
		e.put(employee, tenure.Object{Key: "m", Value: []byte(`"b"`), ValidFrom: day(1)})
		r := e.put(employee, tenure.Object{Key: "m", Value: []byte(`"c"`), Supersedes: "m"})
		if len(r.Changes) != 2 {
			t.Fatalf("supersede by key should displace both quarantined claims: %+v", r.Changes)
		}
		e.wantValue(employee, "m", tenure.Read{}, "c")
		if open, _ := e.s.Resolutions(e.ctx, employee, true); len(open) != 0 {
			t.Errorf("resolution still open: %+v", open)
		}
	})
	t.Run("LowerLevelCannotSupersede", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(admin, tenure.Object{Key: "rule", Value: []byte(`"no PII"`), AuthorityLevel: tenure.Ptr(0)})
		_, err := e.s.Put(e.ctx, admin, tenure.Object{Key: "rule", Value: []byte(`"PII ok"`), Supersedes: "rule", AuthorityLevel: tenure.Ptr(3)})
		wantCode(t, err, tenure.CodeForbidden, "supersedes")
		e.wantValue(admin, "rule", tenure.Read{}, "no PII")
	})
	t.Run("FutureDated", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(cfo, fact("price", "10"))
		e.put(cfo, tenure.Object{Key: "price", Value: []byte(`"12"`), Supersedes: "price", ValidFrom: day(30)})
		e.wantValue(cfo, "price", tenure.Read{}, "10")
		e.clock.Set(day(31))
		e.wantValue(cfo, "price", tenure.Read{}, "12")
	})
}
