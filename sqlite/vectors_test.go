package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
)

// BenchmarkNearestMessages measures the exact scan that finds the messages
// nearest a query: every vector in the reader's scope read and compared.
func BenchmarkNearestMessages(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("messages=%d/dims=768", n), func(b *testing.B) {
			ctx := context.Background()
			st := sqlite.New(filepath.Join(b.TempDir(), "t.db"), sqlite.Options{})
			if err := st.Open(ctx); err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			p := tenure.Principal{UserID: "u", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
			msgs := make([]tenure.Message, n)
			t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range msgs {
				msgs[i] = tenure.Message{ThreadID: "t", ID: fmt.Sprint(i), Role: "user", Content: fmt.Sprintf("turn %d", i),
					CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
			}
			if _, err := st.ImportMessages(ctx, p, msgs, nil); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			random := func() []float32 {
				v := make([]float32, 768)
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
				return semantic.Normalize(v)
			}
			var vecs []semantic.Vector
			var links []semantic.Link
			for i := range n {
				h := semantic.HashText(p.TenantID, "", fmt.Sprint(i))
				vecs = append(vecs, semantic.Vector{Hash: h, Values: random()})
				links = append(links, semantic.Link{Seq: int64(i + 1), Hash: h})
			}
			be := st.Backend()
			if err := be.PutVectors(ctx, "m", vecs, links); err != nil {
				b.Fatal(err)
			}
			q := random()
			for b.Loop() {
				near, sims, err := be.NearestMessages(ctx, p.TenantID, engine.NearestFilter{Model: "m", Vector: q, Limit: 100,
					Neighbors: 1, WideMatches: 10, UserID: p.UserID})
				if err != nil || len(near) < 100 || len(sims) != n {
					b.Fatalf("NearestMessages: %d near, %d similarities, %v", len(near), len(sims), err)
				}
			}
		})
	}
}
