package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
)

// testClock is a settable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

var (
	t0      = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	sam     = tenure.Principal{UserID: "sam", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	coach   = withPersona(sam, "coach")
	therapy = withPersona(sam, "therapist")
)

func withPersona(p tenure.Principal, persona string) tenure.Principal {
	p.PersonaID = persona
	return p
}

// opener opens an empty store with the clock and session gap (0: the
// default).
type opener func(t *testing.T, clk *testClock, gap time.Duration) *engine.Engine

// eachStore runs fn on SQLite and on PostgreSQL (skipped without a
// server; see internal/pgtest).
func eachStore(t *testing.T, fn func(t *testing.T, openStore opener)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openSQLite) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPostgres) })
}

func openSQLite(t *testing.T, clk *testClock, gap time.Duration) *engine.Engine {
	t.Helper()
	st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Now: clk.Now, SessionGap: gap})
	if err := st.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.Engine
}

func openPostgres(t *testing.T, clk *testClock, gap time.Duration) *engine.Engine {
	t.Helper()
	st := postgres.New(pgtest.URL(t), postgres.Options{Now: clk.Now, SessionGap: gap})
	if err := st.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.Engine
}

// say appends a message of p at `at` and moves the clock there.
func say(t *testing.T, st *engine.Engine, clk *testClock, p tenure.Principal, thread, id, role, text string, at time.Time) {
	t.Helper()
	clk.Set(at)
	if _, err := st.AppendMessages(t.Context(), p, []tenure.Message{{ThreadID: thread, ID: id, Role: role, Content: text, CreatedAt: at}}); err != nil {
		t.Fatalf("append %s: %v", id, err)
	}
}

