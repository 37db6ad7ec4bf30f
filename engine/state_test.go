package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/sqlite"
)

// faultyBackend fails the write transaction at a chosen step, as a crash
// between the upserts and the watermark would.
type faultyBackend struct {
	engine.Backend
	failAt string // "watermark" or "commit"
}

func (b faultyBackend) Begin(ctx context.Context) (engine.Tx, error) {
	tx, err := b.Backend.Begin(ctx)
	return faultyTx{Tx: tx, failAt: b.failAt}, err
}

type faultyTx struct {
	engine.Tx
	failAt string
}

var errCrash = errors.New("injected crash")

func (t faultyTx) SetWatermark(ctx context.Context, tenant string, w tenure.Watermark) error {
	if t.failAt == "watermark" {
		return errCrash
	}
	return t.Tx.SetWatermark(ctx, tenant, w)
}

func (t faultyTx) Commit() error {
	if t.failAt == "commit" {
		t.Tx.Rollback()
		return errCrash
	}
	return t.Tx.Commit()
}

type oneItem struct{}

func (oneItem) Extract(_ context.Context, b extract.Batch) (extract.Result, error) {
	var refs []string
	for _, m := range b.Messages {
		refs = append(refs, m.ID)
	}
	return extract.Result{Items: []extract.Candidate{{Item: tenure.StateItem{Type: tenure.StateDecision,
		Text: "Use Redis for caching", Status: "active", Confidence: tenure.ConfidenceHigh, Refs: refs}}}}, nil
}

