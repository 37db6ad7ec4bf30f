package memory

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// UseSink stores use counts; *sqlite.Store (the engine) implements it.
type UseSink interface {
	// RecordUses adds uses (by object id) to memories of tenant and sets
	// their last use to at.
	RecordUses(ctx context.Context, tenant string, uses map[string]int, at time.Time) error
}

// UseTracker keeps memories' last use and use counts for the compiler
// (it implements compile.UseRecorder) off the compilation's critical
// path: RecordUses only adds to an in-memory batch under a mutex; a
// background goroutine writes the batch to the sink every Interval (or
// when it holds MaxBatch ids), one transaction per tenant. A failed flush
// is logged and its counts dropped: they are bookkeeping, and a
// compilation never waits on them.
type UseTracker struct {
	sink     UseSink
	interval time.Duration
	maxBatch int
	log      *slog.Logger

	mu      sync.Mutex
	pending map[string]map[string]int // tenant → id → uses
	at      map[string]time.Time
	n       int
	started bool
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// UseTrackerOptions configures a UseTracker; the zero value works.
type UseTrackerOptions struct {
	// Interval between flushes (default 5s).
	Interval time.Duration
	// MaxBatch flushes early when this many ids are pending (default 1000).
	MaxBatch int
	Logger   *slog.Logger
}

// NewUseTracker returns a tracker writing to sink. It does no I/O; Start
// runs its flusher.
func NewUseTracker(sink UseSink, opt UseTrackerOptions) *UseTracker {
	if opt.Interval <= 0 {
		opt.Interval = 5 * time.Second
	}
	if opt.MaxBatch <= 0 {
		opt.MaxBatch = 1000
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &UseTracker{sink: sink, interval: opt.Interval, maxBatch: opt.MaxBatch, log: opt.Logger,
		pending: map[string]map[string]int{}, at: map[string]time.Time{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// RecordUses implements compile.UseRecorder: it never blocks on I/O.
func (t *UseTracker) RecordUses(tenant string, ids []string, at time.Time) {
	t.mu.Lock()
	m := t.pending[tenant]
	if m == nil {
		m = map[string]int{}
		t.pending[tenant] = m
	}
	for _, id := range ids {
		m[id]++
	}
	if at.After(t.at[tenant]) {
		t.at[tenant] = at
	}
	t.n += len(ids)
	full := t.n >= t.maxBatch
	t.mu.Unlock()
	if full {
		select {
		case t.kick <- struct{}{}:
		default:
		}
	}
}

// Start runs the flusher until Close.
func (t *UseTracker) Start() {
	t.mu.Lock()
	t.started = true
	t.mu.Unlock()
	go func() {
		defer close(t.done)
		tick := time.NewTicker(t.interval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-t.kick:
			case <-t.stop:
				t.Flush(context.Background())
				return
			}
			t.Flush(context.Background())
		}
	}()
}

// Close stops the flusher after a last flush (when Start ran) and
// flushes what is pending.
func (t *UseTracker) Close() {
	select {
	case <-t.stop:
		return
	default:
	}
	close(t.stop)
	t.mu.Lock()
	started := t.started
	t.mu.Unlock()
	if started {
		<-t.done // its last flush
		return
	}
	t.Flush(context.Background())
}

// Flush writes the pending counts now and reports the first error.
func (t *UseTracker) Flush(ctx context.Context) error {
	t.mu.Lock()
	pending, at := t.pending, t.at
	t.pending, t.at, t.n = map[string]map[string]int{}, map[string]time.Time{}, 0
	t.mu.Unlock()
	var first error
	for tenant, uses := range pending {
		if err := t.sink.RecordUses(ctx, tenant, uses, at[tenant]); err != nil {
			t.log.Error("record memory uses", "tenant", tenant, "ids", len(uses), "err", err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}
