package http

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
)

// Digester brings a thread's structured state and narrative summaries up
// to date. It serves POST /v1/extract and the background digest that
// follows POST /v1/messages.
type Digester interface {
	// Digest runs state extraction and, when summaries is set, the
	// narrative summaries of thread as p (see engine.Digest). The two
	// channels fail apart, so errors are reported in the result, never
	// returned: a bad principal or thread fails both channels
	// (CodeInvalid, CodeForbidden); an extractor or summarizer failure,
	// CodeTimeout, CodeUnavailable or CodeConflict (another digest of the
	// thread committed meanwhile) fails its own channel only.
	Digest(ctx context.Context, p tenure.Principal, thread string, summaries bool) engine.DigestResult
}

// DigestFunc adapts a function to Digester.
type DigestFunc func(ctx context.Context, p tenure.Principal, thread string, summaries bool) engine.DigestResult

// Digest implements Digester.
func (f DigestFunc) Digest(ctx context.Context, p tenure.Principal, thread string, summaries bool) engine.DigestResult {
	return f(ctx, p, thread, summaries)
}

// DigestEngine runs digests with a given extractor and summarizer;
// *engine.Engine and sqlite.Store satisfy it.
type DigestEngine interface {
	Digest(ctx context.Context, p tenure.Principal, thread string, x extract.Extractor, s engine.Summarizer, opt engine.SummaryOptions) engine.DigestResult
}

// NewDigester returns a Digester that runs e's digests with the extractor
// x and the summarizer s (nil leaves summaries out) configured by opt.
func NewDigester(e DigestEngine, x extract.Extractor, s engine.Summarizer, opt engine.SummaryOptions) Digester {
	return DigestFunc(func(ctx context.Context, p tenure.Principal, thread string, summaries bool) engine.DigestResult {
		sum := s
		if !summaries {
			sum = nil
		}
		return e.Digest(ctx, p, thread, x, sum, opt)
	})
}

// Digest triggers, the trigger label of the digest metrics.
const (
	triggerRequest = "request" // POST /v1/extract
	triggerAppend  = "append"  // the background digest after POST /v1/messages
)

// threadKey names a thread: digests of one thread of one tenant never
// overlap, since they would race for the same watermarks.
type threadKey struct{ tenant, thread string }

// digestJob is a background digest asked for by one principal; requests
// by the same principal while it waits are folded into it.
type digestJob struct {
	p         tenure.Principal
	requestID string // of the latest request folded in
	requests  int
}

// threadDigests is the digest state of one thread: whether a digest runs
// (background or requested), and the background digests waiting.
type threadDigests struct {
	busy    bool
	done    chan struct{} // closed when the running digest ends
	queued  bool          // in digester.fifo
	pending []digestJob
}

// digester runs digests, at most one per thread at a time: requested ones
// in the caller's goroutine, background ones on a bounded pool of
// goroutines that exist only while there is work. Background requests for
// a thread that is already waiting or running are coalesced into one
// (re-)run per principal.
type digester struct {
	d          Digester
	log        *slog.Logger
	m          *metrics
	maxWorkers int
	maxQueued  int
	timeout    time.Duration

	mu      sync.Mutex
	threads map[threadKey]*threadDigests
	fifo    []threadKey // threads waiting for a worker, oldest first
	workers int         // worker goroutines alive
	running int         // background digests running
	closed  bool        // stopped: background requests are dropped
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup // worker goroutines
}

func newDigester(d Digester, log *slog.Logger, workers, queued int, timeout time.Duration) *digester {
	q := &digester{d: d, log: log, maxWorkers: workers, maxQueued: queued, timeout: timeout, threads: map[threadKey]*threadDigests{}}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	return q
}

// stats returns how many background digests run and how many threads
// wait for one.
func (q *digester) stats() (running, queued int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running, len(q.fifo)
}

