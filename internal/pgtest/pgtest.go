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
)

// DefaultURL is the server tests use when $TENURE_TEST_POSTGRES is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Server returns the URL of the test server as an administrator. With
// $TENURE_TEST_POSTGRES unset and no server at DefaultURL, it skips the
// test; with it set and the server down, it fails it: CI never skips.
func Server(t testing.TB) string {
	t.Helper()
	u, set := os.LookupEnv("TENURE_TEST_POSTGRES")
	if !set || u == "" {
		u = DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		if set {
			t.Fatalf("TENURE_TEST_POSTGRES=%s: %v", u, err)
		}
		t.Skipf("no PostgreSQL at %s (set TENURE_TEST_POSTGRES): %v", u, err)
	}
	c.Close(ctx)
	return u
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
	admin := Server(t)
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
		Exec(t, admin, `CREATE SCHEMA `+schema)
		mu.Lock()
		made = append(made, schema)
		mu.Unlock()
	}
	t.Cleanup(func() {
		if err := empty(admin, schema); err != nil {
			t.Errorf("empty schema %s: %v", schema, err)
			return
		}
		mu.Lock()
		idle = append(idle, schema)
		mu.Unlock()
	})
	return WithParams(admin, map[string]string{"search_path": schema, "application_name": schema,
		// A test's rows need not survive a crash of the server.
		"synchronous_commit": "off"})
}

// empty ends the connections to schema that are left and deletes its
// rows, keeping its tables; sequences start again from 1.
func empty(admin, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
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
	// TRUNCATE's new files.
	var b strings.Builder
	b.WriteString("SET session_replication_role = replica; ") // foreign keys unchecked, in any order
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
	u := os.Getenv("TENURE_TEST_POSTGRES")
	if u == "" {
		u = DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		return code
	}
	defer c.Close(ctx)
	stale := time.Now().Add(-24 * time.Hour).Unix()
	rows, err := c.Query(ctx, `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'tenure\_test\_%'`)
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
		c.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, s)
		c.Exec(ctx, `DROP SCHEMA IF EXISTS `+s+` CASCADE`)
	}
	return code
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

// Exec runs sql on the database at u, failing the test on error.
func Exec(t testing.TB, u, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
