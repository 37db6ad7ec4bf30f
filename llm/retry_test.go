package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

// completerFunc adapts a function to llm.Completer.
type completerFunc func(ctx context.Context, r llm.Request) (llm.Response, error)

func (f completerFunc) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	return f(ctx, r)
}

// script is a fake Completer that returns errs[i] on the i-th call (nil or
// past the end: success) and counts calls.
type script struct {
	mu    sync.Mutex
	errs  []error
	calls int
}

func (s *script) Complete(ctx context.Context, r llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.calls
	s.calls++
	if n < len(s.errs) && s.errs[n] != nil {
		return llm.Response{}, s.errs[n]
	}
	return llm.Response{Text: "ok", Model: "fake"}, nil
}

// sleeper records the waits WithRetry asks for and returns at once.
type sleeper struct{ waits []time.Duration }

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func codeErr(c tenure.Code) error { return tenure.Errorf(c, "", "fake %s", c) }

func TestWithRetry(t *testing.T) {
	unavailable, timeout := codeErr(tenure.CodeUnavailable), codeErr(tenure.CodeTimeout)
	for _, tt := range []struct {
		name      string
		retries   int
		errs      []error
		wantCalls int
		wantCode  tenure.Code // "" for success
	}{
		{"OK", 0, nil, 1, ""},
		{"OKAfterUnavailable", 0, []error{unavailable, unavailable}, 3, ""},
		{"OKAfterTimeout", 0, []error{timeout}, 2, ""},
		{"ErrUnavailableAfterDefaultRetries", 0, []error{unavailable, unavailable, unavailable, nil}, 3, tenure.CodeUnavailable},
		{"ErrTimeoutAfterRetries", 1, []error{timeout, timeout, nil}, 2, tenure.CodeTimeout},
		{"ErrInvalidNotRetried", 0, []error{codeErr(tenure.CodeInvalid)}, 1, tenure.CodeInvalid},
		{"ErrUnauthenticatedNotRetried", 0, []error{codeErr(tenure.CodeUnauthenticated)}, 1, tenure.CodeUnauthenticated},
		{"ErrPlainNotRetried", 0, []error{errors.New("boom")}, 1, tenure.CodeInternal},
		{"ErrNoRetries", -1, []error{unavailable}, 1, tenure.CodeUnavailable},
		{"ErrInvalidAfterUnavailable", 0, []error{unavailable, codeErr(tenure.CodeInvalid)}, 2, tenure.CodeInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, sl := &script{errs: tt.errs}, &sleeper{}
			c := llm.WithRetry(s, llm.RetryOptions{Retries: tt.retries, Sleep: sl.Sleep})
			resp, err := c.Complete(context.Background(), llm.Request{})
			if got := tenure.ErrorCode(err); got != tt.wantCode {
				t.Errorf("code = %q, want %q (err %v)", got, tt.wantCode, err)
			}
			if err == nil && resp.Text != "ok" {
				t.Errorf("text = %q, want %q", resp.Text, "ok")
			}
			if s.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", s.calls, tt.wantCalls)
			}
			if len(sl.waits) != tt.wantCalls-1 {
				t.Errorf("waits = %v, want %d", sl.waits, tt.wantCalls-1)
			}
		})
	}
}

func TestWithRetryBackoff(t *testing.T) {
	errs := make([]error, 10)
	for i := range errs {
		errs[i] = codeErr(tenure.CodeUnavailable)
	}
	s, sl := &script{errs: errs}, &sleeper{}
	c := llm.WithRetry(s, llm.RetryOptions{Retries: 5, Backoff: time.Second, MaxBackoff: 3 * time.Second, Sleep: sl.Sleep})
	_, err := c.Complete(context.Background(), llm.Request{})
	if err == nil || !strings.Contains(err.Error(), "6 attempts") {
		t.Errorf("err = %v, want one that counts 6 attempts", err)
	}
	// Nominal waits 1s, 2s, 3s (capped), 3s, 3s, each jittered into [d/2, d].
	nominal := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
	if len(sl.waits) != len(nominal) {
		t.Fatalf("waits = %v, want %d of them", sl.waits, len(nominal))
	}
	for i, d := range sl.waits {
		if d < nominal[i]/2 || d > nominal[i] {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, d, nominal[i]/2, nominal[i])
		}
	}
}

