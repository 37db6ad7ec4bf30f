package compile_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/sqlite"
)

// benchVocabulary is a synthetic vocabulary with a Zipf-like frequency.
func benchVocabulary(n int) []string {
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "pa", "de"}
	words := make([]string, n)
	for i := range words {
		w := ""
		for j := i + 1; j > 0; j /= len(syll) {
			w += syll[j%len(syll)]
		}
		words[i] = w
	}
	return words
}

// seedStore writes n facts (batched) and returns the store.
func seedStore(b *testing.B, n int) *sqlite.Store {
	b.Helper()
	s := sqlite.New(filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
	if err := s.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	zipf := rand.NewZipf(rng, 1.1, 1, 1999)
	words := benchVocabulary(2000)
	batch := make([]tenure.Object, 0, 500)
	flush := func() {
		if _, err := s.PutBatch(context.Background(), owner, batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range n {
		var c []string
		for range 8 + rng.IntN(20) {
			c = append(c, words[zipf.Uint64()])
		}
		o := tenure.Object{Key: fmt.Sprintf("fact.%d", i), Content: strings.Join(c, " ")}
		if i%200 == 0 {
			o.IsConstraint = true
		}
		batch = append(batch, o)
		if len(batch) == cap(batch) {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return s
}

// BenchmarkCompile measures compile latency at a 2,000-token budget with
// 1k, 10k and 100k objects in scope, and reports each pipeline step's mean
// cost in microseconds.
func BenchmarkCompile(b *testing.B) {
	words := benchVocabulary(2000)
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			s := seedStore(b, n)
			c := compile.New(s, compile.Options{})
			rng := rand.New(rand.NewPCG(3, 4))
			steps := map[string]float64{}
			b.ReportAllocs()
			b.ResetTimer()
			runs := 0
			for b.Loop() {
				q := fmt.Sprintf("%s %s %s %s", words[rng.IntN(300)], words[rng.IntN(300)], words[rng.IntN(1000)], words[rng.IntN(2000)])
				env, tr, err := c.Compile(context.Background(), compile.Request{Principal: owner, Query: q, Budget: 2000})
				if err != nil || env.Tokens > 2000 {
					b.Fatalf("compile: %v (%d tokens)", err, env.Tokens)
				}
				for _, st := range tr.Steps {
					steps[fmt.Sprintf("%02d-%s", st.Step, st.Name)] += st.Micros
				}
				runs++
			}
			for name, total := range steps {
				b.ReportMetric(total/float64(runs), "µs/"+name)
			}
		})
	}
}
