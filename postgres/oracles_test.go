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
// store's test does.
var oraclesFull = flag.Bool("oracles.full", false, "run the existence-oracle property over 100,000 triples")

// TestNoExistenceOracles runs the existence-oracle property on PostgreSQL
// (see the SQLite store's test): 1,000 world pairs of 100 operations each
// with -oracles.full, else 200 (100 with -short). Each store is a schema
// of its own.
func TestNoExistenceOracles(t *testing.T) {
	cfg := storetest.OracleConfig{Worlds: 200, Ops: 100, Seed: 13}
	switch {
	case *oraclesFull:
		cfg.Worlds = 1000
	case testing.Short():
		cfg.Worlds = 100
	}
	storetest.RunOracles(t, func(t *testing.T, now func() time.Time, newID func() string) storetest.OracleStore {
		return open(t, pgtest.URL(t), postgres.Options{Now: now, NewID: newID})
	}, cfg)
}
