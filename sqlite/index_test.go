package sqlite_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

var ann = tenure.Principal{UserID: "ann", TenantID: "acme", Authority: "employee"}

var day = time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)

// thread returns n messages of a thread, a minute apart from start, with
// ids prefix0, prefix1, ...
func thread(th, prefix string, n int, start time.Time) []tenure.Message {
	out := make([]tenure.Message, n)
	for i := range out {
		out[i] = tenure.Message{ThreadID: th, ID: fmt.Sprintf("%s%d", prefix, i), Role: "user", Speaker: "Ann",
			Content: fmt.Sprintf("note number %d about the garden", i), CreatedAt: start.Add(time.Duration(i) * time.Minute)}
	}
	return out
}

// search returns the ids of the messages matching text.
func search(t *testing.T, s *sqlite.Store, text string) []string {
	t.Helper()
	got, err := s.MessageCandidates(t.Context(), tenure.MessageQuery{Principal: ann, Text: text, Limit: 50})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	return ids
}

// watermark returns the last indexed message and the last message.
func watermark(t *testing.T, s *sqlite.Store) (indexed, last int64) {
	t.Helper()
	err := s.DB().QueryRow(`SELECT (SELECT seq FROM fts_watermark WHERE name = 'messages'),
		(SELECT coalesce(max(seq), 0) FROM messages)`).Scan(&indexed, &last)
	if err != nil {
		t.Fatal(err)
	}
	return indexed, last
}

