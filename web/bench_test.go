package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/web"
)

// BenchmarkObjectsPage measures the heaviest page, the object search, over
// 100,000 objects (a quarter of them private to another user, so that the
// reader's pages skip them, the newest among them): the first page, a page deep in the listing
// (by its cursor), and the filters by author, layer and key prefix. Each
// iteration is one signed-in GET rendered to HTML.
func BenchmarkObjectsPage(b *testing.B) {
	n := 100_000
	ctx := context.Background()
	st := sqlite.New(filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	carol := tenure.Principal{UserID: "carol", TenantID: "acme", Authority: "employee", Clearance: tenure.Confidential}
	// Batches of 500 by each writer in turn; bob's are private to him.
	writers := []tenure.Principal{alice, carol, alice, bob}
	for start := 0; start < n; start += 500 {
		w := (start / 500) % len(writers)
		p := writers[w]
		batch := make([]tenure.Object, 0, 500)
		for i := start; i < min(start+500, n); i++ {
			o := tenure.Object{Key: fmt.Sprintf("fact.%06d", i), Content: fmt.Sprintf("fact number %d about project %d", i, i%97)}
			if w == 3 {
				o.UserID = bob.UserID
			}
			if i%10 == 0 {
				o.Layer, o.UserID = tenure.LayerUser, p.UserID
			}
			batch = append(batch, o)
		}
		if _, err := st.PutBatch(ctx, p, batch); err != nil {
			b.Fatal(err)
		}
	}
	_, secret, err := st.CreateKey(ctx, tenure.APIKey{Name: "alice", Principal: alice})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(web.New(st, st, web.Options{}))
	b.Cleanup(srv.Close)
	e := &env{srv: srv, keys: map[string]string{"alice": secret}}
	br := newBrowser(b, e)
	br.signIn("alice")
	get := func(path string) string {
		res, err := br.c.Get(srv.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		return string(body)
	}
	// The cursor of a page deep in the listing: the 100th at 100,000 objects.
	next := regexp.MustCompile(`id="next-page" rel="next"|href="(/ui/objects\?[^"]*cursor=[^"]*)"`)
	deep := "/ui/objects"
	for range n / 1000 {
		m := next.FindAllStringSubmatch(get(deep), -1)
		found := ""
		for _, x := range m {
			if x[1] != "" {
				found = strings.ReplaceAll(x[1], "&amp;", "&")
			}
		}
		if found == "" {
			b.Fatal("no next page")
		}
		deep = found
	}
	for _, c := range []struct{ name, path string }{
		{"first", "/ui/objects"},
		{"deep", deep},
		{"author", "/ui/objects?author=carol"},
		{"layer", "/ui/objects?layer=" + url.QueryEscape(string(tenure.LayerUser))},
		{"key", fmt.Sprintf("/ui/objects?key=fact.%04d", (n-600)/100)}, // alice's, 100 objects from the newest
	} {
		b.Run(c.name, func(b *testing.B) {
			rows := strings.Count(get(c.path), `<tr><td><a href="/ui/objects/`)
			if rows == 0 {
				b.Fatalf("%s: no rows", c.path)
			}
			for b.Loop() {
				get(c.path)
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
