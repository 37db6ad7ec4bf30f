package main

import (
	"context"
	"errors"

	"github.com/tenure-dev/tenure/eval"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/semantic"
)

// evalOpener opens eval's stores in the PostgreSQL database db names, a
// schema each, dropped when the store is released; nil (SQLite files)
// when db is empty.
func evalOpener(db string) eval.Opener {
	if db == "" {
		return nil
	}
	return func(ctx context.Context, name string, m *semantic.Model) (*eval.Store, error) {
		u, drop, err := postgres.Scratch(ctx, db, name)
		if err != nil {
			return nil, err
		}
		st := postgres.New(u, postgres.Options{Embedding: m})
		if err := st.Open(ctx); err != nil {
			return nil, errors.Join(err, drop())
		}
		return &eval.Store{Engine: st.Engine, Index: st.IndexMessages,
			Release: func() error { return errors.Join(st.Close(), drop()) }}, nil
	}
}
