package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

// TestCurateCommand: tenure curate folds, prints, and records its run in
// the session state; --dry-run records nothing.
func TestCurateCommand(t *testing.T) {
	db := newDB(t)
	put(t, db, `{"content":"John works at Acme Corp","memory":{"type":"people","entity_refs":["person:john"],"attribute":"works_at","importance":2}}`)
	put(t, db, `{"content":"John works at Acme Corporation","memory":{"type":"people","entity_refs":["person:john"],"attribute":"employer"}}`)
	put(t, db, `{"content":"John likes tea","memory":{"type":"people","entity_refs":["person:john"],"attribute":"likes"}}`)
	dry := mustJSON[memory.CurateReport](t, "", "curate", "--dry-run", "--db", db)
	if len(dry.Folds) != 1 || dry.Active != 2 {
		t.Errorf("dry run: %+v", dry)
	}
	if st := mustJSON[tenure.SessionState](t, "", "sessions", "state", "--db", db); st.Curator.LastRunAt != nil {
		t.Errorf("a dry run was recorded: %+v", st.Curator)
	}
	out := mustCLI(t, "", "curate", "--db", db).stdout
	if !strings.HasPrefix(out, "curated 3 memories: 1 fold, 0 stale archived\n") {
		t.Errorf("curate printed:\n%s", out)
	}
	st := mustJSON[tenure.SessionState](t, "", "sessions", "state", "--db", db)
	if st.Curator.LastRunAt == nil || st.Curator.LastMemoryCountAtRun != 2 {
		t.Errorf("run not recorded: %+v", st.Curator)
	}
	if again := mustJSON[memory.CurateReport](t, "", "curate", "--db", db); len(again.Folds)+len(again.Archived) != 0 || again.Memories != 2 {
		t.Errorf("second run: %+v", again)
	}
}

// TestServeCurateEvery: serve --curate-every schedules the curator (its
// counters are on /metrics, absent without the flag) and stops cleanly.
func TestServeCurateEvery(t *testing.T) {
	metrics := func(srv served) string {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.url+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+srv.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	db := newDB(t)
	srv := serve(t, db, "--curate-every", "1h")
	if m := metrics(srv); !strings.Contains(m, "tenure_curator_folds_total 0") {
		t.Errorf("metrics lack the curator's counters:\n%.2000s", m)
	}
	if code := srv.stop(); code != 0 {
		t.Errorf("serve exited %d: %s", code, srv.stderr.String())
	}
	srv = serve(t, db)
	if m := metrics(srv); strings.Contains(m, "tenure_curator") {
		t.Error("curator counters without --curate-every")
	}
}

// TestCurateRemote: tenure curate --server runs the curator on the server
// (POST /v1/curate), which records the run in the session state as the
// local run does; --dry-run records nothing.
func TestCurateRemote(t *testing.T) {
	db := newDB(t)
	srv := serve(t, db)
	remote := []string{"--server", srv.url, "--key", srv.key}
	for _, m := range []string{
		`{"content":"John works at Acme Corp","memory":{"type":"people","entity_refs":["person:john"],"attribute":"works_at","importance":2}}`,
		`{"content":"John works at Acme Corporation","memory":{"type":"people","entity_refs":["person:john"],"attribute":"employer"}}`,
		`{"content":"John likes tea","memory":{"type":"people","entity_refs":["person:john"],"attribute":"likes"}}`,
	} {
		mustJSON[tenure.WriteResult](t, m, append([]string{"put"}, remote...)...)
	}
	state := func() tenure.SessionState {
		t.Helper()
		return mustJSON[tenure.SessionState](t, "", append([]string{"sessions", "state"}, remote...)...)
	}
	if dry := mustJSON[memory.CurateReport](t, "", append([]string{"curate", "--dry-run"}, remote...)...); len(dry.Folds) != 1 || !dry.DryRun {
		t.Errorf("remote dry run: %+v", dry)
	}
	if st := state(); st.Curator.LastRunAt != nil {
		t.Errorf("a remote dry run was recorded: %+v", st.Curator)
	}
	rep := mustJSON[memory.CurateReport](t, "", append([]string{"curate"}, remote...)...)
	if len(rep.Folds) != 1 || rep.Active != 2 {
		t.Errorf("remote curate: %+v", rep)
	}
	st := state()
	if st.Curator.LastRunAt == nil || st.Curator.LastMemoryCountAtRun != 2 || !st.Curator.LastRunAt.Equal(rep.At) {
		t.Errorf("remote run not recorded: %+v (run at %v)", st.Curator, rep.At)
	}
}
