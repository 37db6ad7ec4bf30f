package tenure_test

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestHistoryAsOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d int) time.Time { return t0.AddDate(0, 0, d) }
	ptr := func(t time.Time) *time.Time { return &t }
	h := tenure.History{Key: "k",
		Versions: []tenure.Object{
			{ObjectID: "a", Version: 1, TxStart: at(0), TxEnd: ptr(at(10)), ValidFrom: at(0), ValidUntil: ptr(at(5))},
			{ObjectID: "b", Version: 1, TxStart: at(10), ValidFrom: at(5)},
		},
		Chain:     []tenure.ChainLink{{ObjectID: "a"}, {ObjectID: "b"}},
		Deletions: []tenure.Tombstone{{ObjectID: "c", DeletedAt: at(20)}},
	}
	if got := h.AsOf(tenure.Read{}); len(got.Versions) != 2 || len(got.Deletions) != 1 {
		t.Errorf("no read point: %+v, want h unchanged", got)
	}
	got := h.AsOf(tenure.Read{AsOfTx: ptr(at(3))})
	if len(got.Versions) != 1 || got.Versions[0].ObjectID != "a" || got.Versions[0].TxEnd != nil || len(got.Chain) != 1 || len(got.Deletions) != 0 {
		t.Errorf("as of tx day 3: %+v, want version a, still open then, no deletion", got)
	}
	if h.Versions[0].TxEnd == nil {
		t.Error("AsOf changed the history it was called on")
	}
	got = h.AsOf(tenure.Read{AsOfValid: ptr(at(7))})
	if len(got.Versions) != 1 || got.Versions[0].ObjectID != "b" || len(got.Deletions) != 1 {
		t.Errorf("as of valid day 7: %+v, want version b", got)
	}
	got = h.AsOf(tenure.Read{AsOfTx: ptr(at(3)), AsOfValid: ptr(at(7))})
	if len(got.Versions) != 0 || got.Versions == nil {
		t.Errorf("as of tx 3, valid 7: %+v, want no version (an empty list)", got.Versions)
	}
}
