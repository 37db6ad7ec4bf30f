package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storetest"
)

// benchAgents are the agents of the snapshot benchmarks, each its own
// principal.
var benchAgents = func() []tenure.Principal {
	ps := make([]tenure.Principal, 16)
	for i := range ps {
		ps[i] = tenure.Principal{UserID: fmt.Sprintf("agent-%02d", i), TenantID: "bench", Authority: "employee"}
	}
	return ps
}()

// benchDelta is the i-th delta of a round of n, without its agent: the
// principal submitting it is.
func benchDelta(i, n int) snapshot.Delta {
	d := storetest.LoadDelta(i, n)
	d.AgentID = ""
	return d
}

// benchWorkflow starts a workflow whose state may grow to 16 MiB, so that
// nothing is clipped unless maxSize says otherwise.
func benchWorkflow(b *testing.B, s *sqlite.Store, id string, maxSize int) {
	b.Helper()
	if maxSize == 0 {
		maxSize = snapshot.MaxMaxStateSize
	}
	if _, err := s.StartWorkflow(context.Background(), benchAgents[0], snapshot.Workflow{WorkflowID: id, Query: "benchmark", MaxStateSize: maxSize}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSubmitDelta submits one delta per call, one agent after
// another: deltas accepted per second by one writer.
func BenchmarkSubmitDelta(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	benchWorkflow(b, s, "wf", 0)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.SubmitDeltas(ctx, benchAgents[i%16], "wf", []snapshot.Delta{benchDelta(i, 1<<20)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkSubmitDeltaParallel has 16 agents submit one delta per call at
// once to the same round.
func BenchmarkSubmitDeltaParallel(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	benchWorkflow(b, s, "wf", 0)
	ctx := context.Background()
	var next, agent atomic.Int64
	b.SetParallelism(max(1, 16/max(1, testingProcs())))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		p := benchAgents[agent.Add(1)%16]
		for pb.Next() {
			if _, err := s.SubmitDeltas(ctx, p, "wf", []snapshot.Delta{benchDelta(int(next.Add(1)), 1<<20)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkSubmitDeltaBatch100 submits 100 deltas per call.
func BenchmarkSubmitDeltaBatch100(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	benchWorkflow(b, s, "wf", 0)
	ctx := context.Background()
	batch := make([]snapshot.Delta, 100)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for j := range batch {
			batch[j] = benchDelta(n, 1<<20)
			n++
		}
		if _, err := s.SubmitDeltas(ctx, benchAgents[n%16], "wf", batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkCloseRound closes a round of 1,000 and of 10,000 deltas from 16
// agents: the latency of one close (aggregation, the new snapshot, every
// delta's outcome), within the size limit and clipped to about a fifth of
// the state (10,000 bytes for 1,000 deltas, the default 50,000 for
// 10,000).
func BenchmarkCloseRound(b *testing.B) {
	for _, bc := range []struct {
		name    string
		n, size int
	}{{"1000", 1000, 0}, {"10000", 10000, 0}, {"1000/clipped", 1000, 10_000}, {"10000/clipped", 10000, snapshot.DefaultMaxStateSize}} {
		b.Run(bc.name, func(b *testing.B) {
			s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				id := fmt.Sprintf("wf-%d", i)
				benchWorkflow(b, s, id, bc.size)
				for start := 0; start < bc.n; start += 1000 {
					byAgent := map[int][]snapshot.Delta{}
					for j := start; j < min(bc.n, start+1000); j++ {
						byAgent[j%16] = append(byAgent[j%16], benchDelta(j, bc.n))
					}
					for a, ds := range byAgent {
						if _, err := s.SubmitDeltas(ctx, benchAgents[a], id, ds); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
				snap, err := s.CloseRound(ctx, benchAgents[0], id, 0)
				if err != nil {
					b.Fatal(err)
				}
				if snap.Report.Deltas != bc.n {
					b.Fatalf("closed %d deltas, want %d", snap.Report.Deltas, bc.n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/close")
		})
	}
}

// testingProcs is GOMAXPROCS.
func testingProcs() int { return runtime.GOMAXPROCS(0) }
