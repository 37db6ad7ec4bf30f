package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storetest"
)

func open(t testing.TB, path string, now func() time.Time) *sqlite.Store {
	t.Helper()
	s := sqlite.New(path, sqlite.Options{Now: now})
	if err := s.Open(context.Background()); err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) tenure.Store {
		return open(t, filepath.Join(t.TempDir(), "tenure.db"), now)
	})
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tenure.db")
	ctx := context.Background()
	p := tenure.Principal{UserID: "u", TenantID: "t"}
	s := sqlite.New(path, sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, p, tenure.Object{Key: "k", Content: "v"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, path, nil) // migrations must be idempotent
	o, err := s2.CurrentValue(ctx, p, "k", tenure.Read{})
	if err != nil || o.Content != "v" {
		t.Fatalf("after reopen: %q, %v", o.Content, err)
	}
	var mode string
	if err := s2.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestClosedStore(t *testing.T) {
	s := sqlite.New(filepath.Join(t.TempDir(), "x.db"), sqlite.Options{})
	_, err := s.Put(context.Background(), tenure.Principal{UserID: "u"}, tenure.Object{Content: "v"})
	if tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Fatalf("put on unopened store: %v, want unavailable", err)
	}
}

func TestOpenBadPath(t *testing.T) {
	s := sqlite.New(filepath.Join(t.TempDir(), "missing-dir", "x.db"), sqlite.Options{})
	err := s.Open(context.Background())
	if err == nil {
		s.Close()
		t.Fatal("open in a missing directory succeeded")
	}
	if tenure.ErrorCode(err) != tenure.CodeUnavailable || tenure.ErrorField(err) != "db" {
		t.Errorf("open error = %v (code %s), want unavailable naming db", err, tenure.ErrorCode(err))
	}
}

func TestMessageConformance(t *testing.T) {
	storetest.RunMessages(t, func(t *testing.T, now func() time.Time) storetest.MessageStore {
		return open(t, filepath.Join(t.TempDir(), "tenure.db"), now)
	})
}

func TestStateConformance(t *testing.T) {
	storetest.RunState(t, func(t *testing.T, now func() time.Time, opt engine.StateOptions) storetest.StateStore {
		st := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{Now: now, State: opt})
		if err := st.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}

// The database file and its -wal and -shm files are readable and
// writable by their owner only, whatever the umask lets through.
func TestDatabaseFilesPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "private.db")
	s := sqlite.New(path, sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A write makes sure the write-ahead log and its index exist.
	if _, err := s.Put(ctx, tenure.Principal{UserID: "u", TenantID: "t"}, tenure.Object{Key: "k", Content: "v"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %#o, want 0600", filepath.Base(name), mode)
		}
	}
}

func TestSnapshotConformance(t *testing.T) {
	storetest.RunSnapshots(t, func(t *testing.T, now func() time.Time, newID func() string) (snapshot.Store, func(func() string) snapshot.Store) {
		path := filepath.Join(t.TempDir(), "tenure.db")
		openWith := func(newID func() string) snapshot.Store {
			s := sqlite.New(path, sqlite.Options{Now: now, NewID: newID})
			if err := s.Open(context.Background()); err != nil {
				t.Fatalf("open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		return openWith(newID), openWith
	})
}

func TestEntities(t *testing.T) {
	storetest.RunEntities(t, func(t *testing.T, now func() time.Time) storetest.EntityStore {
		return open(t, filepath.Join(t.TempDir(), "tenure.db"), now)
	})
}
