package storetest

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// testPersonas checks the global-vs-persona rule on a store: what names
// no persona every persona reads, what names one only that persona reads,
// and to any other principal a persona's object or message is like one
// that does not exist (not found, never listed, never a conflict or a
// skip), whatever the route: by id, by key, by list, by message id,
// by message candidates; sessions and session states (when the store
// keeps them) likewise.
func testPersonas(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	coach, therapist := employee, employee
	coach.PersonaID, therapist.PersonaID = "coach", "therapist"
	put := func(p tenure.Principal, o tenure.Object) tenure.Object {
		t.Helper()
		r, err := s.Put(ctx, p, o)
		if err != nil {
			t.Fatalf("put %s as %q: %v", o.Key, p.PersonaID, err)
		}
		return r.Object
	}
	global := put(coach, fact("city", "Austin"))
	own := put(coach, tenure.Object{Key: "goal", Content: "run a marathon", PersonaID: "coach"})
	if global.PersonaID != "" || own.PersonaID != "coach" {
		t.Fatalf("personas = %q, %q; want global and coach", global.PersonaID, own.PersonaID)
	}
	for _, p := range []tenure.Principal{coach, therapist, employee} {
		if _, err := s.Get(ctx, p, global.ObjectID, tenure.Read{}); err != nil {
			t.Errorf("%q reads the global memory: %v", p.PersonaID, err)
		}
	}
	if _, err := s.Get(ctx, coach, own.ObjectID, tenure.Read{}); err != nil {
		t.Errorf("coach reads its own memory: %v", err)
	}
	for _, p := range []tenure.Principal{therapist, employee} {
		_, err := s.Get(ctx, p, own.ObjectID, tenure.Read{})
		wantCode(t, err, tenure.CodeNotFound, "")
		_, err = s.CurrentValue(ctx, p, "goal", tenure.Read{})
		wantCode(t, err, tenure.CodeNotFound, "")
		objs, err := s.List(ctx, p, tenure.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if o.PersonaID == "coach" {
				t.Errorf("%q lists coach's %s", p.PersonaID, o.Key)
			}
		}
		_, err = s.Put(ctx, p, tenure.Object{ObjectID: own.ObjectID, Content: "x"})
		wantCode(t, err, tenure.CodeNotFound, "object_id")
	}
	_, err := s.Put(ctx, therapist, tenure.Object{Key: "k", Content: "x", PersonaID: "coach"})
	wantCode(t, err, tenure.CodeForbidden, "persona_id")
	// The same key as another persona's is a slot of its own.
	if r, err := s.Put(ctx, therapist, tenure.Object{Key: "goal", Content: "sleep well", PersonaID: "therapist"}); err != nil ||
		r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 0 {
		t.Errorf("therapist's goal = %+v, %v; want a plain create", r, err)
	}
	if o, err := s.CurrentValue(ctx, coach, "goal", tenure.Read{}); err != nil || o.ObjectID != own.ObjectID {
		t.Errorf("coach's goal = %+v, %v; want its own", o, err)
	}

	// Messages: each persona's own and the global ones; ids per persona.
	at := T0
	app := func(p tenure.Principal, id, content string) tenure.AppendResult {
		t.Helper()
		r, err := s.AppendMessages(ctx, p, []tenure.Message{msg("th", id, "Sam", content, at)})
		if err != nil {
			t.Fatalf("append %s as %q: %v", id, p.PersonaID, err)
		}
		return r
	}
	app(employee, "g1", "shared hello")
	app(coach, "m1", "coach marathon plan")
	if r := app(therapist, "m1", "therapist sleep diary"); r.Appended != 1 {
		t.Errorf("another persona's id: %+v, want a fresh append", r)
	}
	read := func(p tenure.Principal) string {
		msgs, err := s.Messages(ctx, p, tenure.MessageFilter{ThreadID: "th"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			got = append(got, m.ID+"="+m.Content)
		}
		return strings.Join(got, ",")
	}
	for p, want := range map[*tenure.Principal]string{&coach: "g1=shared hello,m1=coach marathon plan",
		&therapist: "g1=shared hello,m1=therapist sleep diary", &employee: "g1=shared hello"} {
		if got := read(*p); got != want {
			t.Errorf("%q reads %s, want %s", p.PersonaID, got, want)
		}
	}
	cands, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: therapist, Text: "marathon plan", Neighbors: 2, Recent: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range cands {
		if strings.Contains(m.Content, "marathon") {
			t.Errorf("the therapist's candidates hold coach's message %q", m.Content)
		}
		if m.Pos > 2 {
			t.Errorf("the therapist's message %s at position %d: another persona's turn was counted", m.ID, m.Pos)
		}
	}
	_, err = s.AppendMessages(ctx, therapist, []tenure.Message{{ThreadID: "th", ID: "x", Role: "user", Content: "x", CreatedAt: at, PersonaID: "coach"}})
	wantCode(t, err, tenure.CodeForbidden, "[0].persona_id")

	ss, ok := s.(tenure.SessionStore)
	if !ok {
		return
	}
	for _, p := range []tenure.Principal{coach, therapist} {
		list, err := ss.Sessions(ctx, p, tenure.SessionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.PersonaID != "" && x.PersonaID != p.PersonaID {
				t.Errorf("%q lists %q's session", p.PersonaID, x.PersonaID)
			}
		}
		st, err := ss.SessionState(ctx, p)
		if err != nil || st.MessageCount != 1 || st.PersonaID != p.PersonaID {
			t.Errorf("%q state = %+v, %v; want its one message", p.PersonaID, st, err)
		}
	}
}

// testPersonaThreads checks that thread listings count only what the
// reader sees: a thread of one persona's alone is not listed to another,
// and a shared thread counts the reader's persona's turns and the global
// ones only.
func testPersonaThreads(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ts, ok := s.(interface {
		Threads(ctx context.Context, p tenure.Principal, f tenure.ThreadFilter) ([]tenure.Thread, error)
	})
	if !ok {
		t.Skip("the store lists no threads")
	}
	ctx := t.Context()
	coach, therapist := employee, employee
	coach.PersonaID, therapist.PersonaID = "coach", "therapist"
	app := func(p tenure.Principal, thread, id string) {
		t.Helper()
		if _, err := s.AppendMessages(ctx, p, []tenure.Message{msg(thread, id, "Sam", "hello "+id, T0)}); err != nil {
			t.Fatalf("append %s as %q: %v", id, p.PersonaID, err)
		}
	}
	app(employee, "th", "g1")
	app(coach, "th", "c1")
	app(therapist, "th", "t1")
	app(coach, "solo", "c2")
	list := func(p tenure.Principal) map[string]int {
		got, err := ts.Threads(ctx, p, tenure.ThreadFilter{})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, th := range got {
			m[th.ThreadID] = th.Messages
		}
		return m
	}
	for _, c := range []struct {
		p    tenure.Principal
		want map[string]int
	}{
		{therapist, map[string]int{"th": 2}},
		{coach, map[string]int{"th": 2, "solo": 1}},
		{employee, map[string]int{"th": 1}},
	} {
		if got := list(c.p); !maps.Equal(got, c.want) {
			t.Errorf("%q lists threads %v, want %v", c.p.PersonaID, got, c.want)
		}
	}
}
