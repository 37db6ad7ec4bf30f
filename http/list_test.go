package http_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
)

// listEnv is a server over a store whose clock moves a second per
// reading, holding objects alice can see (hers and the admin's global
// ones) interleaved with objects she cannot (carol's and the admin's
// highly restricted ones, and carol's for the finance role alone).
type listEnv struct {
	*env
	t0      time.Time
	visible map[string]bool // alice's visible object ids
	hidden  map[string]bool // object ids alice cannot see
	txs     []time.Time     // the objects' tx_start, in write order
}

var carolP = tenure.Principal{TenantID: "acme", UserID: "carol", Authority: "employee", Clearance: tenure.Restricted}

func newListEnv(t *testing.T) *listEnv {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var tick atomic.Int64
	st := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{
		Now: func() time.Time { return t0.Add(time.Duration(tick.Add(1)) * time.Second) }})
	if err := st.Open(ctx); err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	ts := httptest.NewServer(tenurehttp.NewServer(st, st, tenurehttp.ServerOptions{}).Handler())
	t.Cleanup(ts.Close)
	e := &listEnv{env: &env{t: t, ctx: ctx, store: st, ts: ts, url: ts.URL}, t0: t0,
		visible: map[string]bool{}, hidden: map[string]bool{}}
	e.admin = e.key(adminP)
	e.alice = e.key(aliceP)
	put := func(p tenure.Principal, o tenure.Object, seen bool) {
		t.Helper()
		w, err := st.Put(ctx, p, o)
		if err != nil {
			t.Fatalf("put %s as %s: %v", o.Key, p.UserID, err)
		}
		if seen {
			e.visible[w.Object.ObjectID] = true
		} else {
			e.hidden[w.Object.ObjectID] = true
		}
		e.txs = append(e.txs, w.Object.TxStart)
	}
	for i := range 8 {
		// Alice's own, valid from a day apart; every other one ended.
		o := tenure.Object{Key: fmt.Sprintf("alice.note%d", i), Value: []byte(`"n"`), ValidFrom: t0.AddDate(0, 0, -8+i)}
		if i%2 == 1 {
			o.ValidUntil = ptr(t0.AddDate(0, 0, -7+i))
		}
		put(aliceP, o, true)
		put(carolP, tenure.Object{Key: fmt.Sprintf("carol.note%d", i), Value: []byte(`"c"`),
			PermissionScope: tenure.PermissionScope{AllowRoles: []string{"finance"}}}, false)
		if i%3 == 0 {
			put(adminP, tenure.Object{Key: fmt.Sprintf("policy.rule%d", i), Value: []byte(`"p"`), Scope: tenure.ScopeGlobal}, true)
			put(adminP, tenure.Object{Key: fmt.Sprintf("secret.rule%d", i), Value: []byte(`"s"`), Scope: tenure.ScopeGlobal,
				SecurityClassification: tenure.HighlyRestricted}, false)
		}
	}
	return e
}

func ids(objs []tenure.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.ObjectID
	}
	return out
}

