package main

import (
	"context"
	"flag"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/sqlite"
)

// dbStore is an open local store: the SQLite file or the PostgreSQL
// database (postgres://…) that --db names.
type dbStore struct {
	*engine.Engine
	storeAdmin
}

// storeAdmin is what both stores offer beside the engine.
type storeAdmin interface {
	CreateKey(ctx context.Context, k tenure.APIKey) (tenure.APIKey, string, error)
	CreateFirstKey(ctx context.Context, k tenure.APIKey) (tenure.APIKey, string, bool, error)
	KeyByHash(ctx context.Context, hash string) (tenure.APIKey, error)
	Keys(ctx context.Context, tenant string) ([]tenure.APIKey, error)
	RevokeKey(ctx context.Context, id string) (tenure.APIKey, error)
	// IndexMessages brings full-text search up to date (SQLite indexes
	// messages in the background; PostgreSQL as it stores them).
	IndexMessages(ctx context.Context) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	Backend() engine.Backend
	// CuratorTargets lists who the scheduled curator curates.
	CuratorTargets(ctx context.Context, after memory.Target, n int) ([]memory.Target, error)
	Close() error
}

var (
	_ storeAdmin = (*sqlite.Store)(nil)
	_ storeAdmin = (*postgres.Store)(nil)
)

// pgFlags are the PostgreSQL connection settings (used with a postgres://
// --db only).
type pgFlags struct {
	pool             int
	statementTimeout time.Duration
	connectRetry     time.Duration
}

func (p *pgFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&p.pool, "db-pool", 10, "PostgreSQL: at most `n` connections")
	fs.DurationVar(&p.statementTimeout, "db-statement-timeout", 30*time.Second, "PostgreSQL: fail a statement after `duration` (0: never)")
	fs.DurationVar(&p.connectRetry, "db-connect-retry", 0, "PostgreSQL: keep trying to reach the database for `duration` at start")
}

// openStore opens the store db names: a PostgreSQL database for a
// postgres:// URL, else the SQLite file. opt configures either (pg only
// PostgreSQL; nil: defaults).
func openStore(ctx context.Context, db string, opt sqlite.Options, pg *pgFlags) (*dbStore, error) {
	if !postgres.IsURL(db) {
		st := sqlite.New(db, opt)
		if err := st.Open(ctx); err != nil {
			return nil, err
		}
		return &dbStore{Engine: st.Engine, storeAdmin: st}, nil
	}
	popt := postgres.Options{Now: opt.Now, NewID: opt.NewID, Hierarchy: opt.Hierarchy, Logger: opt.Logger, State: opt.State,
		MaxContentBytes: opt.MaxContentBytes, Embedding: opt.Embedding, VectorCache: opt.VectorCache, SessionGap: opt.SessionGap}
	if pg != nil {
		popt.MaxConns, popt.ConnectRetry = pg.pool, pg.connectRetry
		popt.StatementTimeout = pg.statementTimeout
		if popt.StatementTimeout == 0 {
			popt.StatementTimeout = -1
		}
	}
	st := postgres.New(db, popt)
	if err := st.Open(ctx); err != nil {
		return nil, err
	}
	return &dbStore{Engine: st.Engine, storeAdmin: st}, nil
}

// dbName is db as printed: a PostgreSQL URL without its password.
func dbName(db string) string {
	if postgres.IsURL(db) {
		return postgres.Redact(db)
	}
	return db
}