func TestExtractStateCrashLeavesWatermark(t *testing.T) {
	p := tenure.Principal{UserID: "eve", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	for _, step := range []string{"watermark", "commit"} {
		t.Run(step, func(t *testing.T) {
			st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
			if err := st.Open(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			ctx := t.Context()
			if _, err := st.AppendMessages(ctx, p, []tenure.Message{{ThreadID: "th", ID: "m1", Role: "user", Content: "Let's use Redis", CreatedAt: at}}); err != nil {
				t.Fatal(err)
			}
			crashing := engine.New(faultyBackend{Backend: st.Backend(), failAt: step}, engine.Options{})
			if _, err := crashing.ExtractState(ctx, p, "th", oneItem{}); !errors.Is(err, errCrash) {
				t.Fatalf("err = %v, want the injected crash", err)
			}
			objs, err := st.List(ctx, p, tenure.Filter{KeyPrefix: "state/"})
			if err != nil || len(objs) != 0 {
				t.Fatalf("after the crash: %d state objects, %v; want none", len(objs), err)
			}
			// A healthy run applies the batch exactly once.
			r, err := st.ExtractState(ctx, p, "th", oneItem{})
			if err != nil || r.Messages != 1 || r.ItemsInserted != 1 {
				t.Fatalf("recovery run = %+v, %v; want the message applied once", r, err)
			}
			r, err = st.ExtractState(ctx, p, "th", oneItem{})
			if err != nil || r.SkippedReason != "no_new_messages" {
				t.Errorf("third run = %+v, %v; want nothing new", r, err)
			}
		})
	}
}

// stateByStatus returns a thread's state items by text: those still
// holding, and those superseded.
func stateByStatus(t *testing.T, st *sqlite.Store, p tenure.Principal, thread string) (active, superseded map[string]tenure.StateItem) {
	t.Helper()
	objs, err := st.List(t.Context(), p, tenure.Filter{KeyPrefix: engine.StateKey(thread, "")})
	if err != nil {
		t.Fatal(err)
	}
	active, superseded = map[string]tenure.StateItem{}, map[string]tenure.StateItem{}
	for _, o := range objs {
		if it := o.StateItem; it != nil && it.Status == "superseded" {
			superseded[it.Text] = *it
		} else if it != nil {
			active[it.Text] = *it
		}
	}
	return active, superseded
}

// digestEach appends msgs to thread "th", a minute apart from at, and
// runs the rules extractor after each, as a chat that digests each turn
// would.
func digestEach(t *testing.T, st *sqlite.Store, p tenure.Principal, at time.Time, msgs []tenure.Message) {
	t.Helper()
	for i, m := range msgs {
		m.ThreadID, m.CreatedAt = "th", at.Add(time.Duration(i)*time.Minute)
		if _, err := st.AppendMessages(t.Context(), p, []tenure.Message{m}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ExtractState(t.Context(), p, "th", extract.NewRules(extract.RulesOptions{})); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExtractStateSetAside: a pick from an either-or question records the
// option it set aside, and a later decision that takes that option
// supersedes the pick, though the two share no word; a decision about
// something else leaves it.
func TestExtractStateSetAside(t *testing.T) {
	p, at, st := eveStore(t)
	say := []struct{ role, speaker, content string }{
		{"user", "Dana", "Hi, my order #4471 arrived with a cracked screen."},
		{"assistant", "", "Sorry to hear that. Would you like a replacement or a refund?"},
		{"user", "Dana", "A replacement please."},
		{"user", "Dana", "Let's use the courier pickup for the return."},
		{"assistant", "", "I'll email you a prepaid return label today."},
		{"user", "Dana", "Please don't call me, email only."},
		{"user", "Dana", "Actually the replacement won't arrive in time, I'd prefer a refund instead."},
	}
	var msgs []tenure.Message
	for i, m := range say {
		msgs = append(msgs, tenure.Message{ID: fmt.Sprintf("m%d", i+1), Role: m.role, Speaker: m.speaker, Content: m.content})
	}
	digestEach(t, st, p, at, msgs)
	active, superseded := stateByStatus(t, st, p, "th")
	pick, ok := superseded["A replacement"]
	if !ok || active["Take a refund instead"].UID == "" || pick.ReplacedBy != active["Take a refund instead"].UID {
		t.Fatalf("the pick %+v, want superseded by the refund (active: %v)", pick, slices.Collect(maps.Keys(active)))
	}
	if !slices.Equal(pick.Alternatives, []string{"a refund"}) {
		t.Errorf("the pick set aside %q, want [a refund]", pick.Alternatives)
	}
	if _, ok := active["Use the courier pickup for the return"]; !ok {
		t.Errorf("the courier decision is gone: active %v", slices.Collect(maps.Keys(active)))
	}
}

// TestExtractStateReportedChanges: a report that a value changed
// ("Finance raised the budget ceiling to 95k euros", "we pushed the
// pipeline to March 21") supersedes the item whose value it changes, in
// one batch or across runs, and keeps a task's owner with its new due
// date.
func TestExtractStateReportedChanges(t *testing.T) {
	p, at, st := eveStore(t)
	ctx := t.Context()
	msgs := []tenure.Message{
		{ID: "m1", Speaker: "Omar", Content: "The budget can't go over 80k euros."},
		{ID: "m2", Speaker: "Sam", Content: "Marco will set up the ingestion pipeline by Friday March 14."},
		{ID: "m3", Speaker: "Lena", Content: "Good news: finance raised the budget ceiling to 95k euros."},
		{ID: "m4", Speaker: "Sam", Content: "We pushed the ingestion pipeline to March 21."},
	}
	for i := range msgs {
		msgs[i].ThreadID, msgs[i].Role, msgs[i].CreatedAt = "th", "user", at.Add(time.Duration(i)*time.Minute)
	}
	// The first two in one run, the changes in the next.
	for _, batch := range [][]tenure.Message{msgs[:2], msgs[2:]} {
		if _, err := st.AppendMessages(ctx, p, batch); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ExtractState(ctx, p, "th", extract.NewRules(extract.RulesOptions{})); err != nil {
			t.Fatal(err)
		}
	}
	active, superseded := stateByStatus(t, st, p, "th")
	for old, by := range map[string]string{
		"The budget can't go over 80k euros":             "Finance raised the budget ceiling to 95k euros",
		"Set up the ingestion pipeline by 14 March 2025": "We pushed the ingestion pipeline to 21 March 2025",
	} {
		it, ok := superseded[old]
		if !ok || it.ReplacedBy != active[by].UID {
			t.Errorf("%q: %+v, want superseded by %q (active: %v)", old, it, by, slices.Collect(maps.Keys(active)))
		}
	}
	if task := active["We pushed the ingestion pipeline to 21 March 2025"]; task.Owner != "Marco" || task.Due != "2025-03-21" {
		t.Errorf("moved task owner %q due %q, want Marco and 2025-03-21", task.Owner, task.Due)
	}
	if c := active["Finance raised the budget ceiling to 95k euros"]; c.Type != tenure.StateConstraint {
		t.Errorf("the new ceiling is a %s, want a constraint", c.Type)
	}
}

// TestExtractStateReversals replays the conversations of the issue with
// the rules extractor and no embedder: a reversal supersedes the decision
// it reverses, a changed number or version is never merged, an
// assistant's "OK" changes nothing, and a restatement merges.
func TestExtractStateReversals(t *testing.T) {
	p, at, st := eveStore(t)
	ctx := t.Context()
	say := []struct{ id, role, speaker, content string }{
		{"m03", "user", "Sam", "Let's use PostgreSQL for the analytics store."},
		{"m04", "user", "Sam", "Let's use Redis for caching."},
		{"m05", "user", "Priya", "The dashboard p95 must load in under 2 seconds."},
		{"m06", "user", "Marco", "Let's use PostgreSQL 15 for the primary database."},
		{"m07", "assistant", "", "OK, noted."},
		{"m14", "user", "Sam", "Update: we switched to ClickHouse for the analytics store instead of PostgreSQL."},
		{"m15", "user", "Sam", "Actually, we will use Memcached for caching instead of Redis."},
		{"m16", "user", "Priya", "Product relaxed it: the dashboard p95 must load in under 5 seconds."},
		{"m17", "user", "Marco", "Let's use PostgreSQL 16 for the primary database."},
		{"m18", "user", "Sam", "Marco will set up the ingestion pipeline by Friday March 14."},
		{"m19", "user", "Marco", "Reminder: let's use ClickHouse for the analytics store."},
	}
	var msgs []tenure.Message
	for _, m := range say {
		msgs = append(msgs, tenure.Message{ID: m.id, Role: m.role, Speaker: m.speaker, Content: m.content})
	}
	digestEach(t, st, p, at, msgs)
	active, superseded := stateByStatus(t, st, p, "th")
	var got []string
	for text := range active {
		got = append(got, text)
	}
	slices.Sort(got)
	want := []string{
		"Set up the ingestion pipeline by 14 March 2025",
		"Switch to ClickHouse for the analytics store instead of PostgreSQL",
		"The dashboard p95 must load in under 5 seconds",
		"Use Memcached for caching instead of Redis",
		"Use PostgreSQL 16 for the primary database",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("active items (-want +got):\n%s", diff)
	}
	for old, by := range map[string]string{
		"Use PostgreSQL for the analytics store":         "Switch to ClickHouse for the analytics store instead of PostgreSQL",
		"Use Redis for caching":                          "Use Memcached for caching instead of Redis",
		"The dashboard p95 must load in under 2 seconds": "The dashboard p95 must load in under 5 seconds",
		"Use PostgreSQL 15 for the primary database":     "Use PostgreSQL 16 for the primary database",
	} {
		it, ok := superseded[old]
		if !ok || it.ReplacedBy != active[by].UID || it.SupersessionEvidence == nil {
			t.Errorf("%q: %+v, want superseded by %q with evidence", old, it, by)
		}
	}
	if it := active["Switch to ClickHouse for the analytics store instead of PostgreSQL"]; !slices.Contains(it.Refs, "m19") {
		t.Errorf("the restatement was not merged: refs %v", it.Refs)
	}
	task := active["Set up the ingestion pipeline by 14 March 2025"]
	if task.Owner != "Marco" || task.Due != "2025-03-14" {
		t.Errorf("task owner %q due %q, want Marco and 2025-03-14", task.Owner, task.Due)
	}
	// The history line of a message whose item was superseded says what
	// holds now; the others say nothing of the kind.
	c := compile.New(st, compile.Options{Now: func() time.Time { return at.Add(time.Hour) }})
	env, _, err := c.Compile(ctx, compile.Request{Principal: p, Query: "Which store and cache do we use, and how fast must the dashboard be?",
		ThreadID: "th", Budget: 3000})
	if err != nil {
		t.Fatal(err)
	}
	text := env.Text()
	for _, line := range []string{
		"Sam: Let's use PostgreSQL for the analytics store. [since replaced: Switch to ClickHouse for the analytics store instead of PostgreSQL]",
		"Sam: Let's use Redis for caching. [since replaced: Use Memcached for caching instead of Redis]",
		"Priya: The dashboard p95 must load in under 2 seconds. [since replaced: The dashboard p95 must load in under 5 seconds]",
	} {
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf("history lacks the line %q:\n%s", line, text)
		}
	}
	if n := strings.Count(text, "since replaced"); n != 4 {
		t.Errorf("%d replacement notes, want 4 (the four superseded items):\n%s", n, text)
	}
}

// TestHistoryNotesWhatReplaced: a message that stated an item since
// superseded and one that still holds names, in its history line, which
// item was replaced and by what.
func TestHistoryNotesWhatReplaced(t *testing.T) {
	p, at, st := eveStore(t)
	ctx := t.Context()
	for i, content := range []string{
		"Let's use Redis for caching. The API must respond in under 200 ms.",
		"Actually, we will use Memcached for caching instead of Redis.",
	} {
		msg := tenure.Message{ThreadID: "th", ID: fmt.Sprint("m", i+1), Role: "user", Speaker: "Ann", Content: content,
			CreatedAt: at.Add(time.Duration(i) * time.Minute)}
		if _, err := st.AppendMessages(ctx, p, []tenure.Message{msg}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ExtractState(ctx, p, "th", extract.NewRules(extract.RulesOptions{})); err != nil {
			t.Fatal(err)
		}
	}
	c := compile.New(st, compile.Options{Now: func() time.Time { return at.Add(time.Hour) }})
	env, _, err := c.Compile(ctx, compile.Request{Principal: p, Query: "Which cache do we use?", ThreadID: "th", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	want := "Ann: Let's use Redis for caching. The API must respond in under 200 ms. " +
		"[since replaced: Use Redis for caching → Use Memcached for caching instead of Redis]"
	if !strings.Contains(env.Text(), "\n"+want+"\n") {
		t.Errorf("history lacks the line %q:\n%s", want, env.Text())
	}
}

// eveStore opens an empty SQLite store for the extraction tests, with
// their principal and the time their conversations start.
func eveStore(t *testing.T) (tenure.Principal, time.Time, *sqlite.Store) {
	t.Helper()
	st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
	if err := st.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := tenure.Principal{UserID: "eve", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	return p, time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC), st
}
