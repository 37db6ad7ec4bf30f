package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

var benchPrincipal = tenure.Principal{UserID: "bench", TenantID: "bench", Authority: "employee"}

func BenchmarkPut(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Put(ctx, benchPrincipal, tenure.Object{Key: fmt.Sprintf("k%d", i), Content: "the quick brown fox jumps over the lazy dog"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}

func BenchmarkPutBatch100(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	ctx := context.Background()
	batch := make([]tenure.Object, 100)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for j := range batch {
			batch[j] = tenure.Object{Key: fmt.Sprintf("k%d", n), Content: "the quick brown fox jumps over the lazy dog"}
			n++
		}
		if _, err := s.PutBatch(ctx, benchPrincipal, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkPutSameKey measures the reconciliation path: every write
// supersedes the previous claim for the key.
func BenchmarkPutSameKey(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Put(ctx, benchPrincipal, tenure.Object{Key: "hot", Content: fmt.Sprintf("value %d", i)}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCurrentValue(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	ctx := context.Background()
	for i := range 1000 {
		if _, err := s.Put(ctx, benchPrincipal, tenure.Object{Key: fmt.Sprintf("k%d", i%100), Content: fmt.Sprintf("v%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.CurrentValue(ctx, benchPrincipal, fmt.Sprintf("k%d", i%100), tenure.Read{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistory100Versions(b *testing.B) {
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	ctx := context.Background()
	r, err := s.Put(ctx, benchPrincipal, tenure.Object{Key: "doc", Content: "v0"})
	if err != nil {
		b.Fatal(err)
	}
	o := r.Object
	for i := 1; i < 100; i++ {
		o.Content, o.Value = fmt.Sprintf("v%d", i), nil
		w, err := s.Put(ctx, benchPrincipal, o)
		if err != nil {
			b.Fatal(err)
		}
		o = w.Object
	}
	b.ReportAllocs()
	for b.Loop() {
		h, err := s.History(ctx, benchPrincipal, "doc", tenure.Scope{})
		if err != nil || len(h.Versions) != 100 {
			b.Fatalf("history: %d versions, %v", len(h.Versions), err)
		}
	}
}

// benchMessages returns n chat turns in threads of 600, a minute apart.
func benchMessages(n int) []tenure.Message {
	turns := []string{
		"Hey! How was your weekend? I went hiking up by the lake yesterday.",
		"That sounds lovely. I spent Saturday painting a sunrise for my sister's birthday.",
		"Did you finish the book club novel? We meet next Tuesday at the library.",
		"Not yet, I'm halfway. The kids had a swim meet and I was driving all week.",
		"I adopted a dog last month, a rescue called Biscuit. He chews everything!",
		"I'm thinking about going back to school for counseling, maybe next fall.",
	}
	out := make([]tenure.Message, n)
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range out {
		out[i] = tenure.Message{ThreadID: fmt.Sprintf("t%d", i/600), ID: fmt.Sprintf("m%d", i), Role: "user",
			Speaker: []string{"Ann", "Bob"}[i%2], Content: turns[i%len(turns)], CreatedAt: start.Add(time.Duration(i) * time.Minute)}
	}
	return out
}

// BenchmarkImportMessages imports 10,000 messages into a fresh store:
// Import until the messages are committed (full-text indexing follows in
// the background), Searchable until they are also indexed.
func BenchmarkImportMessages(b *testing.B) {
	msgs := benchMessages(10_000)
	for _, searchable := range []bool{false, true} {
		b.Run(map[bool]string{false: "Import", true: "Searchable"}[searchable], func(b *testing.B) {
			ctx := context.Background()
			var elapsed, cpu time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				s := sqlite.New(filepath.Join(b.TempDir(), fmt.Sprintf("bench-%d.db", i)), sqlite.Options{})
				if err := s.Open(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start, c0 := time.Now(), cpuNow()
				if _, err := s.ImportMessages(ctx, benchPrincipal, msgs, nil); err != nil {
					b.Fatal(err)
				}
				if searchable {
					if err := s.IndexMessages(ctx); err != nil {
						b.Fatal(err)
					}
				}
				elapsed += time.Since(start)
				cpu += cpuNow() - c0
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.N*len(msgs))/elapsed.Seconds(), "msgs/s")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