// schedule asks for a background digest of threads as p. It never blocks
// on a digest: a thread already waiting or running gets one more run
// after the current one, and a request finding the queue full is dropped
// (the thread's messages stay behind its watermarks for its next digest).
func (q *digester) schedule(p tenure.Principal, threads []string, requestID string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, thread := range threads {
		key := threadKey{p.TenantID, thread}
		if q.closed {
			q.m.digestRequest("dropped_shutdown")
			q.log.Warn("digest.dropped", "request_id", requestID, "tenant", key.tenant, "thread", thread, "reason", "shutting down")
			continue
		}
		td := q.threads[key]
		if td == nil || (!td.busy && !td.queued) {
			if len(q.fifo) >= q.maxQueued {
				q.m.digestRequest("dropped_queue_full")
				q.log.Warn("digest.dropped", "request_id", requestID, "tenant", key.tenant, "thread", thread, "reason", "queue full")
				continue
			}
			if td == nil {
				td = &threadDigests{}
				q.threads[key] = td
			}
		}
		i := slices.IndexFunc(td.pending, func(j digestJob) bool { return samePrincipal(j.p, p) })
		switch {
		case i >= 0:
			td.pending[i].requestID = requestID
			td.pending[i].requests++
			q.m.digestRequest("coalesced")
		case td.busy || td.queued:
			td.pending = append(td.pending, digestJob{p: p, requestID: requestID, requests: 1})
			q.m.digestRequest("coalesced")
		default:
			td.pending = append(td.pending, digestJob{p: p, requestID: requestID, requests: 1})
			q.m.digestRequest("queued")
		}
		if !td.busy && !td.queued {
			td.queued = true
			q.fifo = append(q.fifo, key)
			q.spawnLocked()
		}
	}
}

// spawnLocked starts workers while threads wait and the pool has room.
func (q *digester) spawnLocked() {
	for q.workers < q.maxWorkers && q.workers < len(q.fifo) {
		q.workers++
		q.wg.Add(1)
		go q.work()
	}
}

// work runs waiting threads' digests until none is left.
func (q *digester) work() {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		key, td, ok := q.nextLocked()
		if !ok {
			q.workers--
			q.mu.Unlock()
			return
		}
		jobs := td.pending
		td.pending = nil
		td.busy, td.done = true, make(chan struct{})
		q.running++
		ctx := q.ctx
		q.mu.Unlock()
		for _, j := range jobs {
			q.background(ctx, key, j)
		}
		q.mu.Lock()
		q.running--
		q.releaseLocked(key, td)
		q.mu.Unlock()
	}
}

// nextLocked takes the oldest waiting thread that is not busy.
func (q *digester) nextLocked() (threadKey, *threadDigests, bool) {
	for len(q.fifo) > 0 && !q.closed {
		key := q.fifo[0]
		q.fifo = q.fifo[1:]
		if len(q.fifo) == 0 {
			q.fifo = nil
		}
		td := q.threads[key]
		td.queued = false
		if td.busy || len(td.pending) == 0 {
			continue // a requested digest holds it: requeued when it ends
		}
		return key, td, true
	}
	return threadKey{}, nil, false
}

// releaseLocked ends the digest running on key: waiters wake, and
// background requests that came meanwhile are queued for one more run.
func (q *digester) releaseLocked(key threadKey, td *threadDigests) {
	td.busy = false
	close(td.done)
	td.done = nil
	switch {
	case len(td.pending) > 0 && !q.closed && !td.queued:
		td.queued = true
		q.fifo = append(q.fifo, key)
		q.spawnLocked()
	case len(td.pending) == 0 && !td.queued:
		delete(q.threads, key)
	}
}

// background runs one background digest, bounded by the digest timeout
// and canceled when a shutdown runs out of time. A panic is logged and
// counted; it never takes the server down.
func (q *digester) background(ctx context.Context, key threadKey, j digestJob) {
	ctx, cancel := context.WithTimeout(ctx, q.timeout)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			q.log.Error("panic", "request_id", j.requestID, "tenant", key.tenant, "thread", key.thread, "trigger", triggerAppend,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			err := tenure.Internal("digest panicked", fmt.Errorf("%v", v))
			q.m.digested(triggerAppend, true, engine.DigestResult{StateError: err, SummaryError: err}, 0)
		}
	}()
	q.digest(ctx, key, j, triggerAppend, true)
}

