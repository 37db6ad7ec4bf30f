package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// fresh is this process's migrated empty database, copied into each
// database file the process creates instead of migrating it: migrating
// costs ~50 ms of CPU (SQLite parses every statement of the schema, the
// full-text tables' generated ones among them, and each migration
// commits), copying well under one. Tests, evaluations and benchmarks
// create hundreds of stores.
var fresh struct {
	once  sync.Once
	image []byte
	err   error
}

// freshImage returns the bytes of a migrated empty database file, built
// on first use.
func freshImage() ([]byte, error) {
	fresh.once.Do(func() {
		fresh.image, fresh.err = buildFreshImage()
	})
	return fresh.image, fresh.err
}

func buildFreshImage() ([]byte, error) {
	dir, err := os.MkdirTemp("", "tenure-fresh-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fresh.db")
	s := &Store{path: path}
	db, err := sql.Open("sqlite", s.dsn(true))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := migrate(ctx, db, time.Unix(0, 0)); err != nil {
		return nil, err
	}
	// Everything into the database file: the log is not copied.
	var busy, frames, done int
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		return nil, err
	}
	if busy != 0 || frames != done {
		return nil, fmt.Errorf("checkpoint of the fresh database left %d of %d frames", frames-done, frames)
	}
	return os.ReadFile(path)
}

// copyFresh writes the migrated empty database into path, a file Open
// has just created, and reports whether it did; on any failure the file
// is left empty, and Open migrates it.
func copyFresh(path string) bool {
	image, err := freshImage()
	if err != nil {
		return false
	}
	if err := os.WriteFile(path, image, 0o600); err != nil {
		os.Truncate(path, 0)
		return false
	}
	return true
}