// TestListFilters checks that each listing filter answers over HTTP what
// the embedded engine answers for the same filter, page by page.
func TestListFilters(t *testing.T) {
	e := newListEnv(t)
	c := e.client(e.alice)
	mid := e.txs[len(e.txs)/2]
	validAt := e.t0.AddDate(0, 0, -4).Add(time.Hour)
	for _, tc := range []struct {
		name string
		f    tenure.Filter
	}{
		{"All", tenure.Filter{}},
		{"AuthorSelf", tenure.Filter{Author: "alice"}},
		{"AuthorAdmin", tenure.Filter{Author: "root"}},
		{"AuthorInvisible", tenure.Filter{Author: "carol"}},
		{"ValidAt", tenure.Filter{ValidAt: &validAt}},
		{"ValidAtOffset", tenure.Filter{ValidAt: ptr(validAt.In(time.FixedZone("", -5*3600)))}},
		{"TxFrom", tenure.Filter{TxFrom: &mid}},
		{"TxUntil", tenure.Filter{TxUntil: &mid}},
		{"TxWindow", tenure.Filter{TxFrom: ptr(e.txs[3]), TxUntil: ptr(e.txs[12])}},
		{"Newest", tenure.Filter{Newest: true}},
		{"NewestLimit", tenure.Filter{Newest: true, Limit: 3}},
		{"Limit", tenure.Filter{Limit: 2}},
		{"Combined", tenure.Filter{Author: "alice", KeyPrefix: "alice.", ValidAt: &validAt, TxUntil: ptr(e.txs[len(e.txs)-1]), Newest: true}},
		{"ScopeKind", tenure.Filter{ScopeKind: tenure.ScopeGlobal}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.List(e.ctx, aliceP, tc.f)
			want, werr := e.store.List(e.ctx, aliceP, tc.f)
			if err != nil || werr != nil {
				t.Fatalf("List: remote %v, embedded %v", err, werr)
			}
			if d := cmp.Diff(ids(want), ids(got)); d != "" {
				t.Errorf("List ids (-embedded +remote):\n%s", d)
			}
			if !sameJSON(got, want) {
				t.Errorf("List: the objects differ from the embedded engine's")
			}
			pg, err := c.ListPage(e.ctx, aliceP, tc.f)
			wpg, werr := e.store.ListPage(e.ctx, aliceP, tc.f)
			if err != nil || werr != nil || !sameJSON(pg, wpg) {
				t.Errorf("ListPage: remote %v next %q %v, embedded %v next %q %v", ids(pg.Objects), pg.Next, err,
					ids(wpg.Objects), wpg.Next, werr)
			}
			for _, id := range ids(got) {
				if e.hidden[id] {
					t.Errorf("listed %s, which alice cannot see", id)
				}
			}
		})
	}
	// The filters select: a test passing with filters ignored would be
	// one that cannot fail.
	all, _ := c.List(e.ctx, aliceP, tenure.Filter{})
	for _, f := range []tenure.Filter{{Author: "root"}, {ValidAt: &validAt}, {TxFrom: &mid}, {TxUntil: &mid}} {
		got, err := c.List(e.ctx, aliceP, f)
		if err != nil || len(got) == 0 || len(got) >= len(all) {
			t.Errorf("List(%+v): %d of %d objects, %v; want some but not all", f, len(got), len(all), err)
		}
	}
	if got, _ := c.List(e.ctx, aliceP, tenure.Filter{Newest: true}); len(got) < 2 || got[0].ObjectID != all[len(all)-1].ObjectID {
		t.Errorf("newest first: got %v, oldest first %v", ids(got), ids(all))
	}
}

// TestListPaging checks that following next over HTTP lists each visible
// object exactly once, never one the caller cannot see, and that objects
// the caller cannot see do not count against a page's limit.
func TestListPaging(t *testing.T) {
	e := newListEnv(t)
	c := e.client(e.alice)
	for _, newest := range []bool{false, true} {
		for _, limit := range []int{1, 2, 3, 100} {
			t.Run(fmt.Sprintf("newest=%v/limit=%d", newest, limit), func(t *testing.T) {
				f := tenure.Filter{Newest: newest, Limit: limit}
				seen := map[string]int{}
				var order []string
				for pages := 0; ; pages++ {
					if pages > len(e.visible)+1 {
						t.Fatalf("more than %d pages", pages)
					}
					pg, err := c.ListPage(e.ctx, aliceP, f)
					if err != nil {
						t.Fatalf("page %d: %v", pages, err)
					}
					if len(pg.Objects) > limit {
						t.Errorf("page %d: %d objects, limit %d", pages, len(pg.Objects), limit)
					}
					if pg.Next != "" && len(pg.Objects) < limit {
						t.Errorf("page %d: %d objects with a next page, limit %d: invisible objects counted", pages, len(pg.Objects), limit)
					}
					for _, o := range pg.Objects {
						seen[o.ObjectID]++
						order = append(order, o.ObjectID)
						if !e.visible[o.ObjectID] {
							t.Errorf("listed %s (%s), which alice cannot see", o.ObjectID, o.Key)
						}
					}
					if pg.Next == "" {
						break
					}
					f.Cursor = pg.Next
				}
				for id := range e.visible {
					if seen[id] != 1 {
						t.Errorf("object %s listed %d times, want once", id, seen[id])
					}
				}
				want, err := e.store.List(e.ctx, aliceP, tenure.Filter{Newest: newest, Limit: 10000})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(ids(want), order); d != "" {
					t.Errorf("paged order (-embedded +paged):\n%s", d)
				}
			})
		}
	}
}

