package admit_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
)

// A limiter admits up to its capacity, refuses the next one at once with
// unavailable and a retry hint, and admits again once a slot is released.
func TestLimiterRejectsAndReleases(t *testing.T) {
	l := admit.New("compilations", 2)
	r1, err1 := l.Acquire(t.Context())
	r2, err2 := l.Acquire(t.Context())
	if err1 != nil || err2 != nil {
		t.Fatalf("within capacity: %v, %v", err1, err2)
	}
	_, err := l.Acquire(t.Context())
	if tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Fatalf("over capacity: err = %v, want unavailable", err)
	}
	if d, ok := admit.Refused(err); !ok || d != admit.RetryAfter {
		t.Errorf("Refused(%v) = %v, %v; want %v, true", err, d, ok, admit.RetryAfter)
	}
	if got := l.Rejected(); got != 1 {
		t.Errorf("Rejected = %d, want 1", got)
	}
	if got := l.InUse(); got != 2 {
		t.Errorf("InUse = %d, want 2", got)
	}
	r1()
	r3, err := l.Acquire(t.Context())
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()
	if got := l.InUse(); got != 0 {
		t.Errorf("InUse after every release = %d", got)
	}
}

func TestLimiterDefaults(t *testing.T) {
	if got, want := admit.New("x", 0).Capacity(), admit.DefaultCapacity(); got != want || want < 2 {
		t.Errorf("default capacity %d, want %d (at least 2)", got, want)
	}
	var none *admit.Limiter
	release, err := none.Acquire(t.Context())
	if err != nil {
		t.Fatalf("nil limiter refused: %v", err)
	}
	release()
	if _, ok := admit.Refused(tenure.Errorf(tenure.CodeUnavailable, "", "down")); ok {
		t.Error("an unavailable store counted as a refusal")
	}
}

// With a queue, a call past the capacity waits for a slot and is admitted
// when one frees; past the queue's depth a call is refused at once, a
// waiter whose wait runs out is refused, and one whose context ends gets
// the context's error.
func TestLimiterQueue(t *testing.T) {
	l := admit.New("compilations", 1).WithQueue(1, time.Minute)
	r1, err := l.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	admitted := make(chan func(), 1)
	go func() {
		r, err := l.Acquire(t.Context())
		if err != nil {
			t.Errorf("queued call: %v", err)
			admitted <- func() {}
			return
		}
		admitted <- r
	}()
	for l.Waiting() != 1 {
		runtime.Gosched()
	}
	// The queue holds one: the next call is refused without waiting.
	if _, err := l.Acquire(t.Context()); tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Fatalf("past the queue: %v, want unavailable", err)
	}
	r1()
	r2 := <-admitted
	if l.InUse() != 1 || l.Waiting() != 0 {
		t.Fatalf("after the release: %d in use, %d waiting; want 1, 0", l.InUse(), l.Waiting())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting with an ended context: %v, want context.Canceled", err)
	}
	short := admit.New("compilations", 1).WithQueue(4, time.Millisecond)
	rs, _ := short.Acquire(t.Context())
	if _, err := short.Acquire(t.Context()); tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Fatalf("a wait that runs out: %v, want unavailable", err)
	}
	if got := short.Rejected(); got != 1 {
		t.Errorf("Rejected = %d, want 1", got)
	}
	rs()
	r2()
	if l.InUse() != 0 || l.Waiting() != 0 || short.Waiting() != 0 {
		t.Errorf("after every release: %d in use, %d + %d waiting", l.InUse(), l.Waiting(), short.Waiting())
	}
}
