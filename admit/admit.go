package admit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tenure-dev/tenure"
)

// RetryAfter is how long a refused caller is told to wait: compilations
// and extractions take milliseconds to seconds.
const RetryAfter = time.Second

// DefaultCapacity is the capacity New gives when asked for none: twice
// GOMAXPROCS, enough to keep every core busy while others wait on the
// store.
func DefaultCapacity() int { return 2 * runtime.GOMAXPROCS(0) }

// Limiter admits at most its capacity of operations at once. It is safe
// for concurrent use; a nil *Limiter admits everything.
type Limiter struct {
	what     string
	slots    chan struct{}
	rejected atomic.Int64
	// queue callers at most wait for a slot, each for at most wait; none
	// (the default) means a call past the capacity is refused at once.
	queue   int64
	wait    time.Duration
	waiting atomic.Int64
}

// New returns a limiter of n operations at once (DefaultCapacity when
// n <= 0); what names them in errors ("compilations"). It does no I/O.
func New(what string, n int) *Limiter {
	if n <= 0 {
		n = DefaultCapacity()
	}
	return &Limiter{what: what, slots: make(chan struct{}, n)}
}

// WithQueue lets up to depth callers past the capacity wait, each for at
// most wait, for a slot to free instead of being refused at once: a short
// burst above the capacity is served a little later rather than failed,
// while the work running at once — and so its memory — stays bounded by
// the capacity. It returns l, and must be called before l is shared.
func (l *Limiter) WithQueue(depth int, wait time.Duration) *Limiter {
	if depth > 0 && wait > 0 {
		l.queue, l.wait = int64(depth), wait
	}
	return l
}

// Acquire admits one operation, or refuses it with CodeUnavailable whose
// cause is a *Busy: at once when every slot is taken and no queue is
// configured or the queue is full, or when its wait runs out. It returns
// ctx's error when ctx ends while waiting. The caller must call release
// exactly once when the operation ends.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots }, nil
	default:
	}
	if l.queue > 0 && l.waiting.Add(1) <= l.queue {
		defer l.waiting.Add(-1)
		timer := time.NewTimer(l.wait)
		defer timer.Stop()
		select {
		case l.slots <- struct{}{}:
			return func() { <-l.slots }, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
	} else if l.queue > 0 {
		l.waiting.Add(-1)
	}
	l.rejected.Add(1)
	return nil, &tenure.Error{Code: tenure.CodeUnavailable, Message: "too many " + l.what + " at once",
		Err: &Busy{What: l.what, Capacity: cap(l.slots), RetryAfter: RetryAfter}}
}

// Capacity returns how many operations run at once at most (0 for nil).
func (l *Limiter) Capacity() int {
	if l == nil {
		return 0
	}
	return cap(l.slots)
}

// Waiting returns how many callers wait for a slot now.
func (l *Limiter) Waiting() int {
	if l == nil {
		return 0
	}
	return int(l.waiting.Load())
}

// InUse returns how many operations run now.
func (l *Limiter) InUse() int {
	if l == nil {
		return 0
	}
	return len(l.slots)
}

// Rejected returns how many operations Acquire has refused.
func (l *Limiter) Rejected() int64 {
	if l == nil {
		return 0
	}
	return l.rejected.Load()
}

// Busy is why Acquire refused an operation.
type Busy struct {
	What       string
	Capacity   int
	RetryAfter time.Duration
}

func (b *Busy) Error() string {
	return fmt.Sprintf("this server runs at most %d %s at once; retry after %s", b.Capacity, b.What, b.RetryAfter)
}

// Refused returns how long err asks its caller to wait before retrying,
// and whether err is a Limiter's refusal.
func Refused(err error) (time.Duration, bool) {
	var b *Busy
	if errors.As(err, &b) {
		return b.RetryAfter, true
	}
	return 0, false
}
