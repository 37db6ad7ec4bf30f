package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
)

// BenchmarkWrites measures puts (each its own write transaction, under
// the write lock) from 8 writers through one store, and through two
// stores with pools of their own (two servers), and reads (current
// values, no lock) the same way: the lock bounds writes whatever the
// servers, while reads scale.
func BenchmarkWrites(b *testing.B) {
	ctx := context.Background()
	p := tenure.Principal{UserID: "u", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	for _, servers := range []int{1, 2} {
		for _, op := range []string{"put", "read"} {
			b.Run(fmt.Sprintf("%s/servers=%d", op, servers), func(b *testing.B) {
				u := pgtest.URL(b)
				stores := make([]*postgres.Store, servers)
				for i := range stores {
					stores[i] = open(b, u, postgres.Options{})
				}
				for k := range 8 {
					if _, err := stores[0].Put(ctx, p, tenure.Object{Key: fmt.Sprintf("k%d", k), Content: "v"}); err != nil {
						b.Fatal(err)
					}
				}
				var n atomic.Int64
				b.ResetTimer()
				var wg sync.WaitGroup
				for w := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						s := stores[w%servers]
						for i := n.Add(1); i <= int64(b.N); i = n.Add(1) {
							var err error
							if op == "put" {
								_, err = s.Put(ctx, p, tenure.Object{Key: fmt.Sprintf("k%d", w), Content: fmt.Sprint(i)})
							} else {
								_, err = s.CurrentValue(ctx, p, fmt.Sprintf("k%d", w), tenure.Read{})
							}
							if err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
			})
		}
	}
}