// TestListInvalid checks that bad listing parameters are 400 invalid
// naming the parameter, over raw HTTP and through the client.
func TestListInvalid(t *testing.T) {
	e := newListEnv(t)
	for _, tc := range []struct{ query, field string }{
		{"valid_at=yesterday", "valid_at"},
		{"valid_at=2026-03-01", "valid_at"},
		{"tx_from=2026-13-01T00:00:00Z", "tx_from"},
		{"tx_until=now", "tx_until"},
		{"tx_until=2026-03-01T00:00:00Z&tx_until=2026-03-02T00:00:00Z", "tx_until"},
		{"tx_from=2026-03-02T00:00:00Z&tx_until=2026-03-01T00:00:00Z", "tx_until"},
		{"newest=maybe", "newest"},
		{"cursor=abc", "cursor"},
		{"cursor=-3", "cursor"},
		{"cursor=0", "cursor"},
		{"author=%20alice", "author"},
		{"author=a&author=b", "author"},
		{"after=5", "after"},
		{"limit=10001", "limit"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := e.call("GET", "/v1/objects?"+tc.query, e.alice, "")
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			if b := r.errBody(t); b.Code != tenure.CodeInvalid || b.Field != tc.field {
				t.Errorf("error %+v, want invalid naming %s", b, tc.field)
			}
		})
	}
	c := e.client(e.alice)
	_, err := c.List(e.ctx, aliceP, tenure.Filter{Cursor: "abc"})
	wantError(t, err, tenure.CodeInvalid, "cursor")
	_, err = c.ListPage(e.ctx, aliceP, tenure.Filter{Author: " alice"})
	wantError(t, err, tenure.CodeInvalid, "author")
	// A well-formed listing still answers after the refusals.
	q := url.Values{"newest": {"true"}, "limit": {"1"}, "valid_at": {e.t0.Format(time.RFC3339)}}
	if r := e.call("GET", "/v1/objects?"+q.Encode(), e.alice, ""); r.status != 200 {
		t.Errorf("valid listing: %d %s", r.status, r.body)
	}
}

// TestListScanBound checks that a listing whose pages end at the server's
// scan bound (5,000 stored objects) before they fill still lists every
// visible object: the client follows next, and List answers what the
// embedded engine's List does.
func TestListScanBound(t *testing.T) {
	e := newListEnv(t)
	hidden := make([]tenure.Object, 6000)
	for i := range hidden {
		hidden[i] = tenure.Object{Key: fmt.Sprintf("carol.bulk%d", i), Value: []byte(`"c"`),
			PermissionScope: tenure.PermissionScope{AllowRoles: []string{"finance"}}}
	}
	if _, err := e.store.PutBatch(e.ctx, carolP, hidden); err != nil {
		t.Fatal(err)
	}
	w, err := e.store.Put(e.ctx, aliceP, tenure.Object{Key: "alice.last", Value: []byte(`"l"`)})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(e.alice)
	f := tenure.Filter{Limit: len(e.visible) + 1}
	pg, err := c.ListPage(e.ctx, aliceP, f)
	if err != nil || pg.Next == "" || len(pg.Objects) >= f.Limit {
		t.Fatalf("first page: %d objects, next %q, %v; want a page cut by the scan bound", len(pg.Objects), pg.Next, err)
	}
	got, err := c.List(e.ctx, aliceP, f)
	want, werr := e.store.List(e.ctx, aliceP, f)
	if err != nil || werr != nil {
		t.Fatalf("List: remote %v, embedded %v", err, werr)
	}
	if d := cmp.Diff(ids(want), ids(got)); d != "" {
		t.Errorf("List ids (-embedded +remote):\n%s", d)
	}
	if len(got) != f.Limit || got[len(got)-1].ObjectID != w.Object.ObjectID {
		t.Errorf("List: %d objects, want %d ending with alice.last", len(got), f.Limit)
	}
}
