package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/semantic"
)

// Role is the role the store's queries run as: neither the tables' owner
// nor one that bypasses row-level security (see docs/postgres.md).
const Role = "tenure_app"

// Options configures a Store. The zero value works.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// NewID generates object and resolution ids (default: UUIDv7).
	NewID func() string
	// Hierarchy ranks principals (default tenure.DefaultHierarchy).
	Hierarchy tenure.Hierarchy
	// Logger receives store events (default: discard).
	Logger *slog.Logger
	// State configures structured-state extraction.
	State engine.StateOptions
	// MaxContentBytes bounds stored content and values (see
	// engine.Options.MaxContentBytes).
	MaxContentBytes int
	// SessionGap closes a session after this much inactivity (default
	// engine.DefaultSessionGap; see engine.Options).
	SessionGap time.Duration
	// Embedding embeds messages for semantic retrieval (nil: none).
	Embedding *semantic.Model
	// VectorCache is how many decoded message vectors the store keeps in
	// memory (default 16,384; negative: none).
	VectorCache int
	// MaxConns is the size of the connection pool (default 10).
	MaxConns int
	// StatementTimeout bounds every statement (default 30s; negative:
	// none). A statement that runs out fails with CodeTimeout.
	StatementTimeout time.Duration
	// ConnectRetry is how long Open keeps trying to reach the database
	// before it fails with CodeUnavailable (default 0: one attempt).
	ConnectRetry time.Duration
}

// Store is the PostgreSQL store.
type Store struct {
	*engine.Engine
	url  string
	opt  Options
	pool *pgxpool.Pool
	// writeLock is the advisory lock key that serializes write
	// transactions (one per schema).
	writeLock int64
	vectors   vectorCache
	// unavailable counts operations that failed because the database
	// could not be reached.
	unavailable atomic.Int64
	retries     atomic.Int64
	// analyzeMu guards the counts of messages appended since the last
	// tenure_analyze and at it (see analyzeDue).
	analyzeMu               sync.Mutex
	sinceAnalyze, atAnalyze int64
}

var _ tenure.Store = (*Store)(nil)

// New returns a store for the database at url (postgres://…). It does no
// I/O; call Open.
func New(url string, opt Options) *Store {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 10
	}
	if opt.StatementTimeout == 0 {
		opt.StatementTimeout = 30 * time.Second
	}
	s := &Store{url: url, opt: opt, vectors: newVectorCache(opt.VectorCache)}
	s.Engine = engine.New((*backend)(s), engine.Options{Now: opt.Now, NewID: opt.NewID, Hierarchy: opt.Hierarchy, Logger: opt.Logger,
		State: opt.State, MaxContentBytes: opt.MaxContentBytes, Embedding: opt.Embedding, SessionGap: opt.SessionGap})
	return s
}

// IsURL reports whether db names a PostgreSQL database rather than a file.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

func (s *Store) now() time.Time {
	if s.opt.Now != nil {
		return s.opt.Now()
	}
	return time.Now()
}

// Path returns the database URL with its password removed.
func (s *Store) Path() string { return Redact(s.url) }

// Redact returns a database URL without its password.
func Redact(url string) string {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil || cfg.Password == "" {
		return url
	}
	return strings.Replace(url, ":"+cfg.Password+"@", ":xxxxx@", 1)
}

func (s *Store) config() (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(s.url)
	if err != nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "db", "bad PostgreSQL URL: %v", err)
	}
	cfg.MaxConns = int32(s.opt.MaxConns)
	p := cfg.ConnConfig.RuntimeParams
	if _, ok := p["application_name"]; !ok {
		p["application_name"] = "tenure"
	}
	if s.opt.StatementTimeout > 0 {
		p["statement_timeout"] = strconv.FormatInt(s.opt.StatementTimeout.Milliseconds(), 10)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	return cfg, nil
}

// Open connects, applies the migrations not yet applied and checks that
// queries run as a role row-level security applies to. Errors:
// CodeInvalid (bad URL), CodeUnavailable.
func (s *Store) Open(ctx context.Context) error {
	if s.pool != nil {
		return nil
	}
	cfg, err := s.config()
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SET ROLE "+Role)
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("open store: %w", unavailable(err))
	}
	// Up to date, as a database usually is, the pool's first connection
	// says so, and Migrate's own connection is not made.
	if err := s.connect(ctx, func(ctx context.Context) error {
		if upToDate(ctx, pool) {
			return nil
		}
		return Migrate(ctx, s.url, s.now())
	}); err != nil {
		pool.Close()
		return fmt.Errorf("open store: %w", err)
	}
	if err := s.connect(ctx, func(ctx context.Context) error { return check(ctx, pool, &s.writeLock) }); err != nil {
		pool.Close()
		return fmt.Errorf("open store: %w", err)
	}
	s.pool = pool
	return nil
}

