package http_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	tenurehttp "github.com/tenure-dev/tenure/http"
)

// BenchmarkServer measures the server end to end over real HTTP with the
// in-process client: b.N calls spread over GOMAXPROCS×parallelism
// goroutines (-cpu and the parallelism below set N), reporting requests
// per second and the 50th and 99th-percentile latency of one call. The
// Embedded cases make the same calls on the store and compiler directly,
// for the cost of HTTP, JSON and authentication by difference.
//
//	go test ./http -run xxx -bench Server -benchtime 2000x
func BenchmarkServer(b *testing.B) {
	e := newEnv(b)
	c := e.client(e.alice)
	for i := range 500 {
		o := tenure.Object{Key: fmt.Sprintf("fact.%d", i), Content: fmt.Sprintf("customer %d prefers delivery on day %d of the week", i, i%7)}
		if _, err := c.Put(e.ctx, tenure.Principal{}, o); err != nil {
			b.Fatal(err)
		}
	}
	var seq atomic.Int64
	write := func(st tenurehttp.Store) func() error {
		return func() error {
			n := seq.Add(1)
			_, err := st.Put(e.ctx, aliceP, tenure.Object{Key: fmt.Sprintf("w.%d", n%100), Value: fmt.Appendf(nil, "%d", n)})
			return err
		}
	}
	compileWith := func(cc tenurehttp.Compiler) func() error {
		return func() error {
			_, _, err := cc.Compile(e.ctx, compile.Request{Principal: aliceP, Query: "which day does customer 42 prefer for delivery?", Budget: 1000})
			return err
		}
	}
	for _, bc := range []struct {
		name string
		call func() error
	}{
		{"Write", write(c)},
		{"WriteEmbedded", write(e.store)},
		{"Compile", compileWith(c)},
		{"CompileEmbedded", compileWith(compile.New(e.store, compile.Options{}))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism(4)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					t0 := time.Now()
					if err := bc.call(); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			elapsed := time.Since(start)
			b.StopTimer()
			if len(lat) == 0 {
				return
			}
			slices.Sort(lat)
			p99 := lat[min(len(lat)-1, len(lat)*99/100)]
			b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
			b.ReportMetric(float64(p99.Microseconds())/1e3, "p99-ms")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
		})
	}
}
