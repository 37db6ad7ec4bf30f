package sqlite_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storetest"
)

// TestNoExistenceOracles runs the existence-oracle property: 1,000 world
// pairs of 100 operations each (100 with -short).
func TestNoExistenceOracles(t *testing.T) {
	cfg := storetest.OracleConfig{Worlds: 1000, Ops: 100, Seed: 13}
	if testing.Short() {
		cfg.Worlds = 100
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