// connect runs fn, again while it fails for want of the database and
// ConnectRetry has not passed.
func (s *Store) connect(ctx context.Context, fn func(context.Context) error) error {
	deadline := time.Now().Add(s.opt.ConnectRetry)
	wait := 100 * time.Millisecond
	for {
		err := fn(ctx)
		if err == nil || tenure.ErrorCode(err) != tenure.CodeUnavailable || time.Now().Add(wait).After(deadline) {
			return err
		}
		s.retries.Add(1)
		s.opt.Logger.Warn("database unavailable, retrying", "err", err, "in", wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// check makes sure the pool's queries run as a role that neither owns the
// tables nor bypasses row-level security, and reads the write lock key.
func check(ctx context.Context, pool *pgxpool.Pool, lock *int64) error {
	var super, bypass bool
	var owned int
	var user string
	err := pool.QueryRow(ctx, `SELECT current_user, r.rolsuper, r.rolbypassrls,
		(SELECT count(*) FROM pg_tables t WHERE t.schemaname = current_schema() AND t.tableowner = current_user),
		hashtext('tenure.write.' || current_schema())
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&user, &super, &bypass, &owned, lock)
	if err != nil {
		return unavailable(err)
	}
	if super || bypass || owned > 0 {
		return &tenure.Error{Code: tenure.CodeUnavailable, Field: "db",
			Message: fmt.Sprintf("queries would run as %s, which bypasses row-level security or owns the tables", user)}
	}
	return nil
}

// Close releases the pool.
func (s *Store) Close() error {
	if s.pool != nil {
		s.pool.Close()
		s.pool = nil
	}
	return nil
}

// Pool returns the connection pool (its connections run as Role), for
// tooling and benchmarks that measure the store against raw SQL.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Backend returns the engine backend over this store's database.
func (s *Store) Backend() engine.Backend { return (*backend)(s) }

// Stats is what the store reports for metrics.
type Stats struct {
	// AcquiredConns, IdleConns and MaxConns describe the pool.
	AcquiredConns, IdleConns, TotalConns, MaxConns int32
	// AcquireCount and AcquireDuration total the connections handed out
	// and the time spent waiting for them.
	AcquireCount    int64
	AcquireDuration time.Duration
	// Unavailable counts operations that failed because the database was
	// unreachable; Retries the connection attempts Open repeated.
	Unavailable, Retries int64
}

// Stats reports the pool's use.
func (s *Store) Stats() Stats {
	st := Stats{Unavailable: s.unavailable.Load(), Retries: s.retries.Load()}
	if s.pool != nil {
		ps := s.pool.Stat()
		st.AcquiredConns, st.IdleConns, st.TotalConns, st.MaxConns = ps.AcquiredConns(), ps.IdleConns(), ps.TotalConns(), ps.MaxConns()
		st.AcquireCount, st.AcquireDuration = ps.AcquireCount(), ps.AcquireDuration()
	}
	return st
}

// Ping checks that the database answers. Errors: CodeUnavailable.
func (s *Store) Ping(ctx context.Context) error {
	if s.pool == nil {
		return errClosed
	}
	if err := s.pool.Ping(ctx); err != nil {
		return s.fail(err)
	}
	return nil
}

var errClosed = &tenure.Error{Code: tenure.CodeUnavailable, Message: "store is not open"}

// fail classifies err (see unavailable) and counts unavailability.
func (s *Store) fail(err error) error {
	err = unavailable(err)
	if tenure.ErrorCode(err) == tenure.CodeUnavailable {
		s.unavailable.Add(1)
	}
	return err
}

// unavailable turns a failure to reach the database into CodeUnavailable,
// a statement timeout into CodeTimeout, and keeps other errors.
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	var te *tenure.Error
	if errors.As(err, &te) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57014": // query_canceled: the statement timeout
			return &tenure.Error{Code: tenure.CodeTimeout, Message: "statement timeout", Err: err}
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"), pe.Code == "53300":
			return &tenure.Error{Code: tenure.CodeUnavailable, Message: "database unavailable", Err: err}
		}
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) || isConnErr(err) {
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "database unavailable", Err: err}
	}
	return err
}

// isConnErr recognizes a connection that broke under a query.
func isConnErr(err error) bool {
	msg := err.Error()
	for _, s := range []string{"unexpected EOF", "connection reset", "broken pipe", "conn closed", "connection refused", "closed pool"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// IndexMessages does nothing: messages are searchable as soon as their
// append commits (their tsvector is computed as they are stored). It
// exists so that tooling treats both stores alike.
func (s *Store) IndexMessages(ctx context.Context) error {
	if s.pool == nil {
		return errClosed
	}
	return nil
}
