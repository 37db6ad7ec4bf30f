package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
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

// Two agents contribute to a workflow's first round; closing it keeps the
// heavier binding, records the conflict, and the path's history says who
// proposed what.
func ExampleStore_CloseRound() {
	dir, _ := os.MkdirTemp("", "tenure")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		panic(err)
	}
	defer s.Close()

	router := tenure.Principal{UserID: "router", TenantID: "acme", Authority: "manager"}
	mapper := tenure.Principal{UserID: "semantic-mapper", TenantID: "acme", Authority: "employee"}
	summarizer := tenure.Principal{UserID: "summarizer", TenantID: "acme", Authority: "employee"}
	if _, err := s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers placed orders over $500?"}); err != nil {
		panic(err)
	}
	bind := func(p tenure.Principal, w float64, concept, why string) {
		d := snapshot.Delta{Round: 1, Weight: &w, Operation: snapshot.OpAdd, Path: "$.bindings.customer",
			Value: json.RawMessage(`"` + concept + `"`), Provenance: why}
		if _, err := s.SubmitDeltas(ctx, p, "orders", []snapshot.Delta{d}); err != nil {
			panic(err)
		}
	}
	bind(mapper, 0.35, "sea:customer:001", "Matched 'customer' to concept via KGS lookup")
	bind(summarizer, 0.2, "sea:client:042", "customer sounds like a client")

	snap, _ := s.CloseRound(ctx, router, "orders", 0)
	fmt.Println(snap.Round, snap.Bindings()["customer"], snap.Report.Conflicts[0].Losers[0].Reason)

	h, _ := s.PathHistory(ctx, router, "orders", "$.bindings.customer")
	for _, d := range h.Deltas {
		fmt.Println(d)
	}
	// Output:
	// 1 sea:customer:001 outweighed
	// Round 1: semantic-mapper → "sea:customer:001" (add $.bindings.customer, weight 0.35, applied) — Matched 'customer' to concept via KGS lookup
	// Round 1: summarizer → "sea:client:042" (add $.bindings.customer, weight 0.2, lost: outweighed) — customer sounds like a client
}
