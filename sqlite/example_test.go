package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

// A correction supersedes a fact; the current value follows the chain and
// the history keeps both.
func Example() {
	dir, _ := os.MkdirTemp("", "tenure")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		panic(err)
	}
	defer s.Close()

	me := tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "employee"}
	s.Put(ctx, me, tenure.Object{Key: "user.address", Content: "123 Main St"})
	r, _ := s.Put(ctx, me, tenure.Object{Key: "user.address", Content: "456 Oak Ave", Supersedes: "user.address"})
	fmt.Println(r.Outcome, r.Changes[0].To)

	cur, _ := s.CurrentValue(ctx, me, "user.address", tenure.Read{})
	fmt.Println(cur.Content)

	h, _ := s.History(ctx, me, "user.address", tenure.Scope{})
	fmt.Println(len(h.Versions), "versions,", len(h.Chain), "links in the chain")
	// Output:
	// created superseded
	// 456 Oak Ave
	// 3 versions, 2 links in the chain
}
