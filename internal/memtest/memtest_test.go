package memtest_test

import (
	"testing"

	"github.com/tenure-dev/tenure/internal/memtest"
)

var sink []byte

// Peak sees memory that fn holds while it runs, and not what was there
// before it.
func TestPeakSeesAllocation(t *testing.T) {
	const size = 64 << 20
	base, peak := memtest.Peak(func() {
		sink = make([]byte, size)
		for i := range sink {
			sink[i] = 1
		}
		sink = nil
	})
	if got := peak - base; got < size {
		t.Errorf("peak %d bytes above base, want at least %d", got, size)
	}
	base, peak = memtest.Peak(func() {})
	if got := peak - base; got > 8<<20 {
		t.Errorf("an empty function peaked %d bytes above base", got)
	}
}
