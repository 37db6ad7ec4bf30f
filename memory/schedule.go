package memory

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
)

// RunRecorder records curator runs in the session state of a principal's
// user and persona; *sqlite.Store (engine.Engine.RecordCuratorRun)
// implements it.
type RunRecorder interface {
	RecordCuratorRun(ctx context.Context, p tenure.Principal, at time.Time, memoryCount int) error
}

// Target is one user and persona of a tenant the scheduled curator runs
// for.
type Target struct {
	TenantID  string `json:"tenant_id"`
	UserID    string `json:"user_id"`
	PersonaID string `json:"persona_id,omitempty"`
}

func (t Target) compare(u Target) int {
	return cmp.Or(cmp.Compare(t.TenantID, u.TenantID), cmp.Compare(t.UserID, u.UserID), cmp.Compare(t.PersonaID, u.PersonaID))
}

// TargetLister lists the curator's targets: every (tenant, user,
// persona) with open memories or a session state (user "" for the
// memories of no user: the tenant's), ordered by tenant, user and persona, after `after` (the zero
// Target: from the start), at most n. *sqlite.Store implements it.
type TargetLister interface {
	CuratorTargets(ctx context.Context, after Target, n int) ([]Target, error)
}

// ScheduleStore is what the scheduled curator reads and writes through.
type ScheduleStore interface {
	CuratorStore
	RunRecorder
	TargetLister
}

// CurateAndRecord runs Curate as p and, unless it is a dry run, records
// the run in the session state of p's user and persona with the number of
// memories left active.
func CurateAndRecord(ctx context.Context, s CuratorStore, rec RunRecorder, p tenure.Principal, opt CurateOptions) (CurateReport, error) {
	rep, err := Curate(ctx, s, p, opt)
	if err != nil || rep.DryRun || rec == nil {
		return rep, err
	}
	if err := rec.RecordCuratorRun(ctx, p, rep.At, rep.Active); err != nil {
		return rep, fmt.Errorf("curate: %w", err)
	}
	return rep, nil
}

// ScheduleOptions configures a Scheduler; the zero value works.
type ScheduleOptions struct {
	// Every is the time between runs (Start; default 1h).
	Every time.Duration
	// PerTick caps the targets one tick curates (default 100); the next
	// tick goes on from where it stopped, and wraps around at the end.
	PerTick int
	// Curate configures each run (its Scope is set per target and Now
	// defaults to the scheduler's).
	Curate CurateOptions
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Ticks, when set, drives Start instead of a time.Ticker of Every
	// (tests).
	Ticks <-chan time.Time
	// OnRun is called after every target's run with its outcome (metrics).
	OnRun  func(t Target, rep CurateReport, err error)
	Logger *slog.Logger
}

// TickReport says what one tick did.
type TickReport struct {
	Targets  int `json:"targets"`
	Failed   int `json:"failed"`
	Folds    int `json:"folds"`
	Archived int `json:"archived"`
	// Wrapped is true when the tick reached the end of the targets (the
	// next one starts over).
	Wrapped bool `json:"wrapped"`
}

// Scheduler runs the curator for every target of a store on a schedule
// (tenure serve --curate-every): each tick curates up to PerTick targets
// as the target's user with its persona (the top authority, the highest
// clearance) and records each run in its session state. Ticks never
// overlap; Close stops it and waits for the tick in flight.
type Scheduler struct {
	s   ScheduleStore
	opt ScheduleOptions
	log *slog.Logger

	mu     sync.Mutex // held by a tick: ticks never overlap
	cursor Target

	startOnce sync.Once
	closeOnce sync.Once
	cancel    context.CancelFunc
	done      chan struct{}
}

// NewScheduler returns a scheduler over s. It does no I/O; Start runs it
// and Tick runs one tick.
func NewScheduler(s ScheduleStore, opt ScheduleOptions) *Scheduler {
	if opt.Every <= 0 {
		opt.Every = time.Hour
	}
	if opt.PerTick <= 0 {
		opt.PerTick = 100
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{s: s, opt: opt, log: opt.Logger, done: make(chan struct{})}
}

// Start runs a tick every Every (or on every value of Ticks) until ctx is
// done or Close is called. It returns at once.
func (c *Scheduler) Start(ctx context.Context) {
	c.startOnce.Do(func() {
		ctx, c.cancel = context.WithCancel(ctx)
		ticks := c.opt.Ticks
		var stop func()
		if ticks == nil {
			t := time.NewTicker(c.opt.Every)
			ticks, stop = t.C, t.Stop
		}
		go func() {
			defer close(c.done)
			if stop != nil {
				defer stop()
			}
			for {
				select {
				case <-ctx.Done():
					return
				case <-ticks:
					if ctx.Err() != nil {
						return
					}
					c.Tick(ctx)
				}
			}
		}()
	})
}

// Close stops the schedule and waits for the tick in flight, whose
// current run is cancelled. It is safe to call more than once and
// without Start.
func (c *Scheduler) Close() {
	c.closeOnce.Do(func() {
		// Never started: mark it done, so that Start does nothing.
		c.startOnce.Do(func() { close(c.done) })
		if c.cancel != nil {
			c.cancel()
		}
		<-c.done
	})
}

// Tick curates the next PerTick targets, one after the other, and logs
// what it did. A failed target is logged and counted; the tick goes on.
// A tick waits for one in flight to finish.
func (c *Scheduler) Tick(ctx context.Context) TickReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	var tr TickReport
	targets, err := c.s.CuratorTargets(ctx, c.cursor, c.opt.PerTick)
	if err != nil {
		c.log.Error("curator.tick_failed", "err", err)
		tr.Failed++
		return tr
	}
	if len(targets) < c.opt.PerTick {
		tr.Wrapped = true
	}
	for _, t := range targets {
		if ctx.Err() != nil {
			return tr
		}
		opt := c.opt.Curate
		opt.Scope = tenure.Scope{UserID: t.UserID}
		if opt.Now == nil {
			opt.Now = c.opt.Now
		}
		rep, err := CurateAndRecord(ctx, c.s, c.s, c.principal(t), opt)
		if c.opt.OnRun != nil {
			c.opt.OnRun(t, rep, err)
		}
		c.cursor = t
		tr.Targets++
		if err != nil {
			tr.Failed++
			c.log.Error("curator.run_failed", "tenant", t.TenantID, "user", t.UserID, "persona", t.PersonaID, "err", err)
			continue
		}
		tr.Folds += len(rep.Folds)
		tr.Archived += len(rep.Archived)
		if len(rep.Folds)+len(rep.Archived) > 0 {
			c.log.Info("curator.run", "tenant", t.TenantID, "user", t.UserID, "persona", t.PersonaID,
				"memories", rep.Memories, "folds", len(rep.Folds), "archived", len(rep.Archived))
		}
	}
	if tr.Wrapped {
		c.cursor = Target{}
	}
	c.log.Info("curator.tick", "targets", tr.Targets, "failed", tr.Failed, "folds", tr.Folds, "archived", tr.Archived)
	return tr
}

// principal is the identity a scheduled run acts as: the target's user
// with its persona, at the top authority and the highest clearance, so
// that it reads and may archive every memory of the user.
func (c *Scheduler) principal(t Target) tenure.Principal {
	return tenure.Principal{TenantID: t.TenantID, UserID: t.UserID, PersonaID: t.PersonaID,
		Authority: tenure.DefaultHierarchy.Top(), Clearance: tenure.HighlyRestricted}
}