// A search sees every committed message even when the background indexer
// has not run: here another writer stored them without indexing, as a
// process that crashed after its commit would leave them.
func TestSearchIndexesBacklog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tenure.db")
	ctx := t.Context()
	s := sqlite.New(path, sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessages(ctx, ann, []tenure.Message{{ThreadID: "th", ID: "1", Role: "user", Content: "the zebra escaped",
		CreatedAt: day}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Exec(`INSERT INTO messages (tenant_id, thread_id, id, pos, session_id, role, speaker, content, created_at, tokens,
		search_text, search_dates, tkey) VALUES
		('acme', 'th', '2', 2, 'auto-1', 'user', 'Ann', 'a giraffe too', ?1, 4, NULL, NULL, (SELECT tkey FROM message_threads WHERE thread_id = 'th')),
		('acme', 'th', '3', 3, 'auto-1', 'user', 'Ann', 'look', ?2, 1, 'look [shared image: an okapi]', '7 May 2023',
			(SELECT tkey FROM message_threads WHERE thread_id = 'th'))`,
		day.Add(time.Minute).UnixNano(), day.Add(2*time.Minute).UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	var indexed int64
	if err := other.QueryRow(`SELECT seq FROM fts_watermark WHERE name = 'messages'`).Scan(&indexed); err != nil || indexed != 1 {
		t.Fatalf("indexed through message %d, %v; want 1", indexed, err)
	}
	s = open(t, path, nil)
	for _, c := range []struct{ query, want string }{
		{"zebra", "1"}, {"giraffe", "2"}, {"okapi", "3"}, {"7 May 2023", "3"},
	} {
		if got := search(t, s, c.query); strings.Join(got, ",") != c.want {
			t.Errorf("search %q = %v, want %s", c.query, got, c.want)
		}
	}
	if indexed, last := watermark(t, s); indexed != 3 || last != 3 {
		t.Errorf("after the search: indexed %d of %d messages, want all 3", indexed, last)
	}
}

// Close indexes what is left, and indexing twice changes nothing.
func TestIndexMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tenure.db")
	ctx := t.Context()
	s := sqlite.New(path, sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportMessages(ctx, ann, thread("th", "m", 1200, day), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.IndexMessages(ctx); tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Errorf("IndexMessages on a closed store: %v, want unavailable", err)
	}
	s = open(t, path, nil)
	if indexed, last := watermark(t, s); indexed != 1200 || last != 1200 {
		t.Errorf("after close: indexed %d of %d messages, want all 1200", indexed, last)
	}
	for range 2 {
		if err := s.IndexMessages(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	if err := s.DB().QueryRow(`SELECT count(*) FROM messages_fts`).Scan(&rows); err != nil || rows != 1200 {
		t.Errorf("index rows = %d, %v; want 1200", rows, err)
	}
	if got := search(t, s, "number 1117"); len(got) == 0 || got[0] != "m1117" {
		t.Errorf("search = %v, want m1117 first", got)
	}
}

// positions returns each thread's message count and its highest position.
func positions(t *testing.T, s *sqlite.Store) map[string][2]int {
	t.Helper()
	rows, err := s.DB().Query(`SELECT thread_id, count(*), max(pos) FROM messages GROUP BY thread_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]int{}
	for rows.Next() {
		var th string
		var n, pos int
		if err := rows.Scan(&th, &n, &pos); err != nil {
			t.Fatal(err)
		}
		out[th] = [2]int{n, pos}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Re-importing a file is a no-op, and importing one that overlaps what is
// stored appends only the new messages, at the next positions, over
// several write chunks and threads.
func TestReimport(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), nil)
	ctx := t.Context()
	file := append(thread("a", "m", 700, day), thread("b", "m", 650, day)...)
	r, err := s.ImportMessages(ctx, ann, file, nil)
	if err != nil || r.Appended != 1350 || r.Skipped != 0 {
		t.Fatalf("import = %+v, %v; want 1350 appended", r, err)
	}
	r, err = s.ImportMessages(ctx, ann, file, nil)
	if err != nil || r.Appended != 0 || r.Skipped != 1350 {
		t.Fatalf("re-import = %+v, %v; want 1350 skipped", r, err)
	}
	want := map[string][2]int{"a": {700, 700}, "b": {650, 650}}
	if diff := cmp.Diff(want, positions(t, s)); diff != "" {
		t.Errorf("after the re-import, (count, max pos) per thread (-want +got):\n%s", diff)
	}
	more := append(thread("a", "m", 900, day), file[700:]...) // a: 200 new after the stored 700
	more = append(more, more[5])                              // and a repeat
	r, err = s.ImportMessages(ctx, ann, more, nil)
	if err != nil || r.Appended != 200 || r.Skipped != 1351 {
		t.Fatalf("overlapping import = %+v, %v; want 200 appended, 1351 skipped", r, err)
	}
	want["a"] = [2]int{900, 900}
	if diff := cmp.Diff(want, positions(t, s)); diff != "" {
		t.Errorf("after the overlapping import, (count, max pos) per thread (-want +got):\n%s", diff)
	}
	if got := search(t, s, "number 899"); len(got) == 0 || got[0] != "m899" {
		t.Errorf("search = %v, want m899 first", got)
	}
}

// sessions returns a thread's session ids in order, each once.
func sessions(t *testing.T, s *sqlite.Store, th string) []string {
	t.Helper()
	msgs, err := s.Messages(t.Context(), ann, tenure.MessageFilter{ThreadID: th, Limit: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if len(out) == 0 || out[len(out)-1] != m.SessionID {
			out = append(out, m.SessionID)
		}
	}
	return out
}

// Derived sessions continue across appends and write chunks: a gap starts
// the next one, counting those stored before.
func TestDerivedSessions(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), nil)
	ctx := t.Context()
	var in []tenure.Message
	for i, start := range []time.Time{day, day.Add(24 * time.Hour), day.Add(48 * time.Hour)} {
		in = append(in, thread("th", fmt.Sprintf("d%d-", i), 400, start)...) // 400 minutes: 3 chunks over 3 sessions
	}
	if _, err := s.ImportMessages(ctx, ann, in, nil); err != nil {
		t.Fatal(err)
	}
	// A message with its own session, then one a minute later (continuing
	// the explicit session), then one after a gap (a new derived session).
	last := in[len(in)-1].CreatedAt
	explicit := tenure.Message{ThreadID: "th", ID: "x", Role: "user", Content: "hi", CreatedAt: last.Add(time.Minute), SessionID: "call"}
	next := thread("th", "e", 2, last.Add(2*time.Minute))
	gap := thread("th", "g", 1, last.Add(5*time.Hour))
	for _, batch := range [][]tenure.Message{{explicit}, next, gap} {
		if _, err := s.AppendMessages(ctx, ann, batch); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"auto-1", "auto-2", "auto-3", "call", "auto-4"}
	if diff := cmp.Diff(want, sessions(t, s, "th")); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}

// An import is all or nothing, and reports an invalid message before a
// conflict with a stored one, wherever they are in the batch.
func TestImportErrors(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), nil)
	ctx := t.Context()
	if _, err := s.AppendMessages(ctx, ann, thread("th", "m", 1, day)); err != nil {
		t.Fatal(err)
	}
	conflict := thread("th", "m", 1, day)[0]
	conflict.Content = "other words"
	for _, c := range []struct {
		name  string
		mut   func(batch []tenure.Message)
		code  tenure.Code
		field string
	}{
		{"Invalid", func(b []tenure.Message) { b[1100].Content = "" }, tenure.CodeInvalid, "[1100].content"},
		{"Conflict", func(b []tenure.Message) { b[900] = conflict }, tenure.CodeConflict, "[900].id"},
		{"InvalidAfterConflict", func(b []tenure.Message) { b[10] = conflict; b[1100].Role = "narrator" }, tenure.CodeInvalid, "[1100].role"},
		{"Repeated", func(b []tenure.Message) { b[1100] = b[3]; b[1100].Content = "changed" }, tenure.CodeConflict, "[1100].id"},
		{"InvalidAfterRepeated", func(b []tenure.Message) { b[5] = b[3]; b[5].Content = "changed"; b[1100].Content = " " }, tenure.CodeInvalid, "[1100].content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			batch := thread("new", "n", 1200, day)
			c.mut(batch)
			_, err := s.ImportMessages(ctx, ann, batch, nil)
			if tenure.ErrorCode(err) != c.code || tenure.ErrorField(err) != c.field {
				t.Errorf("err = %v (%s %s), want %s %s", err, tenure.ErrorCode(err), tenure.ErrorField(err), c.code, c.field)
			}
			if got := positions(t, s); len(got) != 1 {
				t.Errorf("a failed import left messages: %v", got)
			}
		})
	}
}

// TestCompactMessageIndex indexes the same messages into two stores in
// passes of ten, each a segment of its own; the one that compacts every
// 50 messages ends with fewer index pages, and every search finds the
// same messages in the same order in both.
func TestCompactMessageIndex(t *testing.T) {
	ctx := t.Context()
	ann := tenure.Principal{TenantID: "acme", UserID: "ann"}
	build := func(every int) *sqlite.Store {
		t.Helper()
		s := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{CompactEvery: every})
		if err := s.Open(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		for i := 0; i < 200; i += 10 {
			var msgs []tenure.Message
			for j := i; j < i+10; j++ {
				msgs = append(msgs, tenure.Message{ThreadID: "th", ID: fmt.Sprint(j), Role: "user",
					Content: fmt.Sprintf("note %d about the zebra number %d", j, j%7), CreatedAt: day.Add(time.Duration(j) * time.Minute)})
			}
			if _, err := s.AppendMessages(ctx, ann, msgs); err != nil {
				t.Fatal(err)
			}
			if err := s.IndexMessages(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	pages := func(s *sqlite.Store) (n int) {
		t.Helper()
		if err := s.DB().QueryRow(`SELECT count(*) FROM messages_fts_data`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	never, often := build(-1), build(50)
	if p, q := pages(never), pages(often); q >= p {
		t.Errorf("index pages: %d compacted every 50 messages, %d never compacted", q, p)
	}
	for _, q := range []string{"zebra number 3", "note 17", "about"} {
		if a, b := search(t, never, q), search(t, often, q); strings.Join(a, ",") != strings.Join(b, ",") {
			t.Errorf("search %q: %v compacted, %v not", q, b, a)
		}
	}
}

// TestCheckpointAfterImport imports enough messages for a checkpoint:
// commits leave the write-ahead log alone (wal_autocheckpoint 0), and
// IndexMessages, like the background pass, copies it into the database.
func TestCheckpointAfterImport(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "tenure.db")
	s := sqlite.New(path, sqlite.Options{})
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	empty := size()
	if _, err := s.ImportMessages(ctx, ann, thread("th", "m", 3000, day), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.IndexMessages(ctx); err != nil {
		t.Fatal(err)
	}
	// 3,000 messages and their index take ~0.8 MB; without a checkpoint
	// the file would not grow at all.
	if got := size(); got < empty+1<<19 {
		t.Errorf("database file after importing 3,000 messages and indexing them: %d bytes, %d empty; want the log copied in", got, empty)
	}
}
