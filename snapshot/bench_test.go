package snapshot_test

import (
	"testing"

	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/storetest"
)

// benchRound returns n prepared deltas of 16 agents over an empty state
// (storetest.LoadDelta).
func benchRound(b *testing.B, n int) (map[string]any, []snapshot.Delta) {
	base := snapshot.InitialState(query)
	ds := make([]snapshot.Delta, n)
	for i := range ds {
		ds[i] = storetest.LoadDelta(i, n)
	}
	return base, prepared(b, base, snapshot.MaxMaxStateSize, ds...)
}

// BenchmarkAggregate closes rounds of 1,000 and 10,000 deltas in memory
// (no store): within the size limit, and clipped to about a fifth of the
// state (10,000 bytes for 1,000 deltas, the default 50,000 for 10,000).
func BenchmarkAggregate(b *testing.B) {
	for _, bc := range []struct {
		name    string
		n, size int
	}{{"1000", 1000, 0}, {"10000", 10000, 0}, {"1000/clipped", 1000, 10_000}, {"10000/clipped", 10000, snapshot.DefaultMaxStateSize}} {
		b.Run(bc.name, func(b *testing.B) {
			base, ds := benchRound(b, bc.n)
			w := snapshot.Workflow{MaxStateSize: bc.size}
			if bc.size == 0 {
				w.MaxStateSize = snapshot.MaxMaxStateSize
			}
			b.ReportAllocs()
			var res snapshot.Result
			for b.Loop() {
				var err error
				if res, err = snapshot.Aggregate(base, ds, w); err != nil {
					b.Fatal(err)
				}
			}
			if (bc.size > 0) != (res.Report.Clipped > 0) {
				b.Fatalf("%d deltas clipped", res.Report.Clipped)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/close")
		})
	}
}
