package http_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
)

// Serve a store over HTTP and use it through the client, which implements
// the same interfaces as the store.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "tenure")
	defer os.RemoveAll(dir)
	st := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	// A key for user ann of tenant acme; only its hash is stored.
	_, secret, err := st.CreateKey(ctx, tenure.APIKey{Principal: tenure.Principal{TenantID: "acme", UserID: "ann", Authority: "employee"}})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{}).Handler())
	defer ts.Close()

	var store tenure.Store = tenurehttp.NewClient(ts.URL, secret, tenurehttp.ClientOptions{})
	// The principal argument is ignored: the server uses the key's.
	store.Put(ctx, tenure.Principal{}, tenure.Object{Key: "order.status", Value: []byte(`"approved"`)})
	store.Put(ctx, tenure.Principal{}, tenure.Object{Key: "order.status", Value: []byte(`"cancelled"`), Supersedes: "order.status"})
	o, _ := store.CurrentValue(ctx, tenure.Principal{}, "order.status", tenure.Read{})
	fmt.Println(o.TenantID, o.WrittenBy, string(o.Value))

	_, err = store.Get(ctx, tenure.Principal{}, "no-such-id", tenure.Read{})
	fmt.Println(tenure.ErrorCode(err), tenure.ErrorField(err))
	// Output:
	// acme ann "cancelled"
	// not_found object_id
}

// Digest threads on the server: in the background after each append, or
// now with Client.Extract.
func ExampleClient_Extract() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "tenure")
	defer os.RemoveAll(dir)
	st := sqlite.New(filepath.Join(dir, "tenure.db"), sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	_, secret, err := st.CreateKey(ctx, tenure.APIKey{Principal: tenure.Principal{TenantID: "acme", UserID: "ann", Authority: "employee"}})
	if err != nil {
		log.Fatal(err)
	}

	// The deterministic rules and the extractive summarizer; a model would
	// go in their place (extract.NewLLM, summarize.NewLLM).
	dig := tenurehttp.NewDigester(st, extract.NewRules(extract.RulesOptions{}), summarize.NewExtractive(summarize.Options{}),
		engine.SummaryOptions{RollingEvery: 1})
	srv := tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{Digester: dig, ManualDigest: true})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.StopDigests(ctx)

	c := tenurehttp.NewClient(ts.URL, secret, tenurehttp.ClientOptions{})
	at := time.Date(2025, 5, 8, 10, 0, 0, 0, time.UTC)
	c.AppendMessages(ctx, tenure.Principal{}, []tenure.Message{{ThreadID: "p1", ID: "m1", Role: "user", Content: "Let's use Redis for caching.", CreatedAt: at}})
	res, err := c.Extract(ctx, "p1", true)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.State.ItemsInserted, res.Summary.Rolling != nil, res.Err())
	// Output:
	// 1 true <nil>
}
