package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/semantic"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options configures a Store. The zero value works.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// NewID generates object and resolution ids (default: UUIDv7). Tests
	// inject a counter so that ids are reproducible.
	NewID func() string
	// Hierarchy ranks principals (default tenure.DefaultHierarchy).
	Hierarchy tenure.Hierarchy
	// Logger receives store events (default: discard).
	Logger *slog.Logger
	// BusyTimeout is how long a writer waits for another process's write
	// lock (default 5s).
	BusyTimeout time.Duration
	// State configures structured-state extraction.
	State engine.StateOptions
	// SessionGap closes a session after this much inactivity (default
	// engine.DefaultSessionGap, 30 minutes; see engine.Options).
	SessionGap time.Duration
	// MaxContentBytes bounds stored content and values (see
	// engine.Options.MaxContentBytes; default tenure.MaxContentLen).
	MaxContentBytes int
	// Embedding embeds messages for semantic retrieval (see
	// engine.Options.Embedding; nil: none).
	Embedding *semantic.Model
	// VectorCache is how many message vectors the store keeps decoded in
	// memory, so that finding the messages nearest a query need not read
	// them again (default 16,384: about 50 MB of 768-dimension vectors;
	// negative: none).
	VectorCache int
	// CompactEvery is how many messages the full-text index takes between
	// two compactions (default 100,000, see compactEvery; negative:
	// never).
	CompactEvery int
}

// Store is the embedded SQLite store.
type Store struct {
	*engine.Engine
	path string
	opt  Options
	w, r *sql.DB
	// index runs full-text indexing of messages (see index.go).
	index *messageIndex
	// stmts caches prepared statements of the read pool (see reads),
	// writeStmts those of the writer (see prepareWrites).
	stmtMu     sync.Mutex
	stmts      map[string]*sql.Stmt
	writeStmts map[string]*sql.Stmt
	// missedWrites are the queries to prepare on the writer before the
	// next write transaction (see writes).
	missedWrites map[string]bool
	// vectors caches decoded vectors by embedding id (see vectors.go).
	vectors vectorCache
}

var _ tenure.Store = (*Store)(nil)

// New returns a store for the database file at path. It does no I/O; call
// Open.
func New(path string, opt Options) *Store {
	if opt.BusyTimeout == 0 {
		opt.BusyTimeout = 5 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Store{path: path, opt: opt, vectors: newVectorCache(opt.VectorCache)}
	s.Engine = engine.New((*backend)(s), engine.Options{Now: opt.Now, NewID: opt.NewID, Hierarchy: opt.Hierarchy, Logger: opt.Logger,
		State: opt.State, MaxContentBytes: opt.MaxContentBytes, Embedding: opt.Embedding, SessionGap: opt.SessionGap})
	return s
}

func (s *Store) now() time.Time {
	if s.opt.Now != nil {
		return s.opt.Now()
	}
	return time.Now()
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// Open opens (creating if needed, readable and writable by its owner
// only) the database and applies migrations.
func (s *Store) Open(ctx context.Context) error {
	if s.w != nil {
		return nil
	}
	if s.path == "" {
		return tenure.Errorf(tenure.CodeInvalid, "db", "database path is empty")
	}
	created, err := createPrivate(s.path)
	if err != nil {
		return fmt.Errorf("open store: %w", &tenure.Error{Code: tenure.CodeUnavailable, Field: "db",
			Message: fmt.Sprintf("cannot create %s", s.path), Err: err})
	}
	copied := created && copyFresh(s.path)
	w, err := sql.Open("sqlite", s.dsn(true))
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	w.SetMaxOpenConns(1)
	r, err := sql.Open("sqlite", s.dsn(false))
	if err != nil {
		w.Close()
		return fmt.Errorf("open store: %w", err)
	}
	r.SetMaxOpenConns(max(4, runtime.NumCPU()))
	err = migrate(ctx, w, s.now())
	if err == nil && copied {
		// The copy's migrations are this database's, applied now.
		_, err = w.ExecContext(ctx, `UPDATE schema_migrations SET applied_at = ?`, s.now().UnixNano())
	}
	if err != nil {
		w.Close()
		r.Close()
		return fmt.Errorf("open store: %w", &tenure.Error{Code: tenure.CodeUnavailable, Field: "db",
			Message: fmt.Sprintf("cannot open %s", s.path), Err: err})
	}
	s.w, s.r = w, r
	if err := (*backend)(s).prepareWrites(ctx); err != nil {
		w.Close()
		r.Close()
		s.w, s.r = nil, nil
		return fmt.Errorf("open store: %w", err)
	}
	s.index = newMessageIndex()
	go s.indexLoop(s.index)
	s.index.wake() // messages a crash or another process left unindexed
	return nil
}

// createPrivate creates the database file with mode 0600 unless it
// exists, and reports whether it did. SQLite would create it 0644, readable by every local user, and
// gives its -wal and -shm files the database file's mode. An existing
// file keeps the mode its owner chose.
func createPrivate(path string) (created bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
}

func (s *Store) dsn(writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", s.opt.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	if writer {
		q.Set("_txlock", "immediate")
		// Statement and savepoint journals in memory: a multi-row insert
		// keeps the original of every page it changes, and spilling them
		// to a temporary file cost an import a tenth of its time.
		q.Add("_pragma", "temp_store(MEMORY)")
		// Checkpoints run in the background (see checkpointAfter).
		q.Add("_pragma", "wal_autocheckpoint(0)")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return "file:" + s.path + "?" + q.Encode()
}

// Close indexes the messages still waiting for the full-text index and
// releases the database.
func (s *Store) Close() error {
	if s.w == nil {
		return nil
	}
	close(s.index.stop)
	<-s.index.done
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	for _, st := range s.writeStmts {
		st.Close()
	}
	s.stmts, s.writeStmts = nil, nil
	s.stmtMu.Unlock()
	err1 := s.w.Close()
	err2 := s.r.Close()
	s.w, s.r = nil, nil
	if err1 != nil {
		return err1
	}
	return err2
}

// DB returns the read pool, for benchmarks and tooling that measure the
// store against raw SQL. messages_fts may lag the messages table: call
// IndexMessages before reading it directly.
func (s *Store) DB() *sql.DB { return s.r }

// prepareWrites prepares the statements that write transactions run
// often (writeStatements) on the writer, once, when the store opens: the
// writer has one connection, which a transaction holds, so they cannot be
// prepared from inside one. Workflow deltas are written by many small
// transactions, and preparing their statements was a quarter of each.
func (b *backend) prepareWrites(ctx context.Context) error {
	b.stmtMu.Lock()
	defer b.stmtMu.Unlock()
	if b.writeStmts == nil {
		b.writeStmts = map[string]*sql.Stmt{}
	}
	for _, q := range slices.Concat(writeStatements, appendStatements) {
		st, err := b.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		b.writeStmts[q] = st
	}
	return nil
}

var errClosed = &tenure.Error{Code: tenure.CodeUnavailable, Message: "store is not open"}

// Backend returns the engine backend over this store's database, for
// building an engine with other options or wrapping it (fault injection in
// tests).
func (s *Store) Backend() engine.Backend { return (*backend)(s) }