// run runs a requested digest of thread as p in the caller's goroutine,
// after any digest of the thread already running. Errors: CodeTimeout or
// CodeUnavailable when ctx ends while it waits.
func (q *digester) run(ctx context.Context, p tenure.Principal, thread string, summaries bool, requestID string) (engine.DigestResult, error) {
	key := threadKey{p.TenantID, thread}
	var td *threadDigests
	for {
		q.mu.Lock()
		td = q.threads[key]
		if td == nil {
			td = &threadDigests{}
			q.threads[key] = td
		}
		if !td.busy {
			td.busy, td.done = true, make(chan struct{})
			q.mu.Unlock()
			break
		}
		done := td.done
		q.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			code := tenure.CodeUnavailable
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				code = tenure.CodeTimeout
			}
			return engine.DigestResult{}, tenure.Errorf(code, "thread_id", "waited for the running digest of thread %q: %v", thread, ctx.Err())
		}
	}
	defer func() {
		q.mu.Lock()
		q.releaseLocked(key, td)
		q.mu.Unlock()
	}()
	return q.digest(ctx, key, digestJob{p: p, requestID: requestID, requests: 1}, triggerRequest, summaries), nil
}

// digest runs one digest and records it: metrics and one log line with
// the request id that asked for it.
func (q *digester) digest(ctx context.Context, key threadKey, j digestJob, trigger string, summaries bool) engine.DigestResult {
	start := time.Now()
	res := q.d.Digest(ctx, j.p, key.thread, summaries)
	elapsed := time.Since(start)
	q.m.digested(trigger, summaries, res, elapsed)
	s := res.State
	attrs := []slog.Attr{slog.String("request_id", j.requestID), slog.String("tenant", key.tenant), slog.String("user", j.p.UserID),
		slog.String("thread", key.thread), slog.String("trigger", trigger), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1e3),
		slog.Int("messages", s.Messages), slog.Int("inserted", s.ItemsInserted), slog.Int("merged", s.ItemsMerged),
		slog.Int("superseded", s.ItemsSuperseded), slog.Int("conflicted", s.ItemsConflicted), slog.Int("dropped", s.ItemsDropped),
		slog.Int("facts", s.FactsWritten)}
	if j.requests > 1 {
		attrs = append(attrs, slog.Int("coalesced", j.requests))
	}
	if s.SkippedReason != "" {
		attrs = append(attrs, slog.String("skipped", s.SkippedReason))
	}
	if res.Summary != nil {
		attrs = append(attrs, slog.Bool("rolling", res.Summary.Rolling != nil), slog.Int("sessions", len(res.Summary.Sessions)))
	}
	level := slog.LevelInfo
	for _, e := range []struct {
		name string
		err  *tenure.Error
	}{{"state_error", res.StateError}, {"summary_error", res.SummaryError}, {"vectors_error", res.VectorsError}} {
		if e.err != nil {
			level = slog.LevelWarn
			attrs = append(attrs, slog.String(e.name, e.err.Error()))
		}
	}
	q.log.LogAttrs(ctx, level, "digest", attrs...)
	return res
}

// stop drops the background digests waiting and waits for the running
// ones until ctx is done; then it cancels them and gives them a moment to
// return.
func (q *digester) stop(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	dropped := 0
	for key, td := range q.threads {
		dropped += len(td.pending)
		td.pending, td.queued = nil, false
		if !td.busy {
			delete(q.threads, key)
		}
	}
	q.fifo = nil
	running := q.running
	q.mu.Unlock()
	q.m.digestReqs.WithLabelValues("dropped_shutdown").Add(float64(dropped))
	if dropped > 0 || running > 0 {
		q.log.Info("digest.stopping", "running", running, "dropped", dropped)
	}
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	q.cancel()
	select {
	case <-done:
	case <-time.After(cancelGrace):
	}
	return tenure.Errorf(tenure.CodeTimeout, "", "shutdown: background digests canceled after the shutdown timeout")
}

// cancelGrace is how long stop waits for canceled digests to return.
const cancelGrace = 5 * time.Second

// reopen lets a stopped digester take background requests again.
func (q *digester) reopen() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		q.closed = false
		q.ctx, q.cancel = context.WithCancel(context.Background())
	}
}

// samePrincipal reports whether a and b are the same principal, so that
// their digests may be folded into one.
func samePrincipal(a, b tenure.Principal) bool {
	return a.UserID == b.UserID && a.UserName == b.UserName && a.TenantID == b.TenantID && a.Organization == b.Organization &&
		a.Department == b.Department && a.Authority == b.Authority && a.Clearance == b.Clearance &&
		slices.Equal(a.Roles, b.Roles) && slices.Equal(a.Permissions, b.Permissions)
}
