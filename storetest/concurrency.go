package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/tenure-dev/tenure"
)

// testConcurrency has goroutines write different values to one key at the
// same time: no version may be lost and exactly one claim stays current.
func testConcurrency(t *testing.T, f Factory) {
	e := newEnv(t, f)
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := e.s.Put(e.ctx, employee, fact("counter", fmt.Sprintf("g%d-%d", g, i))); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent put: %v", err)
	}
	h, err := e.s.History(e.ctx, employee, "counter", tenure.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	objects, active := map[string]bool{}, 0
	for _, v := range h.Versions {
		objects[v.ObjectID] = true
		if v.TxEnd == nil && v.Status == tenure.StatusActive {
			active++
		}
	}
	if len(objects) != writers*each {
		t.Errorf("history holds %d claims, want %d", len(objects), writers*each)
	}
	if active != 1 {
		t.Errorf("%d claims are current, want exactly 1", active)
	}
	e.current(employee, "counter", tenure.Read{})
}
