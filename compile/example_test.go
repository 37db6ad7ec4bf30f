package compile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/sqlite"
)

// Compile a context for a question: the superseded status never reaches
// the envelope, and the envelope fits the budget.
func Example() {
	dir, _ := os.MkdirTemp("", "tenure")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		panic(err)
	}
	defer s.Close()

	me := tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "manager"}
	s.Put(ctx, me, tenure.Object{Key: "order.status", Content: "approved"})
	s.Put(ctx, me, tenure.Object{Key: "order.status", Content: "cancelled", Supersedes: "order.status"})

	env, trace, err := compile.New(s, compile.Options{}).Compile(ctx, compile.Request{
		Principal: me, Query: "Should we proceed with the order?", Budget: 200})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Contains(env.Text(), "cancelled"), strings.Contains(env.Text(), "approved"))
	fmt.Println(env.Tokens <= 200, trace.Omitted[0].Reason)
	// Output:
	// true false
	// true superseded
}
