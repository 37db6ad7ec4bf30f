package sqlite_test

import (
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storetest"
)

// oraclesFull runs the whole existence-oracle property (.ci/run sets it).
var oraclesFull = flag.Bool("oracles.full", false, "run the existence-oracle property over 100,000 triples")

// TestNoExistenceOracles runs the existence-oracle property: 1,000 world
// pairs of 100 operations each with -oracles.full (100,000 triples, 2–3
// minutes here; .ci/run sets it), else 60 world pairs (a sample that keeps
// go test ./... fast, now that hidden objects vary between the worlds too;
// 30 with -short).
func TestNoExistenceOracles(t *testing.T) {
	cfg := storetest.OracleConfig{Worlds: 30, Ops: 100, Seed: 13}
	switch {
	case *oraclesFull:
		cfg.Worlds = 1000
	case testing.Short():
		cfg.Worlds = 15
	}
	storetest.RunOracles(t, func(t *testing.T, now func() time.Time, newID func() string) storetest.OracleStore {
		s := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{Now: now, NewID: newID})
		if err := s.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, cfg)
}
