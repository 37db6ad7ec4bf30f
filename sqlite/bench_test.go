package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tenure-dev/tenure"
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
