package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/sqlite"
)

// TestFreshCopyIsMigrated compares a database the store created (a copy
// of the process's migrated empty database) with one it migrated (an
// empty file that already existed): same schema, same settings, and the
// migrations recorded as applied at the store's own time.
func TestFreshCopyIsMigrated(t *testing.T) {
	dir := t.TempDir()
	copied, migrated := filepath.Join(dir, "copied.db"), filepath.Join(dir, "migrated.db")
	if err := os.WriteFile(migrated, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, path := range []string{copied, migrated} {
		s := sqlite.New(path, sqlite.Options{Now: func() time.Time { return at }})
		if err := s.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	describe := func(path string) map[string]any {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		out := map[string]any{}
		rows := func(name, q string) {
			r, err := db.Query(q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer r.Close()
			cols, _ := r.Columns()
			var all [][]any
			for r.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := r.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				all = append(all, vals)
			}
			out[name] = all
		}
		rows("schema", `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
		rows("migrations", `SELECT version, name, applied_at FROM schema_migrations ORDER BY version`)
		rows("watermark", `SELECT name, seq FROM fts_watermark ORDER BY name`)
		for _, p := range []string{"journal_mode", "page_size", "auto_vacuum", "user_version", "encoding"} {
			rows(p, `PRAGMA `+p)
		}
		return out
	}
	want, got := describe(migrated), describe(copied)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("copied database differs from a migrated one (-migrated +copied):\n%s", d)
	}
	if m := got["migrations"].([][]any); len(m) < 20 || m[0][2] != at.UnixNano() {
		t.Errorf("migrations of the copy = %v, want all of them applied at %d", m, at.UnixNano())
	}
	fi, err := os.Stat(copied)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("copied database mode %v, want 0600", fi.Mode().Perm())
	}
}
