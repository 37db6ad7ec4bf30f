package memory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

// TestScheduler curates two users of two tenants on a schedule driven by
// Tick, one target per tick, records both runs, changes nothing on a
// second round, and never touches pinned memories.
func TestScheduler(t *testing.T) {
	eachStore(t, func(t *testing.T, openAt func(*testing.T, *clock) store) {
		ctx := context.Background()
		c := &clock{t0}
		s := openAt(t, c)
		bob := tenure.Principal{UserID: "bob", TenantID: "globex", Authority: "employee"}
		// Ada's memories are hers, bob's the tenant's (no user).
		put := func(p tenure.Principal, content, attr string, imp int, pinned bool) tenure.Object {
			c.t = c.t.Add(time.Minute)
			user := ""
			if p.UserID == ada.UserID {
				user = ada.UserID
			}
			r, err := s.Put(ctx, p, tenure.Object{UserID: user, Content: content, Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
				EntityRefs: []string{"person:john"}, Attribute: attr, Importance: tenure.Ptr(imp), Pinned: pinned}})
			if err != nil {
				t.Fatal(err)
			}
			return r.Object
		}
		type user struct {
			p                    tenure.Principal
			target               memory.Target
			kept, folded, pinned tenure.Object
		}
		users := []user{{p: ada, target: memory.Target{TenantID: "acme", UserID: "ada"}}, {p: bob, target: memory.Target{TenantID: "globex"}}}
		for i := range users {
			u := &users[i]
			u.kept = put(u.p, "John works at Acme Corp", "works_at", 2, false)
			u.folded = put(u.p, "John works at Acme Corporation", "employer", 1, false)
			u.pinned = put(u.p, "John works at Acme Corp Inc", "company", 1, true)
		}
		c.t = c.t.Add(time.Hour)
		var mu sync.Mutex
		runs := map[memory.Target]int{}
		sched := memory.NewScheduler(s, memory.ScheduleOptions{Now: c.now, PerTick: 1,
			OnRun: func(tg memory.Target, _ memory.CurateReport, err error) {
				if err != nil {
					t.Errorf("%+v: %v", tg, err)
				}
				mu.Lock()
				runs[tg]++
				mu.Unlock()
			}})
		defer sched.Close()

		// One target per tick, then the end of the list.
		for i, want := range []memory.TickReport{{Targets: 1, Folds: 1}, {Targets: 1, Folds: 1}, {Wrapped: true}} {
			if got := sched.Tick(ctx); got != want {
				t.Errorf("tick %d: %+v, want %+v", i, got, want)
			}
		}
		for _, u := range users {
			if runs[u.target] != 1 {
				t.Errorf("%+v: %d runs, want 1 (runs: %v)", u.target, runs[u.target], runs)
			}
			st, err := s.SessionState(ctx, tenure.Principal{TenantID: u.target.TenantID, UserID: u.target.UserID})
			if err != nil {
				t.Fatal(err)
			}
			if at := st.Curator.LastRunAt; at == nil || !at.Equal(c.t) || st.Curator.LastMemoryCountAtRun != 2 {
				t.Errorf("%s: curator state %+v, want the run at %s over 2 memories left active", u.p.UserID, st.Curator, c.t)
			}
			if o, _ := s.Get(ctx, u.p, u.kept.ObjectID, tenure.Read{}); o.Status != tenure.StatusActive || o.Memory.Source != tenure.MemoryCuratedFold {
				t.Errorf("%s: kept memory %s is %s, source %s", u.p.UserID, o.ObjectID, o.Status, o.Memory.Source)
			}
			if o, _ := s.Get(ctx, u.p, u.folded.ObjectID, tenure.Read{}); o.Status != tenure.StatusArchived {
				t.Errorf("%s: folded memory %s is %s", u.p.UserID, o.ObjectID, o.Status)
			}
		}

		// A second round changes nothing (the runs are recorded again).
		c.t = c.t.Add(time.Hour)
		before := versions(t, s, users[0].p, users[1].p)
		for i := range 3 {
			if got := sched.Tick(ctx); got.Folds != 0 || got.Archived != 0 || got.Failed != 0 {
				t.Errorf("second round, tick %d: %+v", i, got)
			}
		}
		if after := versions(t, s, users[0].p, users[1].p); len(after) != len(before) {
			t.Errorf("second round changed the store: %v, then %v", before, after)
		} else {
			for id, v := range before {
				if after[id] != v {
					t.Errorf("second round wrote %s: version %d, then %d", id, v, after[id])
				}
			}
		}
		for _, u := range users {
			if o, _ := s.Get(ctx, u.p, u.pinned.ObjectID, tenure.Read{}); o.Status != tenure.StatusActive || o.Version != 1 {
				t.Errorf("%s: pinned memory touched: status %s version %d", u.p.UserID, o.Status, o.Version)
			}
		}
	})
}

// versions returns the version of every open memory of the principals.
func versions(t *testing.T, s store, ps ...tenure.Principal) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, p := range ps {
		mems, err := memory.List(context.Background(), s, p, memory.Query{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range mems {
			out[o.ObjectID] = o.Version
		}
	}
	return out
}

// TestSchedulerShutdown: Start ticks on its channel until Close, which
// waits for the tick in flight; after it nothing receives ticks.
func TestSchedulerShutdown(t *testing.T) {
	c := &clock{t0}
	s := openAt(t, c)
	mustPut(t, s, tenure.Object{UserID: ada.UserID, Content: "John likes tea", Memory: &tenure.Memory{Kind: tenure.MemoryPeople, EntityRefs: []string{"person:john"}}})
	ticks := make(chan time.Time)
	var mu sync.Mutex
	n := 0
	sched := memory.NewScheduler(s, memory.ScheduleOptions{Now: c.now, Ticks: ticks,
		OnRun: func(memory.Target, memory.CurateReport, error) { mu.Lock(); n++; mu.Unlock() }})
	sched.Start(context.Background())
	ticks <- c.t
	ticks <- c.t // received only once the first tick is done
	mu.Lock()
	if n < 1 {
		t.Errorf("%d runs after a tick, want at least 1", n)
	}
	mu.Unlock()
	sched.Close()
	select {
	case ticks <- c.t:
		t.Error("a tick was received after Close")
	default:
	}
	sched.Close() // twice is fine
	if st, err := s.SessionState(context.Background(), ada); err != nil || st.Curator.LastRunAt == nil {
		t.Errorf("run not recorded: %+v, %v", st.Curator, err)
	}
}
