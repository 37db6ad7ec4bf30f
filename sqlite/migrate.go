package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migration/*.sql
var migrations embed.FS

// migrate applies the embedded migrations not yet applied, each in its own
// transaction, in the order of their numbers.
func migrate(ctx context.Context, db *sql.DB, now time.Time) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migration/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	applied, err := appliedMigrations(ctx, db)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migration/")
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migrate: bad migration name %q", base)
		}
		if applied[n] {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", base, err)
		}
		var done int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, n).Scan(&done); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate: %w", err)
		}
		if done > 0 {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			n, base, now.UnixNano()); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %s: %w", base, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate %s: %w", base, err)
		}
	}
	return nil
}

// appliedMigrations returns the versions applied, read once: a database
// opened again (every CLI command opens one) then runs no transaction for
// migrations it has. Each one still checks its version in its own
// transaction, for a process that migrates the database at the same time.
func appliedMigrations(ctx context.Context, db *sql.DB) (map[int]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out[v] = true
	}
	return out, rows.Err()
}
