package admit_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
)

// A limiter admits up to its capacity, refuses the next one at once with
// unavailable and a retry hint, and admits again once a slot is released.
func TestLimiterRejectsAndReleases(t *testing.T) {
	l := admit.New("compilations", 2)
	r1, err1 := l.Acquire()
	r2, err2 := l.Acquire()
	if err1 != nil || err2 != nil {
		t.Fatalf("within capacity: %v, %v", err1, err2)
	}
	_, err := l.Acquire()
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
	r3, err := l.Acquire()
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
	release, err := none.Acquire()
	if err != nil {
		t.Fatalf("nil limiter refused: %v", err)
	}
	release()
	if _, ok := admit.Refused(tenure.Errorf(tenure.CodeUnavailable, "", "down")); ok {
		t.Error("an unavailable store counted as a refusal")
	}
}
