package http_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// TestSessionsAndPersonas appends as a key bound to a persona and as an
// unbound key choosing one with the Tenure-Persona header, and reads the
// sessions and session states back through the client.
func TestSessionsAndPersonas(t *testing.T) {
	e := newEnv(t)
	coachP := aliceP
	coachP.PersonaID = "coach"
	coach := e.client(e.key(coachP))
	at := time.Now().UTC().Add(-time.Minute)
	if _, err := coach.AppendMessages(e.ctx, coachP, []tenure.Message{{ThreadID: "t", ID: "m1", Role: "user", Content: "I'll stretch daily.", CreatedAt: at}}); err != nil {
		t.Fatal(err)
	}
	ss, err := coach.Sessions(e.ctx, coachP, tenure.SessionQuery{})
	if err != nil || len(ss) != 1 || ss[0].PersonaID != "coach" || ss[0].TurnCount != 1 || !ss[0].Active() {
		t.Fatalf("sessions = %+v, %v; want one active session of coach", ss, err)
	}
	if got, err := coach.Session(e.ctx, coachP, "t", ss[0].SessionID); err != nil || got.SessionID != ss[0].SessionID {
		t.Errorf("session = %+v, %v", got, err)
	}
	st, err := coach.SessionState(e.ctx, coachP)
	if err != nil || st.MessageCount != 1 || st.PersonaID != "coach" {
		t.Errorf("state = %+v, %v; want one message of coach", st, err)
	}
	// alice's unbound key sees none of coach's sessions, unless it asks
	// for the persona.
	alice := e.client(e.alice)
	if ss, err := alice.Sessions(e.ctx, aliceP, tenure.SessionQuery{}); err != nil || len(ss) != 0 {
		t.Errorf("alice without a persona lists %+v, %v; want none", ss, err)
	}
	r := e.call("GET", "/v1/sessions", e.alice, "", "Tenure-Persona", "coach")
	if r.status != 200 || !strings.Contains(r.body, `"persona_id":"coach"`) {
		t.Errorf("alice as coach: %d %s", r.status, r.body)
	}
	// A key bound to a persona may not act as another.
	r = e.call("POST", "/v1/compile", e.key(coachP), `{"query":"stretch","budget":300}`, "Tenure-Persona", "therapist")
	if r.status != 403 || r.errBody(t).Field != "persona_id" {
		t.Errorf("coach as therapist: %d %s, want 403 naming persona_id", r.status, r.body)
	}
	r = e.call("POST", "/v1/compile", e.key(coachP), `{"query":"stretch","budget":300,"persona_id":"therapist"}`)
	if r.status != 403 {
		t.Errorf("compile as another persona: %d %s, want 403", r.status, r.body)
	}
	r = e.call("GET", "/v1/sessions?limit=-1", e.alice, "")
	if r.status != 400 || r.errBody(t).Field != "limit" {
		t.Errorf("negative limit: %d %s", r.status, r.body)
	}
}
