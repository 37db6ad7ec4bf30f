package eval

import (
	"context"
	"path/filepath"

	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
)

// Store is a store an evaluation runs on: the engine over a database of
// its own, and what releases it.
type Store struct {
	*engine.Engine
	// Release closes the store and removes its database (nil: nothing).
	Release func() error
	// Index brings full-text search up to date (nil: nothing to do).
	Index func(context.Context) error
}

// Close releases the store.
func (s *Store) Close() error {
	if s.Release == nil {
		return nil
	}
	return s.Release()
}

// IndexMessages brings full-text search up to date.
func (s *Store) IndexMessages(ctx context.Context) error {
	if s.Index == nil {
		return nil
	}
	return s.Index(ctx)
}

// Opener opens a fresh, empty store for one conversation, question or
// size; name tells them apart within a run, and m, when set, embeds
// messages. The default opens a SQLite file in the run's temporary
// directory; tenure eval --db postgres://… opens a PostgreSQL schema.
type Opener func(ctx context.Context, name string, m *semantic.Model) (*Store, error)

// sqliteOpener opens SQLite files in dir.
func sqliteOpener(dir string) Opener {
	return func(ctx context.Context, name string, m *semantic.Model) (*Store, error) {
		st := sqlite.New(filepath.Join(dir, name+".db"), sqlite.Options{Embedding: m})
		if err := st.Open(ctx); err != nil {
			return nil, err
		}
		return &Store{Engine: st.Engine, Release: st.Close, Index: st.IndexMessages}, nil
	}
}

// opener is open, else SQLite files in dir.
func opener(open Opener, dir string) Opener {
	if open != nil {
		return open
	}
	return sqliteOpener(dir)
}