func sessionsOf(t *testing.T, st *engine.Engine, p tenure.Principal, q tenure.SessionQuery) []tenure.Session {
	t.Helper()
	out, err := st.Sessions(t.Context(), p, q)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stateOf(t *testing.T, st *engine.Engine, p tenure.Principal) tenure.SessionState {
	t.Helper()
	s, err := st.SessionState(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func compileText(t *testing.T, st *engine.Engine, clk *testClock, req compile.Request) string {
	t.Helper()
	return compileTextWith(t, st, clk, compile.Options{}, req)
}

// compileTextWith is compileText with compiler options.
func compileTextWith(t *testing.T, st *engine.Engine, clk *testClock, opt compile.Options, req compile.Request) string {
	t.Helper()
	// A second on: the store's transaction times may run a little ahead
	// of a clock that stands still.
	opt.Now = func() time.Time { return clk.Now().Add(time.Second) }
	c := compile.New(st, opt)
	env, _, err := c.Compile(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return env.Text()
}

// TestTimeline replays the state evolution timeline of the memory model
// (spec: memory-model.md, "t=0 … t=n") with the persona "Coach".
func TestTimeline(t *testing.T) { eachStore(t, testTimeline) }

func testTimeline(t *testing.T, openStore opener) {
	clk := &testClock{t: t0}
	st := openStore(t, clk, 0)
	ctx := t.Context()
	sum := summarize.Fallback(nil, nil)
	opt := engine.SummaryOptions{RollingEvery: 2}

	// t=0: the first message to Coach creates a session and a session
	// state with messageCount=1; a memory is stored globally, a todo for
	// Coach.
	say(t, st, clk, coach, "c", "m1", "user", "I'll call my sister on Friday about the walk in Austin.", t0)
	ss := sessionsOf(t, st, coach, tenure.SessionQuery{})
	if len(ss) != 1 || ss[0].TurnCount != 1 || !ss[0].Active() || ss[0].PersonaID != "coach" || !ss[0].StartedAt.Equal(t0) {
		t.Fatalf("t=0 sessions = %+v, want one active session of coach with one turn", ss)
	}
	if s := stateOf(t, st, coach); s.MessageCount != 1 || !s.LastInteraction.Equal(t0) || !strings.Contains(s.LastUserMessage, "Austin") {
		t.Fatalf("t=0 state = %+v, want messageCount=1", s)
	}
	if _, err := st.ExtractState(ctx, coach, "c", extract.NewRules(extract.RulesOptions{})); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(ctx, coach, tenure.Object{Key: "profile/sam/lives_in", Content: "Sam lives in Austin", Source: "extraction", UserID: "sam"}); err != nil {
		t.Fatal(err)
	}
	actions := func(p tenure.Principal) int {
		objs, err := st.List(ctx, p, tenure.Filter{KeyPrefix: "state/c/"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range objs {
			if o.StateItem != nil && o.StateItem.Type == tenure.StateAction {
				n++
				if o.PersonaID != "coach" {
					t.Errorf("action %q has persona %q, want coach", o.Content, o.PersonaID)
				}
			}
		}
		return n
	}
	if actions(coach) == 0 {
		t.Fatal("t=0: no todo extracted for coach")
	}
	if n := actions(therapy); n != 0 {
		t.Errorf("t=0: the therapist sees %d of coach's todos", n)
	}
	if _, err := st.CurrentValue(ctx, therapy, "profile/sam/lives_in", tenure.Read{}); err != nil {
		t.Errorf("t=0: the global memory is not readable by another persona: %v", err)
	}

	// t=1: a second message updates the session and the state.
	say(t, st, clk, coach, "c", "m2", "assistant", "Great plan. Where will you walk?", t0.Add(time.Minute))
	if ss := sessionsOf(t, st, coach, tenure.SessionQuery{}); len(ss) != 1 || ss[0].TurnCount != 2 {
		t.Fatalf("t=1 sessions = %+v, want turnCount=2", ss)
	}
	if s := stateOf(t, st, coach); s.MessageCount != 2 {
		t.Fatalf("t=1 messageCount = %d, want 2", s.MessageCount)
	}

	// t=3: the fourth message triggers the rolling summary.
	say(t, st, clk, coach, "c", "m3", "user", "Along the river trail with my dog Biscuit.", t0.Add(2*time.Minute))
	say(t, st, clk, coach, "c", "m4", "assistant", "Lovely, the river trail it is.", t0.Add(3*time.Minute))
	res, err := st.Summarize(ctx, coach, "c", sum, opt)
	if err != nil || res.Rolling == nil {
		t.Fatalf("t=3 summarize = %+v, %v; want a rolling summary", res, err)
	}
	if res.Rolling.PersonaID != "coach" {
		t.Errorf("rolling summary persona = %q, want coach", res.Rolling.PersonaID)
	}
	s := stateOf(t, st, coach)
	if s.MessageCount != 4 || s.LastRollingSuccessAt == nil || s.LastRollingAttemptAt == nil || s.LastRollingError != nil {
		t.Fatalf("t=3 state = %+v, want messageCount=4 and a successful rolling summary", s)
	}

	// t=35min: the session is ended and summarized.
	clk.Set(t0.Add(35 * time.Minute))
	ss = sessionsOf(t, st, coach, tenure.SessionQuery{})
	if len(ss) != 1 || ss[0].Active() || !ss[0].EndedAt.Equal(t0.Add(33*time.Minute)) {
		t.Fatalf("t=35min sessions = %+v, want the session ended 30 minutes after its last turn", ss)
	}
	res, err = st.Summarize(ctx, coach, "c", sum, opt)
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("t=35min summarize = %+v, %v; want a session summary", res, err)
	}
	summary := res.Sessions[0]
	if ss := sessionsOf(t, st, coach, tenure.SessionQuery{}); ss[0].SummaryKey != summary.Key {
		t.Errorf("session summary key = %q, want %q", ss[0].SummaryKey, summary.Key)
	}

	// t=36min: a new session; the state carries on; the context holds
	// the latest session summary and the rolling summary when the history
	// shows only the latest turns, and neither when it shows the whole
	// conversation (they would only repeat it: covered_by_history).
	say(t, st, clk, coach, "c", "m5", "user", "Back again.", t0.Add(36*time.Minute))
	ss = sessionsOf(t, st, coach, tenure.SessionQuery{})
	if len(ss) != 2 || !ss[0].Active() || ss[0].TurnCount != 1 || ss[1].Active() || ss[0].SessionID == ss[1].SessionID {
		t.Fatalf("t=36min sessions = %+v, want a new active session and the ended one", ss)
	}
	if s := stateOf(t, st, coach); s.MessageCount != 5 {
		t.Fatalf("t=36min messageCount = %d, want 5", s.MessageCount)
	}
	req := compile.Request{Principal: coach, Query: "hello", ThreadID: "c", Budget: 2000}
	if text := compileText(t, st, clk, req); strings.Contains(text, summary.Content) || strings.Contains(text, "summary/c/rolling") {
		t.Errorf("t=36min the history holds the whole conversation, yet its summaries are compiled:\n%s", text)
	}
	text := compileTextWith(t, st, clk, compile.Options{History: compile.HistoryOptions{Recent: 2}}, req)
	if !strings.Contains(text, summary.Content) {
		t.Errorf("t=36min context lacks the latest session summary %q:\n%s", summary.Content, text)
	}
	if !strings.Contains(text, "summary/c/rolling") {
		t.Errorf("t=36min context lacks the rolling summary:\n%s", text)
	}
	if text := compileText(t, st, clk, compile.Request{Principal: sam, PersonaID: "therapist", Query: "hello", ThreadID: "c", Budget: 2000}); strings.Contains(text, summary.Content) {
		t.Errorf("the therapist's context holds coach's session summary:\n%s", text)
	}

	// t=n: past 20 messages, a new spine version; 20 more, another.
	for i := 6; i <= 21; i++ {
		say(t, st, clk, coach, "c", fmt.Sprintf("m%d", i), "user", fmt.Sprintf("Note %d about the walk.", i), t0.Add(time.Duration(36+i)*time.Minute))
	}
	res, err = st.Summarize(ctx, coach, "c", sum, opt)
	if err != nil || res.Spine == nil {
		t.Fatalf("t=n summarize = %+v, %v; want a spine", res, err)
	}
	v := spineValue(t, *res.Spine)
	if v.Version != 1 || v.TotalMessages != 21 || res.Spine.PersonaID != "" || !strings.Contains(res.Spine.Content, "PROFILE:") {
		t.Fatalf("spine = %+v (%q), want version 1 over 21 messages, global", v, res.Spine.Content)
	}
	if o, err := st.CurrentValue(ctx, therapy, engine.SpineKey, tenure.Read{}); err != nil || o.ObjectID != res.Spine.ObjectID {
		t.Errorf("the spine is not readable by another persona: %v", err)
	}
	if res, err := st.Summarize(ctx, coach, "c", sum, opt); err != nil || res.Spine != nil {
		t.Errorf("summarize again = %+v, %v; want no new spine before 20 more messages", res.Spine, err)
	}
	for i := 22; i <= 41; i++ {
		say(t, st, clk, therapy, "th", fmt.Sprintf("m%d", i), "user", "Feeling fine.", t0.Add(time.Duration(36+i)*time.Minute))
	}
	res, err = st.Summarize(ctx, therapy, "th", sum, opt)
	if err != nil || res.Spine == nil {
		t.Fatalf("second spine: %+v, %v", res, err)
	}
	if v := spineValue(t, *res.Spine); v.Version != 2 || v.MessageCount != 20 || v.TotalMessages != 41 {
		t.Errorf("second spine = %+v, want version 2 after 20 messages", v)
	}
	if strings.Contains(res.Spine.Content, "walk tomorrow") {
		t.Errorf("the spine holds coach's commitment: %q", res.Spine.Content)
	}
}

func spineValue(t *testing.T, o tenure.Object) engine.SpineValue {
	t.Helper()
	var v engine.SpineValue
	if err := json.Unmarshal(o.Value, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// failing is a summarizer whose rolling summaries fail.
type failing struct{ summarize.Summarizer }

func (failing) Rolling(context.Context, string, []tenure.Message) (string, error) {
	return "", tenure.Errorf(tenure.CodeTimeout, "", "model too slow")
}

func TestSessionStateDiagnostics(t *testing.T) { eachStore(t, testSessionStateDiagnostics) }

func testSessionStateDiagnostics(t *testing.T, openStore opener) {
	clk := &testClock{t: t0}
	st := openStore(t, clk, 0)
	ctx := t.Context()
	for i := range 4 {
		say(t, st, clk, coach, "c", fmt.Sprintf("m%d", i), "user", "hello there", t0.Add(time.Duration(i)*time.Minute))
	}
	if _, err := st.Summarize(ctx, coach, "c", failing{summarize.NewExtractive(summarize.Options{})}, engine.SummaryOptions{RollingEvery: 2}); err == nil {
		t.Fatal("summarize with a failing summarizer succeeded")
	}
	s := stateOf(t, st, coach)
	if s.LastRollingAttemptAt == nil || s.LastRollingSuccessAt != nil || s.LastRollingError == nil || s.LastRollingError.Reason != string(tenure.CodeTimeout) {
		t.Fatalf("state = %+v, want a failed attempt with reason timeout", s)
	}
	at := t0.Add(time.Hour)
	if err := st.RecordCuratorRun(ctx, coach, at, 12); err != nil {
		t.Fatal(err)
	}
	s = stateOf(t, st, coach)
	if s.Curator.LastRunAt == nil || !s.Curator.LastRunAt.Equal(at) || s.Curator.LastMemoryCountAtRun != 12 || s.MessageCount != 4 {
		t.Errorf("state after the curator = %+v", s)
	}
	if err := st.RecordCuratorRun(ctx, coach, at, -1); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("negative memory count: err = %v, want invalid", err)
	}
	if s := stateOf(t, st, therapy); s.MessageCount != 0 || s.Curator.LastRunAt != nil {
		t.Errorf("the therapist's state = %+v, want none", s)
	}
}

func TestSessionsEndAndInactivity(t *testing.T) { eachStore(t, testSessionsEndAndInactivity) }

func testSessionsEndAndInactivity(t *testing.T, openStore opener) {
	clk := &testClock{t: t0}
	st := openStore(t, clk, 10*time.Minute)
	say(t, st, clk, sam, "a", "m1", "user", "one", t0)
	say(t, st, clk, sam, "a", "m2", "user", "two", t0.Add(11*time.Minute))
	ss := sessionsOf(t, st, sam, tenure.SessionQuery{})
	if len(ss) != 2 || ss[1].EndedAt == nil || !ss[1].EndedAt.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("sessions = %+v, want the first closed by the 10-minute window", ss)
	}
	if active := sessionsOf(t, st, sam, tenure.SessionQuery{Active: true}); len(active) != 1 || active[0].SessionID != ss[0].SessionID {
		t.Fatalf("active = %+v, want the second", active)
	}
	// Explicit session ids: end-session closes the record.
	clk.Set(t0.Add(12 * time.Minute))
	if _, err := st.AppendMessages(t.Context(), sam, []tenure.Message{{ThreadID: "b", ID: "x", SessionID: "s1", Role: "user", Content: "hi", CreatedAt: clk.Now()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EndSession(t.Context(), sam, "s1"); err != nil {
		t.Fatal(err)
	}
	got, err := st.Session(t.Context(), sam, "b", "s1")
	if err != nil || got.Active() || got.TurnCount != 1 {
		t.Fatalf("session s1 = %+v, %v; want ended", got, err)
	}
	if _, err := st.Session(t.Context(), coach, "b", "nope"); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("unknown session: err = %v, want not_found", err)
	}
	if _, err := st.Sessions(t.Context(), sam, tenure.SessionQuery{Limit: -1}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("negative limit: err = %v, want invalid", err)
	}
}

// TestPersonaTable checks each row of the spec's global-vs-persona table
// (memory-model.md, "Global vs Persona-Scoped").
func TestPersonaTable(t *testing.T) { eachStore(t, testPersonaTable) }

func testPersonaTable(t *testing.T, openStore opener) {
	clk := &testClock{t: t0}
	st := openStore(t, clk, 0)
	ctx := t.Context()
	mustPut := func(p tenure.Principal, o tenure.Object) tenure.Object {
		t.Helper()
		r, err := st.Put(ctx, p, o)
		if err != nil {
			t.Fatal(err)
		}
		return r.Object
	}
	notFound := func(name string, err error) {
		t.Helper()
		if tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("%s: err = %v, want not_found", name, err)
		}
	}

	t.Run("Global/MemoryStorage", func(t *testing.T) {
		// A memory written by a persona without persona_id is global.
		o := mustPut(coach, tenure.Object{Key: "profile/sam/city", Content: "Sam lives in Austin", UserID: "sam"})
		if o.PersonaID != "" {
			t.Fatalf("persona = %q, want global", o.PersonaID)
		}
		for _, p := range []tenure.Principal{coach, therapy, sam} {
			if _, err := st.Get(ctx, p, o.ObjectID, tenure.Read{}); err != nil {
				t.Errorf("%q reads the global memory: %v", p.PersonaID, err)
			}
		}
	})
	t.Run("Global/SummarySpine", func(t *testing.T) {
		o, err := st.UpdateSpine(ctx, coach, summarize.NewExtractive(summarize.Options{}), true)
		if err != nil || o == nil || o.PersonaID != "" {
			t.Fatalf("spine = %+v, %v", o, err)
		}
		if _, err := st.CurrentValue(ctx, therapy, engine.SpineKey, tenure.Read{}); err != nil {
			t.Errorf("another persona reads the spine: %v", err)
		}
	})
	t.Run("Global/UserSeed", func(t *testing.T) {
		// A seeded profile, written by the operator with no persona.
		mustPut(sam, tenure.Object{Key: "profile/sam/name", Content: "Sam Rivera", Source: "seed", UserID: "sam"})
		if _, err := st.CurrentValue(ctx, therapy, "profile/sam/name", tenure.Read{}); err != nil {
			t.Errorf("a persona reads the seed: %v", err)
		}
	})
	t.Run("Persona/MemoryRetrieval", func(t *testing.T) {
		o := mustPut(coach, tenure.Object{Key: "coach/secret", Content: "Sam wants to run a marathon", UserID: "sam", PersonaID: "coach"})
		if _, err := st.Get(ctx, coach, o.ObjectID, tenure.Read{}); err != nil {
			t.Errorf("coach reads its memory: %v", err)
		}
		notFound("therapist get", errOf(st.Get(ctx, therapy, o.ObjectID, tenure.Read{})))
		notFound("no persona get", errOf(st.Get(ctx, sam, o.ObjectID, tenure.Read{})))
		notFound("therapist current", errOf(st.CurrentValue(ctx, therapy, "coach/secret", tenure.Read{})))
		text := compileText(t, st, clk, compile.Request{Principal: therapy, Query: "marathon", Budget: 2000})
		if strings.Contains(text, "marathon") {
			t.Errorf("the therapist's context holds coach's memory:\n%s", text)
		}
		if text := compileText(t, st, clk, compile.Request{Principal: sam, PersonaID: "coach", Query: "marathon", Budget: 2000}); !strings.Contains(text, "marathon") {
			t.Errorf("coach's context lacks its memory:\n%s", text)
		}
		c := compile.New(st, compile.Options{Now: clk.Now})
		if _, _, err := c.Compile(ctx, compile.Request{Principal: therapy, PersonaID: "coach", Query: "x", Budget: 500}); tenure.ErrorCode(err) != tenure.CodeForbidden {
			t.Errorf("a therapist key compiling as coach: err = %v, want forbidden", err)
		}
		// The same key is another slot for the therapist: a global write
		// neither conflicts with nor reveals coach's.
		r, err := st.Put(ctx, therapy, tenure.Object{Key: "coach/secret", Content: "nothing", UserID: "sam"})
		if err != nil || r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 0 {
			t.Errorf("therapist's write of the key = %+v, %v; want a plain create", r, err)
		}
		// Editing coach's object by id is not found, like an unknown id.
		_, err = st.Put(ctx, therapy, tenure.Object{ObjectID: o.ObjectID, Content: "x"})
		notFound("therapist edit", err)
		// Writing for another persona is forbidden.
		_, err = st.Put(ctx, therapy, tenure.Object{Key: "k", Content: "x", PersonaID: "coach"})
		if tenure.ErrorCode(err) != tenure.CodeForbidden {
			t.Errorf("write for another persona: err = %v, want forbidden", err)
		}
	})
	t.Run("Persona/Todos", func(t *testing.T) {
		say(t, st, clk, coach, "todo", "m1", "user", "I'll call my sister on Friday.", t0)
		if _, err := st.ExtractState(ctx, coach, "todo", extract.NewRules(extract.RulesOptions{})); err != nil {
			t.Fatal(err)
		}
		count := func(p tenure.Principal) int {
			objs, err := st.List(ctx, p, tenure.Filter{KeyPrefix: "state/todo/"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, o := range objs {
				if o.StateItem != nil && o.StateItem.Type == tenure.StateAction {
					n++
				}
			}
			return n
		}
		if count(coach) == 0 {
			t.Fatal("no commitment extracted")
		}
		if n := count(therapy); n != 0 {
			t.Errorf("the therapist sees %d of coach's commitments", n)
		}
	})
	t.Run("Persona/Sessions", func(t *testing.T) {
		say(t, st, clk, therapy, "th", "m1", "user", "I slept badly.", t0.Add(time.Hour))
		for _, s := range sessionsOf(t, st, coach, tenure.SessionQuery{}) {
			if s.PersonaID == "therapist" {
				t.Errorf("coach lists the therapist's session %+v", s)
			}
		}
		if ss := sessionsOf(t, st, therapy, tenure.SessionQuery{ThreadID: "th"}); len(ss) != 1 {
			t.Errorf("therapist sessions = %+v", ss)
		}
		notFound("coach session", errOf(st.Session(ctx, coach, "th", sessionsOf(t, st, therapy, tenure.SessionQuery{ThreadID: "th"})[0].SessionID)))
	})
	t.Run("Persona/SessionState", func(t *testing.T) {
		c, th := stateOf(t, st, coach), stateOf(t, st, therapy)
		if c.MessageCount != 1 || th.MessageCount != 1 || strings.Contains(c.LastUserMessage, "slept") {
			t.Errorf("states = %+v / %+v, want one message each, apart", c, th)
		}
	})
	t.Run("Persona/Messages", func(t *testing.T) {
		// The same id in the same thread: two messages, each persona's own.
		say(t, st, clk, therapy, "todo", "m1", "user", "Another message with coach's id.", t0.Add(2*time.Hour))
		for p, want := range map[string]tenure.Principal{"call my sister": coach, "coach's id": therapy} {
			msgs, err := st.Messages(ctx, want, tenure.MessageFilter{ThreadID: "todo"})
			if err != nil || len(msgs) != 1 || !strings.Contains(msgs[0].Content, p) {
				t.Errorf("%s reads %+v, %v; want only its own", want.PersonaID, msgs, err)
			}
		}
		if msgs, err := st.Messages(ctx, sam, tenure.MessageFilter{ThreadID: "todo"}); err != nil || len(msgs) != 0 {
			t.Errorf("no persona reads %+v, %v; want none", msgs, err)
		}
		_, err := st.AppendMessages(ctx, therapy, []tenure.Message{{ThreadID: "x", ID: "1", Role: "user", Content: "x", CreatedAt: t0, PersonaID: "coach"}})
		if tenure.ErrorCode(err) != tenure.CodeForbidden {
			t.Errorf("append for another persona: err = %v, want forbidden", err)
		}
		// Message candidates (history) of a compilation: the therapist's
		// context never quotes coach's messages.
		text := compileText(t, st, clk, compile.Request{Principal: therapy, Query: "sister", ThreadID: "todo", Budget: 2000})
		if strings.Contains(text, "call my sister") {
			t.Errorf("the therapist's context quotes coach's message:\n%s", text)
		}
	})
}

func errOf[T any](_ T, err error) error { return err }
