package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
)

//go:embed migration/*.sql
var migrations embed.FS

// Migrate applies the embedded migrations not yet applied to the database
// at url, each in its own transaction, in the order of their numbers. It
// connects as the URL's role, which must be allowed to create the tables
// (their owner, see docs/postgres.md), and holds an advisory lock while it
// runs, so that servers starting together apply each migration once. A
// database with every migration applied needs no privilege but reading
// schema_migrations. Errors: CodeInvalid (bad URL), CodeUnavailable.
func Migrate(ctx context.Context, url string, now time.Time) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return tenure.Errorf(tenure.CodeInvalid, "db", "bad PostgreSQL URL: %v", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return unavailable(err)
	}
	defer conn.Close(context.Background())
	names, err := fs.Glob(migrations, "migration/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	// Up to date: nothing to lock (the application role may not create
	// tables or take the lock's time).
	if upToDate(ctx, conn) {
		return nil
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('tenure.migrate.' || current_schema()))`); err != nil {
		return unavailable(err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtext('tenure.migrate.' || current_schema()))`)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return migrateError("", err)
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migration/")
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migrate: bad migration name %q", base)
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		if err := apply(ctx, conn, n, base, string(body), now); err != nil {
			return migrateError(base, err)
		}
	}
	return nil
}

func apply(ctx context.Context, conn *pgx.Conn, n int, base, body string, now time.Time) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	var done int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, n).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	// No arguments: the simple protocol, which runs several statements.
	if _, err := tx.Exec(ctx, body); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`, n, base, now.UnixNano()); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func migrateError(base string, err error) error {
	if te := unavailable(err); tenure.ErrorCode(te) == tenure.CodeUnavailable {
		return te
	}
	return &tenure.Error{Code: tenure.CodeUnavailable, Field: "db",
		Message: fmt.Sprintf("cannot migrate the database (%s); run tenure migrate as the tables' owner", strings.TrimSpace(base)), Err: err}
}

// Version returns the number of the latest migration applied and of the
// latest embedded.
func Version(ctx context.Context, url string) (applied, latest int, err error) {
	names, _ := fs.Glob(migrations, "migration/*.sql")
	sort.Strings(names)
	if len(names) > 0 {
		latest, _ = strconv.Atoi(strings.SplitN(strings.TrimPrefix(names[len(names)-1], "migration/"), "_", 2)[0])
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, latest, unavailable(err)
	}
	defer conn.Close(context.Background())
	err = conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&applied)
	return applied, latest, unavailable(err)
}

// upToDate reports whether every migration is applied (asked by Migrate,
// and by Open as the application role, which may read
// schema_migrations); false on any error, for Migrate to report.
func upToDate(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) bool {
	names, err := fs.Glob(migrations, "migration/*.sql")
	if err != nil {
		return false
	}
	var n int
	err = q.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n) // fails before the first migration
	return err == nil && n >= len(names)
}
