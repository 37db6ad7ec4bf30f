package postgres_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/storetest"
)

// classStats returns the statistics of the audience classes by tenant and
// audience (engine.Audience of the class's, so that classes counted by the
// migration and by the store compare), and checks that every open object
// names a class of its tenant. url's role bypasses row-level security.
func classStats(t *testing.T, url string) map[string][2]int64 {
	t.Helper()
	ctx := t.Context()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rows, err := c.Query(ctx, `SELECT tenant_id, audience, docs, lexemes FROM object_classes`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int64{}
	for rows.Next() {
		var tenant, audience string
		var docs, lexemes int64
		if err := rows.Scan(&tenant, &audience, &docs, &lexemes); err != nil {
			t.Fatal(err)
		}
		k := storetest.ClassKey(t, tenant, audience)
		out[k] = [2]int64{out[k][0] + docs, out[k][1] + lexemes}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var orphans int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM objects o WHERE o.tx_end IS NULL AND NOT EXISTS
		(SELECT 1 FROM object_classes c WHERE c.id = o.fts_class AND c.tenant_id = o.tenant_id)`).Scan(&orphans); err != nil || orphans > 0 {
		t.Errorf("%d open objects name no class of their tenant (%v)", orphans, err)
	}
	return out
}

// The classes the store keeps as it writes, closes and deletes objects
// are those migration 0009 counts from the objects (the same documents
// and lexemes for each tenant and audience), and candidates rank the same
// over either.
func TestObjectClassesMigration(t *testing.T) {
	url := pgtest.URL(t)
	ctx := t.Context()
	s := postgres.New(url, postgres.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.WriteAudiences(t, s, 60)
	reader := storetest.AudienceReader
	q := tenure.CandidateQuery{Principal: reader, Scope: tenure.Scope{ProjectID: "p1"}, Text: "garden roses river dog", Limit: 8}
	keys := func() []string {
		objs, err := s.Candidates(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range objs {
			out = append(out, o.ObjectID)
		}
		return out
	}
	before := keys()
	if len(before) == 0 {
		t.Fatal("no candidates: the test compares nothing")
	}
	kept := classStats(t, url)
	s.Close()

	// The database as it was before migration 0009.
	pgtest.Exec(t, url, `DROP TABLE object_classes; ALTER TABLE objects DROP COLUMN fts_class; DELETE FROM schema_migrations WHERE version = 9`)
	s = postgres.New(url, postgres.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := classStats(t, url); !maps.Equal(got, kept) {
		t.Errorf("classes counted by the migration:\n%v\nkept by the store:\n%v", got, kept)
	}
	if after := keys(); !slices.Equal(after, before) {
		t.Errorf("candidates after the migration: %v, before: %v", after, before)
	}
}
