// Package pgtest gives tests a PostgreSQL database of their own: an empty
// schema with a unique name on the server $TENURE_TEST_POSTGRES names
// (default: the local server, postgres://postgres@127.0.0.1:5432/test,
// when it answers), so that parallel and repeated runs never see each
// other's rows.
//
// Creating and migrating a schema costs more than most tests, so a test
// process keeps the schemas its tests are done with, emptied (no row, and
// sequences from 1), and hands them to its
// next tests; Main drops them when the tests end (and schemas a crashed
// run left, a day later).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultURL is the server tests use when $TENURE_TEST_POSTGRES is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Server returns the URL of the test server as an administrator. With
// $TENURE_TEST_POSTGRES unset and no server at DefaultURL, it skips the
// test; with it set and the server down, it fails it: CI never skips.
func Server(t testing.TB) string {
	t.Helper()
	u, set, err := adminPool()
	if err != nil {
		if set {
			t.Fatalf("TENURE_TEST_POSTGRES=%s: %v", u, err)
		}
		t.Skipf("no PostgreSQL at %s (set TENURE_TEST_POSTGRES): %v", u, err)
	}
	return u
}

var (
	adminOnce sync.Once
	// admin is the process's pool of administrator connections: a new
	// server process per connection, and its catalog caches filled anew,
	// cost more than the statements most callers send.
	admin    *pgxpool.Pool
	adminURL string
	adminSet bool
	adminErr error
)

// adminPool returns the test server's URL, whether $TENURE_TEST_POSTGRES
// set it, and whether it answers (connecting once per process).
func adminPool() (string, bool, error) {
	adminOnce.Do(func() {
		adminURL, adminSet = os.LookupEnv("TENURE_TEST_POSTGRES")
		if !adminSet || adminURL == "" {
			adminURL, adminSet = DefaultURL, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cfg, err := pgxpool.ParseConfig(adminURL)
		if err != nil {
			adminErr = err
			return
		}
		cfg.MaxConns = 4
		if admin, adminErr = pgxpool.NewWithConfig(ctx, cfg); adminErr != nil {
			return
		}
		if adminErr = admin.Ping(ctx); adminErr != nil {
			admin.Close()
			admin = nil
		}
	})
	return adminURL, adminSet, adminErr
}

var (
	mu sync.Mutex
	// idle are the emptied schemas of this process; made all it created.
	idle, made []string
)

// URL returns a URL whose connections use an empty schema of the test
// server that no other test uses until this one ends.
func URL(t testing.TB) string {
	t.Helper()
	server := Server(t)
	mu.Lock()
	var schema string
	if n := len(idle); n > 0 {
		schema, idle = idle[n-1], idle[:n-1]
	}
	mu.Unlock()
	if schema == "" {
		var b [6]byte
		rand.Read(b[:])
		schema = fmt.Sprintf("tenure_test_%d_%s", time.Now().Unix(), hex.EncodeToString(b[:]))
		Exec(t, server, `CREATE SCHEMA `+schema)
		mu.Lock()
		made = append(made, schema)
		mu.Unlock()
	}
	t.Cleanup(func() {
		if err := empty(schema); err != nil {
			t.Errorf("empty schema %s: %v", schema, err)
			return
		}
		mu.Lock()
		idle = append(idle, schema)
		mu.Unlock()
	})
	return WithParams(server, map[string]string{"search_path": schema, "application_name": schema,
		// A test's rows need not survive a crash of the server.
		"synchronous_commit": "off"})
}

// empty ends the connections to schema that are left and deletes its
// rows, keeping its tables; sequences start again from 1.
func empty(schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := admin.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	if _, err := c.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, schema); err != nil {
		return err
	}
	var tables []string
	if err := c.QueryRow(ctx, `SELECT coalesce(array_agg(format('%I.%I', schemaname, tablename)), '{}') FROM pg_tables
		WHERE schemaname = $1 AND tablename <> 'schema_migrations'`, schema).Scan(&tables); err != nil {
		return err
	}
	if len(tables) == 0 {
		return nil
	}
	// DELETE and setval, not TRUNCATE: a test's few rows go faster than
	// TRUNCATE's new files. The statements run as one transaction, which
	// the SET LOCAL ends with: the connection goes back to the pool.
	var b strings.Builder
	b.WriteString("SET LOCAL session_replication_role = replica; ") // foreign keys unchecked, in any order
	for _, t := range tables {
		b.WriteString("DELETE FROM " + t + "; ")
	}
	b.WriteString(`SELECT setval(format('%I.%I', schemaname, sequencename), 1, false) FROM pg_sequences WHERE schemaname = ` + quote(schema))
	_, err = c.Exec(ctx, b.String())
	return err
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Main runs the tests and drops the schemas they used, and those older
// than a day another run left: call it from TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if admin == nil {
		return code
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stale := time.Now().Add(-24 * time.Hour).Unix()
	rows, err := admin.Query(ctx, `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'tenure\_test\_%'`)
	if err == nil {
		var names []string
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil {
				names = append(names, n)
			}
		}
		rows.Close()
		for _, n := range names {
			var at int64
			if _, err := fmt.Sscanf(strings.TrimPrefix(n, "tenure_test_"), "%d_", &at); err == nil && at < stale {
				made = append(made, n)
			}
		}
	}
	for _, s := range made {
		admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, s)
		admin.Exec(ctx, `DROP SCHEMA IF EXISTS `+s+` CASCADE`)
	}
	if len(made) > 0 {
		vacuumCatalogs(ctx)
	}
	return code
}

// churned are the catalogs that creating and dropping a migrated schema
// leaves dead rows in.
var churned = []string{"pg_class", "pg_attribute", "pg_depend", "pg_shdepend", "pg_type", "pg_index", "pg_constraint",
	"pg_attrdef", "pg_policy", "pg_trigger", "pg_rewrite", "pg_sequence", "pg_statistic", "pg_namespace", "pg_proc",
	"pg_init_privs", "pg_description"}

// vacuumCatalogs makes the space of the dropped schemas' catalog rows
// reusable. A test server may run without autovacuum (this machine's CI
// server does), and then every run's schemas stayed in the catalogs:
// after an evening of runs pg_attribute held 125 MB, and a store's
// opening check, which scans pg_class, took 7 ms instead of 1.5. A plain
// VACUUM takes a tenth of a second and blocks no other test.
func vacuumCatalogs(ctx context.Context) {
	for _, c := range churned {
		admin.Exec(ctx, `VACUUM pg_catalog.`+c) // not allowed to this role: its rows stay
	}
}

// WithParams returns u with the query parameters set.
func WithParams(u string, params map[string]string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	p.RawQuery = q.Encode()
	return p.String()
}

// Exec runs sql on the database at u, failing the test on error. The
// server's own URL runs on the administrator pool.
func Exec(t testing.TB, u, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if server, _, err := adminPool(); err == nil && u == server {
		if _, err := admin.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return
	}
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
