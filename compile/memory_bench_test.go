package compile_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/internal/memtest"
)

// prose returns n bytes of paragraphs of sentences drawn from a
// Zipf-distributed synthetic vocabulary: short words, so many subunits per
// megabyte, and a query shares words with nearly every subunit (every one
// is ranked, rescued and rendered: the worst case for memory).
func prose(n int, seed uint64) string {
	words := benchVocabulary(2000)
	rng := rand.New(rand.NewPCG(seed, 11))
	zipf := rand.NewZipf(rng, 1.1, 1, 1999)
	var b strings.Builder
	b.Grow(n + 512)
	for b.Len() < n {
		for s := range 3 + rng.IntN(5) {
			if s > 0 {
				b.WriteByte(' ')
			}
			for w := range 6 + rng.IntN(15) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[zipf.Uint64()])
			}
			b.WriteByte('.')
		}
		b.WriteString("\n\n")
	}
	return b.String()[:n]
}

// proseQuery shares its words with most of prose's sentences.
const proseQuery = "what do lo mi and ka say about ne"

// BenchmarkCompileMemory reports the peak heap of one compilation above
// the heap before it (peak-MB), against its input (input-MB) and the
// target 3 × input + 64 MB (limit-MB): with a 1 MB and a 10 MB request
// document and with a 1 MB corpus object in the store.
//
//	go test ./compile -run '^$' -bench CompileMemory -benchtime 3x
func BenchmarkCompileMemory(b *testing.B) {
	cases := []struct {
		name   string
		size   int
		stored bool
	}{
		{"document=1MB", 1_000_000, false},
		{"document=10MB", 10_000_000, false},
		{"corpus=1MB", 1_000_000, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			text := prose(tc.size, 1)
			s := seedStore(b, 0)
			req := compile.Request{Principal: owner, Query: proseQuery, Budget: 4000}
			if tc.stored {
				if _, err := s.Put(context.Background(), owner, tenure.Object{Key: "kb.big", Content: text, Layer: tenure.LayerCorpus,
					SourceOrigin: "https://kb.example/big"}); err != nil {
					b.Fatal(err)
				}
			} else {
				req.Documents = []compile.Document{{ID: "big", Source: "https://example.com/big", Content: text}}
			}
			c := compile.New(s, compile.Options{})
			// The tokenizer's tables load on first use: not this cost.
			if _, _, err := c.Compile(context.Background(), compile.Request{Principal: owner, Query: "warm up", Budget: 100}); err != nil {
				b.Fatal(err)
			}
			var worst uint64
			b.ReportAllocs()
			for b.Loop() {
				var err error
				base, peak := memtest.Peak(func() { _, _, err = c.Compile(context.Background(), req) })
				if err != nil {
					b.Fatal(err)
				}
				worst = max(worst, peak-base)
			}
			input := float64(tc.size) / 1e6
			b.ReportMetric(memtest.MiB(worst), "peak-MB")
			b.ReportMetric(input, "input-MB")
			b.ReportMetric(3*input+64, "limit-MB")
		})
	}
}

// TestCompileMemoryLinear: compiling a document costs memory in
// proportion to it, within the benchmark's target (3 × input + 64 MB) with
// room to spare; a copy of the document per subunit, or any other
// quadratic term, fails it long before 4 MB.
func TestCompileMemoryLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes")
	}
	f := newFixture(t)
	f.compile(compile.Request{Principal: owner, Query: "warm up", Budget: 100})
	for _, size := range []int{250_000, 1_000_000, 4_000_000} {
		req := compile.Request{Principal: owner, Query: proseQuery, Budget: 4000,
			Documents: []compile.Document{{ID: "big", Source: "https://example.com/big", Content: prose(size, 2)}}}
		var err error
		base, peak := memtest.Peak(func() { _, _, err = f.c.Compile(f.ctx, req) })
		if err != nil {
			t.Fatal(err)
		}
		limit := 3*uint64(size) + 64<<20
		if peak-base > limit {
			t.Fatalf("a %d-byte document peaked at %.1f MB above the heap before, want at most %.1f MB", size, memtest.MiB(peak-base), memtest.MiB(limit))
		}
		t.Logf("%d bytes: peak %.1f MB", size, memtest.MiB(peak-base))
	}
}
