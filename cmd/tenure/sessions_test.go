package main

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

func TestSessionsCommand(t *testing.T) {
	db := newDB(t)
	mustCLI(t, goodJSONL, "ingest", "--db", db, "--persona", "coach", "-")
	ss := mustJSON[[]tenure.Session](t, "", "sessions", "list", "--db", db, "--persona", "coach")
	if len(ss) != 1 || ss[0].TurnCount != 2 || ss[0].PersonaID != "coach" || ss[0].ThreadID != "t1" || ss[0].EndedAt == nil {
		t.Fatalf("sessions = %+v, want one ended session of coach with two turns", ss)
	}
	if ss := mustJSON[[]tenure.Session](t, "", "sessions", "list", "--db", db); len(ss) != 0 {
		t.Errorf("without --persona: %+v, want none", ss)
	}
	s := mustJSON[tenure.Session](t, "", "sessions", "show", "t1", ss[0].SessionID, "--db", db, "--persona", "coach")
	if s.SessionID != ss[0].SessionID {
		t.Errorf("show = %+v", s)
	}
	st := mustJSON[tenure.SessionState](t, "", "sessions", "state", "--db", db, "--persona", "coach")
	if st.MessageCount != 2 || !strings.Contains(st.LastUserMessage, "beagle") {
		t.Errorf("state = %+v", st)
	}
	out := mustCLI(t, "", "sessions", "list", "--db", db, "--persona", "coach").stdout
	if !strings.Contains(out, "THREAD") || !strings.Contains(out, "coach") {
		t.Errorf("human list:\n%s", out)
	}
	if r := tenureCLI(t, "", "sessions", "show", "t1", "nope", "--db", db); r.code != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("show unknown: exit %d, want not found", r.code)
	}
	if r := tenureCLI(t, "", "sessions", "drop", "--db", db); r.code != tenure.ExitCode(tenure.CodeInvalid) {
		t.Errorf("unknown subcommand: exit %d", r.code)
	}

	// put --persona writes a memory only that persona reads.
	r := put(t, db, `{"key":"goal","value":"marathon"}`, "--persona", "coach")
	if r.Object.PersonaID != "coach" {
		t.Fatalf("persona = %q, want coach", r.Object.PersonaID)
	}
	if got := tenureCLI(t, "", "get", "goal", "--db", db, "--persona", "therapist"); got.code != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("another persona reads it: exit %d", got.code)
	}
	if got := getValue(t, db, "goal", "--persona", "coach"); got != `"marathon"` {
		t.Errorf("coach reads %s", got)
	}
	env := mustCLI(t, "", "compile", "--db", db, "--persona", "therapist", "--query", "marathon goal", "--budget", "500").stdout
	if strings.Contains(env, "marathon") {
		t.Errorf("the therapist's envelope holds coach's memory:\n%s", env)
	}
}
