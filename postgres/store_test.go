package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/storetest"
)

func open(t testing.TB, url string, opt postgres.Options) *postgres.Store {
	t.Helper()
	s := postgres.New(url, opt)
	if err := s.Open(context.Background()); err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) tenure.Store {
		return open(t, pgtest.URL(t), postgres.Options{Now: now})
	})
}

func TestMessageConformance(t *testing.T) {
	storetest.RunMessages(t, func(t *testing.T, now func() time.Time) storetest.MessageStore {
		return open(t, pgtest.URL(t), postgres.Options{Now: now})
	})
}

func TestStateConformance(t *testing.T) {
	storetest.RunState(t, func(t *testing.T, now func() time.Time, opt engine.StateOptions) storetest.StateStore {
		return open(t, pgtest.URL(t), postgres.Options{Now: now, State: opt})
	})
}

func TestSnapshotConformance(t *testing.T) {
	storetest.RunSnapshots(t, func(t *testing.T, now func() time.Time, newID func() string) (snapshot.Store, func(func() string) snapshot.Store) {
		url := pgtest.URL(t)
		openWith := func(newID func() string) snapshot.Store {
			return open(t, url, postgres.Options{Now: now, NewID: newID})
		}
		return openWith(newID), openWith
	})
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Servers starting together on an empty database migrate it once: the
// advisory lock serializes them, and each finds the work done.
func TestConcurrentOpen(t *testing.T) {
	u := pgtest.URL(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s := postgres.New(u, postgres.Options{})
			err := s.Open(context.Background())
			s.Close()
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	applied, latest, err := postgres.Version(context.Background(), u)
	if err != nil || applied != latest || latest == 0 {
		t.Errorf("schema version %d of %d (%v)", applied, latest, err)
	}
}

// A load of messages refreshes the planner's statistics (a fresh table
// would otherwise be planned as if it held one row until autovacuum
// caught up), though the application role owns no table.
func TestAnalyzeAfterLoad(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	s := open(t, u, postgres.Options{})
	p := tenure.Principal{UserID: "u", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	msgs := make([]tenure.Message, 1200)
	for i := range msgs {
		msgs[i] = tenure.Message{ThreadID: "t", ID: fmt.Sprint(i), Role: "user", Content: fmt.Sprintf("turn %d", i),
			CreatedAt: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)}
	}
	if _, err := s.ImportMessages(ctx, p, msgs, nil); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var tuples float64
	if err := admin.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'messages'::regclass`).Scan(&tuples); err != nil || tuples < 1000 {
		t.Errorf("the planner believes messages holds %v rows (%v), want 1200", tuples, err)
	}
}

func TestEntities(t *testing.T) {
	storetest.RunEntities(t, func(t *testing.T, now func() time.Time) storetest.EntityStore {
		return open(t, pgtest.URL(t), postgres.Options{Now: now})
	})
}
