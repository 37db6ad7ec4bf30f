package sqlite_test

import (
	"cmp"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storetest"
)

// notes returns n objects whose contents are built from a small
// vocabulary, so that words repeat within and across them.
func notes(seed uint64, prefix string, n int) []tenure.Object {
	words := strings.Fields(`garden roses walking walked river boat painted painting sunrise lake support group hiking falls dog rex
		budget launch code alpha`)
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]tenure.Object, n)
	for i := range out {
		text := make([]string, 1+rng.IntN(12))
		for j := range text {
			text[j] = words[rng.IntN(len(words))]
		}
		out[i] = tenure.Object{Key: fmt.Sprintf("%s.%d", prefix, i), Value: []byte(`"x"`), Content: strings.Join(text, " "),
			SecurityClassification: tenure.Public}
	}
	return out
}

// The full-text leg of compile candidates ranks objects by FTS5's bm25()
// with statistics counted over the objects the reader may read: in a store
// that holds one tenant, all of it readable, the order is bm25()'s (ties
// in seq order); another tenant's objects and objects the reader may not
// read change nothing.
func TestObjectRankingIsLocalBM25(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), nil)
	ctx := t.Context()
	writer := tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	for _, o := range notes(1, "note", 300) {
		if _, err := s.Put(ctx, writer, o); err != nil {
			t.Fatal(err)
		}
	}
	reader := tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	filter := func(text string, limit int) engine.CandidateFilter {
		sc := tenure.Scope{UserID: reader.UserID}
		return engine.CandidateFilter{Words: retrieve.ContentWords(text), Limit: limit, Scope: sc, MaxClassRank: reader.Clearance.Rank(),
			Keep: func(o *tenure.Object) bool { return tenure.Visible(reader, sc, o) }}
	}
	type scored struct {
		seq   int64
		score float64
	}
	queries := []string{"garden roses walking", "painting painted walked walking", "sunrise lake boat", "alpha", "dog rex falls hiking budget", "zzznothing"}
	hits := map[string][]int64{}
	for _, q := range queries {
		// bm25() over the whole index, which holds this tenant only.
		rows, err := s.DB().Query(`SELECT rowid, -bm25(objects_fts) FROM objects_fts WHERE objects_fts MATCH ?`, ftsMatch(q))
		if err != nil {
			t.Fatal(err)
		}
		var want []scored
		score := map[int64]float64{}
		for rows.Next() {
			var w scored
			if err := rows.Scan(&w.seq, &w.score); err != nil {
				t.Fatal(err)
			}
			want = append(want, w)
			score[w.seq] = w.score
		}
		rows.Close()
		if q != "zzznothing" && len(want) == 0 {
			t.Fatalf("%q matches nothing", q)
		}
		slices.SortFunc(want, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq)) })
		for _, limit := range []int{1, 3, 10, 40, 1000} {
			got, err := sqlite.ObjectHits(ctx, s, "acme", filter(q, limit))
			if err != nil {
				t.Fatal(err)
			}
			if n := min(limit, len(want)); len(got) != n {
				t.Fatalf("%q, limit %d: %d hits, want %d", q, limit, len(got), n)
			}
			// Scores computed apart may differ in their last bits: the
			// hits must have the scores of the best, in order.
			for i, seq := range got {
				if g, w := score[seq], want[i].score; math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
					t.Errorf("%q, limit %d: hit %d has score %v, want %v", q, limit, i, g, w)
				}
			}
			hits[fmt.Sprint(q, limit)] = got
		}
	}
	// Another tenant's objects, another user's, and objects above the
	// reader's clearance.
	other := tenure.Principal{UserID: "zed", TenantID: "globex", Authority: "policy"}
	for _, o := range notes(2, "other", 200) {
		if _, err := s.Put(ctx, other, o); err != nil {
			t.Fatal(err)
		}
	}
	bob := tenure.Principal{UserID: "bob", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	for i, o := range notes(3, "hidden", 200) {
		if i%2 == 0 {
			o.UserID = "bob"
		} else {
			o.SecurityClassification = tenure.HighlyRestricted
		}
		if _, err := s.Put(ctx, bob, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range queries {
		for _, limit := range []int{1, 3, 10, 40, 1000} {
			got, err := sqlite.ObjectHits(ctx, s, "acme", filter(q, limit))
			if err != nil {
				t.Fatal(err)
			}
			if want := hits[fmt.Sprint(q, limit)]; !slices.Equal(got, want) {
				t.Errorf("%q, limit %d, beside unreadable objects: %v, want %v", q, limit, got, want)
			}
		}
	}
}

// classStats returns the statistics of the store's audience classes by
// tenant and audience (engine.Audience of the class's audience, so that
// classes counted by the migration and by the store compare), and checks
// that every open object names a class of its tenant.
func classStats(t *testing.T, db *sql.DB) map[string][2]int64 {
	t.Helper()
	rows, err := db.Query(`SELECT tenant_id, audience, docs, tokens FROM object_classes`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var tenant, audience string
		var docs, tokens int64
		if err := rows.Scan(&tenant, &audience, &docs, &tokens); err != nil {
			t.Fatal(err)
		}
		k := storetest.ClassKey(t, tenant, audience)
		out[k] = [2]int64{out[k][0] + docs, out[k][1] + tokens}
	}
	var orphans int
	if err := db.QueryRow(`SELECT count(*) FROM objects o WHERE o.tx_end IS NULL AND NOT EXISTS
		(SELECT 1 FROM object_classes c WHERE c.id = o.fts_class AND c.tenant_id = o.tenant_id)`).Scan(&orphans); err != nil || orphans > 0 {
		t.Errorf("%d open objects name no class of their tenant (%v)", orphans, err)
	}
	return out
}

// The classes the store keeps as it writes, closes and deletes objects
// are those migration 0027 counts from the objects (the same documents
// and tokens for each tenant and audience), and a search ranks the same
// over either.
func TestObjectClassesMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tenure.db")
	s := sqlite.New(path, sqlite.Options{})
	ctx := t.Context()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.WriteAudiences(t, s, 120)
	reader := storetest.AudienceReader
	sc := tenure.Scope{UserID: "ann", ProjectID: "p1"}
	f := engine.CandidateFilter{Words: retrieve.ContentWords("garden roses river dog"), Limit: 15, Scope: sc, MaxClassRank: reader.Clearance.Rank(),
		Keep: func(o *tenure.Object) bool { return tenure.Visible(reader, sc, o) }}
	before, err := sqlite.ObjectHits(ctx, s, "acme", f)
	if err != nil || len(before) == 0 {
		t.Fatalf("hits: %v, %v", before, err)
	}
	kept := classStats(t, s.DB())
	var closed int
	if err := s.DB().QueryRow(`SELECT count(*) FROM objects WHERE tx_end IS NOT NULL`).Scan(&closed); err != nil || closed == 0 {
		t.Fatalf("%d closed versions (%v): the test closes none", closed, err)
	}
	s.Close()

	// The database as it was before migration 0027.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE object_classes`, `ALTER TABLE objects DROP COLUMN fts_class`,
		`DELETE FROM schema_migrations WHERE version = 27`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s = open(t, path, nil)
	if got := classStats(t, s.DB()); !maps.Equal(got, kept) {
		t.Errorf("classes counted by the migration:\n%v\nkept by the store:\n%v", got, kept)
	}
	after, err := sqlite.ObjectHits(ctx, s, "acme", f)
	if err != nil || !slices.Equal(after, before) {
		t.Errorf("hits after the migration: %v (%v), before: %v", after, err, before)
	}
}
