package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
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
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	old, err := filepath.Glob("migration/000[1-6]_*.sql")
	if err != nil || len(old) != 6 {
		t.Fatalf("migrations 1-6: %v, %v", old, err)
	}
	for i, name := range old {
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, i+1, filepath.Base(name)); err != nil {
			t.Fatal(err)
		}
	}
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
