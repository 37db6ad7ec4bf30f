package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
)

// testHistory checks that every version and the supersession chain come
// back with both timelines, and that nothing is overwritten.
func testHistory(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a := e.put(employee, fact("status", "draft"))
	e.clock.Advance(time.Hour)
	b := e.put(employee, tenure.Object{Key: "status", Value: []byte(`"approved"`), Supersedes: "status"})
	e.clock.Advance(time.Hour)
	c := e.put(employee, tenure.Object{Key: "status.final", Value: []byte(`"cancelled"`), Supersedes: "status"})

	h, err := e.s.History(e.ctx, employee, "status", tenure.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	// a: v1 active, v2 superseded; b: v1 active, v2 superseded.
	type row struct {
		ID      string
		Version int
		Status  tenure.Status
		Open    bool
	}
	var got []row
	for _, v := range h.Versions {
		got = append(got, row{v.ObjectID, v.Version, v.Status, v.TxEnd == nil})
	}
	want := []row{
		{a.Object.ObjectID, 1, tenure.StatusActive, false},
		{a.Object.ObjectID, 2, tenure.StatusSuperseded, true},
		{b.Object.ObjectID, 1, tenure.StatusActive, false},
		{b.Object.ObjectID, 2, tenure.StatusSuperseded, true},
	}
	byID := func(r row) (string, int) { return r.ID, r.Version }
	if diff := cmp.Diff(sortRows(want, byID), sortRows(got, byID)); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	var chain []string
	for _, l := range h.Chain {
		chain = append(chain, l.ObjectID)
	}
	if diff := cmp.Diff([]string{a.Object.ObjectID, b.Object.ObjectID, c.Object.ObjectID}, chain); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
	if l := h.Chain[0]; l.SupersededBy != b.Object.ObjectID || l.ValidUntil == nil || !l.ValidUntil.Equal(T0.Add(time.Hour)) {
		t.Errorf("first link = %+v, want superseded by %s, valid until %v", l, b.Object.ObjectID, T0.Add(time.Hour))
	}
	for _, v := range h.Versions {
		if v.TxEnd != nil && !v.TxEnd.After(v.TxStart) {
			t.Errorf("version %s v%d has tx window [%v, %v)", v.ObjectID, v.Version, v.TxStart, v.TxEnd)
		}
	}
	if _, err := e.s.History(e.ctx, employee, "nothing", tenure.Scope{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("history of unknown key: %v, want not_found", err)
	}
}

func sortRows[T any](rows []T, key func(T) (string, int)) []T {
	out := append([]T(nil), rows...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			a1, a2 := key(out[j-1])
			b1, b2 := key(out[j])
			if a1 < b1 || (a1 == b1 && a2 <= b2) {
				break
			}
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}
