package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// TestMessageNamespaceMigration opens a database written before messages
// were namespaced per user (migrations 1–6, one message indexed, one
// tombstone): the rebuild keeps its rows, their seq and so the full-text
// index, and from then on another user's message may reuse its id. The
// tombstone, which does not say who could read its object, is shown to no
// one.
func TestMessageNamespaceMigration(t *testing.T) {
	path, db := oldDatabase(t, 6)
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO messages (seq, tenant_id, thread_id, id, pos, session_id, user_id, role, content, created_at, tokens)
			VALUES (7, 't', 'th', 'm1', 1, 'auto-1', 'ann', 'user', 'the zzlaunch code', ?, 3)`,
		`INSERT INTO messages_fts (rowid, speaker, text, dates) VALUES (7, '', 'the zzlaunch code', '')`,
		`UPDATE fts_watermark SET seq = 7 WHERE name = 'messages'`,
		`INSERT INTO tombstones (tenant_id, object_id, key, versions, deleted_at, deleted_by, reason)
			VALUES ('t', 'o1', 'memo', 1, ?, 'ann', 'requested')`,
	} {
		if _, err := db.Exec(q, at.UnixNano()); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s := open(t, path, nil)
	ctx := context.Background()
	ann := tenure.Principal{TenantID: "t", UserID: "ann"}
	bob := tenure.Principal{TenantID: "t", UserID: "bob"}
	found, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: ann, Text: "zzlaunch"})
	if err != nil || len(found) != 1 || found[0].ID != "m1" || found[0].Seq != 7 {
		t.Fatalf("ann's search after the migration: %+v, %v", found, err)
	}
	r, err := s.AppendMessages(ctx, bob, []tenure.Message{{ThreadID: "th", ID: "m1", UserID: "bob", Role: "user",
		Content: "bob's own m1", CreatedAt: at}})
	if err != nil || r.Appended != 1 {
		t.Fatalf("bob reusing ann's id: %+v, %v", r, err)
	}
	top := tenure.Principal{TenantID: "t", UserID: "ann", Authority: "policy", Clearance: tenure.HighlyRestricted,
		Permissions: []string{tenure.PermAnyUser}}
	if h, err := s.History(ctx, top, "memo", tenure.Scope{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("history of a key with only an old tombstone: %+v, %v; want not_found", h, err)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('messages_order', 'messages_pos')`).Scan(&n); err != nil || n != 2 {
		t.Errorf("indexes after the rebuild: %d, %v", n, err)
	}
}

// TestThreadKeyMigration opens a database written before messages named
// their thread by key (migrations 1–25): two tenants' threads with the
// same id, one of them numbered in the full-text index already. After
// migration 26 each thread has its own key, the numbered thread's search
// finds its message through it, the other is numbered and indexed, and
// appends continue each thread's positions.
func TestThreadKeyMigration(t *testing.T) {
	path, db := oldDatabase(t, 25)
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO messages (seq, tenant_id, thread_id, id, pos, session_id, role, content, created_at, tokens)
			VALUES (1, 'acme', 'th', 'm1', 1, 'auto-1', 'user', 'the zzlaunch code', ?1, 3),
			(2, 'other', 'th', 'm1', 1, 'auto-1', 'user', 'the zzlaunch plan', ?1, 3),
			(3, 'acme', 'th', 'm2', 2, 'auto-1', 'user', 'the zzother code', ?1, 3)`,
		`INSERT INTO fts_tenants (n, tenant_id, threads) VALUES (1, 'acme', 1)`,
		`INSERT INTO fts_threads (key, tenant_id, thread_id, docs, tokens) VALUES (1048577, 'acme', 'th', 1, 3)`,
		`INSERT INTO messages_fts (rowid, speaker, text, dates) VALUES (1048577 << 22 | 1, '', 'the zzlaunch code', '')`,
		`UPDATE fts_watermark SET seq = 1 WHERE name = 'messages'`,
	} {
		if _, err := db.Exec(q, at.UnixNano()); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s := open(t, path, nil)
	ctx := context.Background()
	var keys int
	if err := s.DB().QueryRow(`SELECT count(DISTINCT tkey) FROM messages`).Scan(&keys); err != nil || keys != 2 {
		t.Fatalf("thread keys after the migration: %d, %v; want 2", keys, err)
	}
	for _, c := range []struct {
		tenant, query string
		want          []string
	}{{"acme", "zzlaunch", []string{"m1"}}, {"acme", "zzother", []string{"m2"}}, {"other", "zzlaunch", []string{"m1"}}, {"other", "zzother", nil}} {
		p := tenure.Principal{TenantID: c.tenant, UserID: "ann"}
		found, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: p, Text: c.query, Limit: 10, Threads: []string{"th"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range found {
			if m.Score > 0 {
				got = append(got, m.ID)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s searching %q: %v, want %v", c.tenant, c.query, got, c.want)
		}
	}
	p := tenure.Principal{TenantID: "acme", UserID: "ann"}
	if _, err := s.AppendMessages(ctx, p, []tenure.Message{{ThreadID: "th", ID: "m3", Role: "user", Content: "next", CreatedAt: at.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, p, tenure.MessageFilter{ThreadID: "th"})
	if err != nil || len(msgs) != 3 || msgs[2].ID != "m3" {
		t.Fatalf("acme's thread after an append: %+v, %v; want m1, m2, m3", msgs, err)
	}
	var pos int
	if err := s.DB().QueryRow(`SELECT pos FROM messages WHERE tenant_id = 'acme' AND id = 'm3'`).Scan(&pos); err != nil || pos != 3 {
		t.Errorf("m3 at position %d, %v; want 3", pos, err)
	}
}

// oldDatabase makes a database as the store left it after migration
// version last, in a temporary directory.
func oldDatabase(t *testing.T, last int) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	all, err := filepath.Glob("migration/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range all {
		var v int
		if _, err := fmt.Sscanf(filepath.Base(name), "%d_", &v); err != nil {
			t.Fatal(err)
		}
		if v > last {
			break
		}
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, v, filepath.Base(name)); err != nil {
			t.Fatal(err)
		}
	}
	return path, db
}
