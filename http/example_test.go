package http_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/tenure-dev/tenure"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
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
