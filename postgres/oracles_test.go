package postgres_test

import (
	"flag"
	"testing"
	"time"

	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/storetest"
)

// oraclesFull runs the whole existence-oracle property, as the SQLite
// store's test does; oraclesWorlds a sample of another size (.ci/run).
var (
	oraclesFull   = flag.Bool("oracles.full", false, "run the existence-oracle property over 100,000 triples")
	oraclesWorlds = flag.Int("oracles.worlds", 0, "run the existence-oracle property over this many world pairs")
)

// TestNoExistenceOracles runs the existence-oracle property on PostgreSQL
// (see the SQLite store's test): 1,000 world pairs of 100 operations each
// with -oracles.full, -oracles.worlds N of them, else 25 (15 with -short):
// a world costs PostgreSQL ~0.25 s against SQLite's ~0.02 s, so go test
// ./... samples and .ci/run runs a larger sample. Each store is a schema
// of its own.
func TestNoExistenceOracles(t *testing.T) {
	cfg := storetest.OracleConfig{Worlds: 12, Ops: 100, Seed: 13}
	switch {
	case *oraclesFull:
		cfg.Worlds = 1000
	case *oraclesWorlds > 0:
		cfg.Worlds = *oraclesWorlds
	case testing.Short():
		cfg.Worlds = 6
	}
	storetest.RunOracles(t, func(t *testing.T, now func() time.Time, newID func() string) storetest.OracleStore {
		return open(t, pgtest.URL(t), postgres.Options{Now: now, NewID: newID})
	}, cfg)
}
