package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/tenure-dev/tenure"
)

// Defaults for RetryOptions.
const (
	DefaultRetries     = 2
	DefaultCallTimeout = 30 * time.Second
	DefaultBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff  = 8 * time.Second
)

// RetryOptions configures WithRetry. The zero value retries twice with
// backoff starting at 500ms and bounds each attempt to 30s.
type RetryOptions struct {
	// Retries is how many times a failed attempt is retried. Zero means
	// DefaultRetries; a negative value disables retries (the per-attempt
	// timeout still applies).
	Retries int
	// Timeout bounds each attempt through its context (default 30s). The
	// caller's context bounds the whole call, retries and waits included.
	Timeout time.Duration
	// Backoff is the wait before the first retry (default 500ms); it
	// doubles for each further retry up to MaxBackoff (default 8s). Each
	// wait is jittered down by up to half, so that clients rate limited
	// together do not retry together.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Sleep waits d, or until ctx is done and then returns ctx.Err(). Nil
	// uses a timer; tests inject one that records and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives a debug record per retry (default: discard).
	Logger *slog.Logger
}

// WithRetry returns a Completer that calls c with a per-attempt timeout and
// retries the attempts that failed with an error retrying can cure:
// tenure.CodeUnavailable (unreachable, rate limited, 5xx) and
// tenure.CodeTimeout (the attempt ran out of time). Other errors
// (CodeInvalid, CodeUnauthenticated, ...) are returned at once. It stops
// waiting and returns when ctx is done. The returned Completer is safe for
// concurrent use when c is.
//
// c's provider should not retry on its own, or the attempts multiply.
func WithRetry(c Completer, o RetryOptions) Completer {
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultCallTimeout
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = o.Backoff
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &retrying{c: c, o: o}
}

// retrying is the Completer WithRetry returns.
type retrying struct {
	c Completer
	o RetryOptions
}

// Complete implements Completer. Errors are those of the wrapped
// Completer's last attempt; when ctx ends between attempts, CodeTimeout
// for a deadline and CodeUnavailable for a cancellation.
func (r *retrying) Complete(ctx context.Context, req Request) (Response, error) {
	wait := r.o.Backoff
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return Response{}, contextError(ctx, err, attempt)
		}
		resp, err := r.attempt(ctx, req)
		if err == nil {
			return resp, nil
		}
		if attempt == r.o.Retries || !Retryable(err) {
			if attempt > 0 {
				err = fmt.Errorf("complete (%d attempts): %w", attempt+1, err)
			}
			return Response{}, err
		}
		d := jitter(wait)
		r.o.Logger.DebugContext(ctx, "llm: retrying completion",
			"attempt", attempt+1, "wait", d, "code", tenure.ErrorCode(err), "err", err)
		if err := r.o.Sleep(ctx, d); err != nil {
			return Response{}, contextError(ctx, err, attempt+1)
		}
		wait = min(2*wait, r.o.MaxBackoff)
	}
}

// attempt runs one call under the per-attempt timeout. An error that is
// not a *tenure.Error from a call whose attempt deadline passed (a
// Completer that returns ctx.Err() as is) becomes CodeTimeout.
func (r *retrying) attempt(ctx context.Context, req Request) (Response, error) {
	actx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	resp, err := r.c.Complete(actx, req)
	if err == nil {
		return resp, nil
	}
	var te *tenure.Error
	if !errors.As(err, &te) && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return Response{}, &tenure.Error{Code: tenure.CodeTimeout,
			Message: fmt.Sprintf("completion attempt timed out after %s", r.o.Timeout), Err: err}
	}
	return resp, err
}

// Retryable reports whether err is worth retrying: its code is
// tenure.CodeUnavailable or tenure.CodeTimeout.
func Retryable(err error) bool {
	switch tenure.ErrorCode(err) {
	case tenure.CodeUnavailable, tenure.CodeTimeout:
		return true
	}
	return false
}

// contextError reports that ctx ended before or between attempts.
func contextError(ctx context.Context, err error, attempts int) error {
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	}
	code, msg := tenure.CodeUnavailable, "completion canceled"
	if errors.Is(err, context.DeadlineExceeded) {
		code, msg = tenure.CodeTimeout, "completion timed out"
	}
	if attempts > 0 {
		msg = fmt.Sprintf("%s after %d attempts", msg, attempts)
	}
	return &tenure.Error{Code: code, Message: msg, Err: err}
}

// jitter returns a duration in [d/2, d].
func jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + rand.N(d-half+1)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
