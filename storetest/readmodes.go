package storetest

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testReadModes checks the three read modes against an injected clock,
// with the spec's examples: an office move and a backdated pricing change.
func testReadModes(t *testing.T, f Factory) {
	t.Run("OfficeMove", func(t *testing.T) {
		e := newEnv(t, f)
		jan1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		jun6 := time.Date(2026, 6, 6, 12, 0, 0, 0, time.UTC)
		e.clock.Set(jan1)
		e.put(employee, tenure.Object{Key: "user.office", Value: []byte(`"Boston office"`), ValidFrom: jan1})
		e.clock.Set(jun6.Add(15 * time.Minute))
		e.put(employee, tenure.Object{Key: "user.office", Value: []byte(`"Chicago office"`), ValidFrom: jun6})
		e.clock.Set(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC))

		e.wantValue(employee, "user.office", tenure.Read{}, "Chicago office")
		// What did the system believe on June 6 at 12:05 (before the write)?
		e.wantValue(employee, "user.office", tenure.Read{AsOfTx: ptrTime(jun6.Add(5 * time.Minute))}, "Boston office")
		// What was true on March 1, by the latest belief?
		e.wantValue(employee, "user.office", tenure.Read{AsOfValid: ptrTime(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))}, "Boston office")
		// Before anything was recorded there was no belief at all.
		e.wantMissing(employee, "user.office", tenure.Read{AsOfTx: ptrTime(jan1.Add(-time.Hour))})
	})
	t.Run("BackdatedCorrection", func(t *testing.T) {
		e := newEnv(t, f)
		jan1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		feb15 := time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)
		mar1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		apr1 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
		e.clock.Set(jan1)
		e.put(cfo, tenure.Object{Key: "pricing.tier", Value: []byte(`"basic"`), ValidFrom: jan1})
		e.clock.Set(apr1)
		e.put(cfo, tenure.Object{Key: "pricing.tier", Value: []byte(`"pro"`), ValidFrom: feb15})

		// On March 1 the system believed "basic" was true on March 1 …
		e.wantValue(cfo, "pricing.tier", tenure.Read{AsOfTx: &mar1, AsOfValid: &mar1}, "basic")
		// … but what was actually true on March 1 is "pro".
		e.wantValue(cfo, "pricing.tier", tenure.Read{AsOfValid: &mar1}, "pro")
		e.wantValue(cfo, "pricing.tier", tenure.Read{AsOfValid: ptrTime(feb15.Add(-time.Hour))}, "basic")
		e.wantValue(cfo, "pricing.tier", tenure.Read{}, "pro")
	})
	t.Run("GetAsOf", func(t *testing.T) {
		e := newEnv(t, f)
		r := e.put(employee, fact("note", "v1"))
		id := r.Object.ObjectID
		e.clock.Advance(time.Hour)
		e.put(employee, tenure.Object{ObjectID: id, Version: 1, Key: "note", Value: []byte(`"v2"`)})
		got, err := e.s.Get(e.ctx, employee, id, tenure.Read{AsOfTx: ptrTime(T0.Add(time.Minute))})
		if err != nil || tenure.ValueText(got.Value) != "v1" || got.Version != 1 {
			t.Fatalf("get as of tx = %q v%d, %v; want v1", tenure.ValueText(got.Value), got.Version, err)
		}
		if got := e.get(employee, id); got.Version != 2 || tenure.ValueText(got.Value) != "v2" {
			t.Errorf("get latest = %q v%d, want v2", tenure.ValueText(got.Value), got.Version)
		}
	})
	t.Run("Expired", func(t *testing.T) {
		e := newEnv(t, f)
		e.put(employee, tenure.Object{Key: "promo", Value: []byte(`"20% off"`), ValidUntil: ptrTime(day(7))})
		e.wantValue(employee, "promo", tenure.Read{}, "20% off")
		e.clock.Set(day(8))
		e.wantMissing(employee, "promo", tenure.Read{})
		e.wantValue(employee, "promo", tenure.Read{AsOfValid: ptrTime(day(6))}, "20% off")
	})
}