func TestWithRetryAttemptTimeout(t *testing.T) {
	// A Completer that honours its context and returns ctx.Err() as is.
	var calls int
	var deadlines []time.Time
	blocking := completerFunc(func(ctx context.Context, r llm.Request) (llm.Response, error) {
		calls++
		d, ok := ctx.Deadline()
		if !ok {
			t.Error("attempt context has no deadline")
		}
		deadlines = append(deadlines, d)
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	})
	sl := &sleeper{}
	start := time.Now()
	c := llm.WithRetry(blocking, llm.RetryOptions{Retries: 1, Timeout: 5 * time.Millisecond, Sleep: sl.Sleep})
	_, err := c.Complete(context.Background(), llm.Request{})
	if got := tenure.ErrorCode(err); got != tenure.CodeTimeout {
		t.Errorf("code = %q, want %q (err %v)", got, tenure.CodeTimeout, err)
	}
	if calls != 2 {
		t.Errorf("calls = %d, want 2 (a timed-out attempt is retried)", calls)
	}
	for i, d := range deadlines {
		if limit := time.Now().Add(5 * time.Millisecond); d.After(limit) || d.Before(start) {
			t.Errorf("attempt %d deadline %v, want within the 5ms attempt timeout", i, d)
		}
	}
}

func TestWithRetryContext(t *testing.T) {
	t.Run("ErrCanceledBeforeCall", func(t *testing.T) {
		s := &script{}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := llm.WithRetry(s, llm.RetryOptions{}).Complete(ctx, llm.Request{})
		if got := tenure.ErrorCode(err); got != tenure.CodeUnavailable {
			t.Errorf("code = %q, want %q (err %v)", got, tenure.CodeUnavailable, err)
		}
		if s.calls != 0 {
			t.Errorf("calls = %d, want 0", s.calls)
		}
	})
	t.Run("ErrCanceledDuringBackoff", func(t *testing.T) {
		s := &script{errs: []error{codeErr(tenure.CodeUnavailable)}}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sleep := func(ctx context.Context, d time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}
		_, err := llm.WithRetry(s, llm.RetryOptions{Sleep: sleep}).Complete(ctx, llm.Request{})
		if got := tenure.ErrorCode(err); got != tenure.CodeUnavailable {
			t.Errorf("code = %q, want %q (err %v)", got, tenure.CodeUnavailable, err)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want it to wrap context.Canceled", err)
		}
		if s.calls != 1 {
			t.Errorf("calls = %d, want 1", s.calls)
		}
	})
	t.Run("ErrDeadlineDuringBackoff", func(t *testing.T) {
		s := &script{errs: []error{codeErr(tenure.CodeUnavailable)}}
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		// The real sleep: the backoff (1h) outlasts ctx.
		_, err := llm.WithRetry(s, llm.RetryOptions{Backoff: time.Hour}).Complete(ctx, llm.Request{})
		if got := tenure.ErrorCode(err); got != tenure.CodeTimeout {
			t.Errorf("code = %q, want %q (err %v)", got, tenure.CodeTimeout, err)
		}
		if s.calls != 1 {
			t.Errorf("calls = %d, want 1", s.calls)
		}
	})
}

func TestRetryable(t *testing.T) {
	for code, want := range map[tenure.Code]bool{
		tenure.CodeUnavailable: true, tenure.CodeTimeout: true,
		tenure.CodeInvalid: false, tenure.CodeUnauthenticated: false,
		tenure.CodeInternal: false, tenure.CodeTooLarge: false,
	} {
		if got := llm.Retryable(codeErr(code)); got != want {
			t.Errorf("Retryable(%s) = %v, want %v", code, got, want)
		}
	}
	if llm.Retryable(nil) {
		t.Error("Retryable(nil) = true, want false")
	}
}
