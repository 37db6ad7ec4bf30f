package memtest

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// interval is how often Peak samples the heap. Reading the metric does not
// stop the world; a spike shorter than this can be missed, which a
// benchmark over a pipeline that holds its memory for milliseconds does
// not mind.
const interval = 100 * time.Microsecond

// heapObjects is the heap occupied by objects, live or not yet swept: what
// the process pays for, as runtime.MemStats.HeapAlloc counts it.
const heapObjects = "/memory/classes/heap/objects:bytes"

// Peak collects garbage, runs fn and returns the heap in use before fn and
// the most in use while it ran, both in bytes. The difference is what fn
// cost at its peak, garbage it left for the collector included.
func Peak(fn func()) (base, peak uint64) {
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base = read()
	var max atomic.Uint64
	max.Store(base)
	raise := func(v uint64) {
		for old := max.Load(); v > old && !max.CompareAndSwap(old, v); old = max.Load() {
		}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			raise(read())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	raise(read())
	return base, max.Load()
}

// MiB converts bytes to mebibytes.
func MiB(b uint64) float64 { return float64(b) / (1 << 20) }
