package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/summarize"
)

// StateFactory opens a fresh store configured with opt.
type StateFactory func(t *testing.T, now func() time.Time, opt engine.StateOptions) StateStore

// StateStore is what the structured-state conformance tests need.
type StateStore interface {
	MessageStore
	ExtractState(ctx context.Context, p tenure.Principal, thread string, x extract.Extractor) (tenure.ExtractionResult, error)
	Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error)
	Summarize(ctx context.Context, p tenure.Principal, thread string, s engine.Summarizer, opt engine.SummaryOptions) (engine.SummaryResult, error)
}

// RunState runs the structured-state conformance suite.
func RunState(t *testing.T, f StateFactory) {
	t.Run("InsertAndWatermark", func(t *testing.T) { testStateInsert(t, f) })
	t.Run("SkipNoUserMessages", func(t *testing.T) { testStateSkipAssistant(t, f) })
	t.Run("MergeRoundTrip", func(t *testing.T) { testStateMerge(t, f) })
	t.Run("SupersedeWithEvidence", func(t *testing.T) { testStateSupersede(t, f) })
	t.Run("ConflictBothSides", func(t *testing.T) { testStateConflict(t, f) })
	t.Run("NoCrossTypeMerge", func(t *testing.T) { testStateCrossType(t, f) })
	t.Run("RefsAndCap", func(t *testing.T) { testStateRefsAndCap(t, f) })
	t.Run("WatermarkTieBreaker", func(t *testing.T) { testStateTieBreaker(t, f) })
	t.Run("ExtractorFailure", func(t *testing.T) { testStateExtractorFails(t, f) })
	t.Run("Expand", func(t *testing.T) { testStateExpand(t, f) })
	t.Run("Facts", func(t *testing.T) { testStateFacts(t, f) })
	t.Run("WatermarkPerUser", func(t *testing.T) { testStateWatermarkPerUser(t, f) })
	t.Run("Summaries", func(t *testing.T) { testSummaries(t, f) })
	t.Run("SummaryChannelsFailApart", func(t *testing.T) { testSummaryFailure(t, f) })
}

// script is an extractor that answers from a function of the batch.
type script func(b extract.Batch) (extract.Result, error)

func (s script) Extract(_ context.Context, b extract.Batch) (extract.Result, error) { return s(b) }

// fixed returns the same candidates for every batch.
func fixed(items ...extract.Candidate) script {
	return func(extract.Batch) (extract.Result, error) { return extract.Result{Items: items}, nil }
}

func cand(typ tenure.StateType, text, status string, refs ...string) extract.Candidate {
	return extract.Candidate{Item: tenure.StateItem{Type: typ, Text: text, Status: status, Confidence: tenure.ConfidenceMedium,
		Refs: refs, TopicTags: []string{"caching"}}}
}

// vectors is an embedder with set vectors per text; unknown texts get a
// vector orthogonal to every set one.
type vectors map[string][]float32

func (v vectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if x, ok := v[t]; ok {
			out[i] = x
		} else {
			out[i] = []float32{0, 0, 0, 1}
		}
	}
	return out, nil
}

// unit returns a unit vector at cosine c to (1, 0, 0, 0).
func unit(c float64) []float32 {
	return []float32{float32(c), float32(sqrt(1 - c*c)), 0, 0}
}

func sqrt(x float64) float64 {
	z := x
	for range 30 {
		if z == 0 {
			return 0
		}
		z -= (z*z - x) / (2 * z)
	}
	return z
}

type stateEnv struct {
	t     *testing.T
	s     StateStore
	clock *Clock
	ctx   context.Context
}

func newStateEnv(t *testing.T, f StateFactory, opt engine.StateOptions) *stateEnv {
	t.Helper()
	c := NewClock(T0)
	return &stateEnv{t: t, s: f(t, c.Now, opt), clock: c, ctx: t.Context()}
}

func (e *stateEnv) append(p tenure.Principal, msgs ...tenure.Message) {
	e.t.Helper()
	if _, err := e.s.AppendMessages(e.ctx, p, msgs); err != nil {
		e.t.Fatalf("append: %v", err)
	}
}

func (e *stateEnv) extract(p tenure.Principal, thread string, x extract.Extractor) tenure.ExtractionResult {
	e.t.Helper()
	r, err := e.s.ExtractState(e.ctx, p, thread, x)
	if err != nil {
		e.t.Fatalf("extract: %v", err)
	}
	return r
}

// items returns the thread's current state items by uid.
func (e *stateEnv) items(p tenure.Principal, thread string) map[string]tenure.StateItem {
	e.t.Helper()
	objs, err := e.s.List(e.ctx, p, tenure.Filter{KeyPrefix: engine.StateKey(thread, "")})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]tenure.StateItem{}
	for _, o := range objs {
		if o.StateItem != nil {
			out[o.StateItem.UID] = *o.StateItem
		}
	}
	return out
}

func at(min int) time.Time { return time.Date(2023, 5, 8, 13, min, 0, 0, time.UTC) }

func role(m tenure.Message, r string) tenure.Message { m.Role = r; return m }

func testStateInsert(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, msg("th", "m1", "Eve", "Let's use Redis for caching", at(0)), role(msg("th", "m2", "Bot", "OK", at(1)), "assistant"))
	r := e.extract(employee, "th", fixed(cand(tenure.StateDecision, "Use Redis for caching", "active", "m1", "m2")))
	if r.ItemsInserted != 1 || r.Messages != 2 || r.Watermark == nil || r.Watermark.MessageID != "m2" {
		t.Fatalf("result = %+v, want 1 inserted from 2 messages, watermark m2", r)
	}
	uid := tenure.StateUID(tenure.StateDecision, "Use Redis for caching")
	got, ok := e.items(employee, "th")[uid]
	if !ok {
		t.Fatalf("item %s not stored", uid)
	}
	if got.Status != "active" || !got.LastSeenAt.Equal(at(1)) || got.ThreadID != "th" || !slices.Equal(got.Refs, []string{"m1", "m2"}) {
		t.Errorf("item = %+v, want active, last_seen_at %v (newest ref), refs m1 m2", got, at(1))
	}
	r = e.extract(employee, "th", fixed(cand(tenure.StateDecision, "Use Redis for caching", "active", "m1")))
	if r.SkippedReason != "no_new_messages" || r.ItemsInserted+r.ItemsMerged != 0 {
		t.Errorf("second run = %+v, want skipped: no_new_messages", r)
	}
}

func testStateSkipAssistant(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, role(msg("th", "a1", "Bot", "Shall we use Redis?", at(0)), "assistant"))
	calls := 0
	x := script(func(b extract.Batch) (extract.Result, error) {
		calls++
		return extract.Result{}, nil
	})
	if r := e.extract(employee, "th", x); r.SkippedReason != "no_user_messages" || calls != 0 {
		t.Fatalf("result = %+v after %d extractor calls, want skipped: no_user_messages without a call", r, calls)
	}
	e.append(employee, msg("th", "u1", "Eve", "Yes, use Redis", at(1)))
	var seen []string
	x = script(func(b extract.Batch) (extract.Result, error) {
		for _, m := range b.Messages {
			seen = append(seen, m.ID)
		}
		return extract.Result{}, nil
	})
	e.extract(employee, "th", x)
	if !slices.Equal(seen, []string{"a1", "u1"}) {
		t.Errorf("batch = %v, want the skipped assistant message kept: [a1 u1]", seen)
	}
}

func testStateMerge(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, msg("th", "m1", "Eve", "I'll set up connection pooling", at(0)))
	e.extract(employee, "th", fixed(cand(tenure.StateAction, "Set up connection pooling", "open", "m1")))
	e.append(employee, msg("th", "m2", "Eve", "Connection pooling is set up, done", at(5)))
	c := cand(tenure.StateAction, "set up  connection pooling", "done", "m2")
	c.Item.Confidence = tenure.ConfidenceHigh
	c.Item.TopicTags = []string{"db"}
	r := e.extract(employee, "th", fixed(c))
	if r.ItemsMerged != 1 || r.ItemsInserted != 0 {
		t.Fatalf("result = %+v, want one merge", r)
	}
	items := e.items(employee, "th")
	got := items[tenure.StateUID(tenure.StateAction, "Set up connection pooling")]
	want := tenure.StateItem{Status: "done", Confidence: tenure.ConfidenceHigh, Refs: []string{"m1", "m2"}, TopicTags: []string{"caching", "db"}}
	if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool {
		n := p.Last().String()
		return n != ".Status" && n != ".Confidence" && n != ".Refs" && n != ".TopicTags"
	}, cmp.Ignore())); diff != "" || len(items) != 1 || !got.LastSeenAt.Equal(at(5)) {
		t.Errorf("merged item (-want +got):\n%s\nlast_seen_at %v (want %v), %d items", diff, got.LastSeenAt, at(5), len(items))
	}
	// A merge from an older message never moves last_seen_at back, and a
	// weaker status never wins.
	e.append(employee, msg("th", "m3", "Eve", "pooling", at(6)))
	old := cand(tenure.StateAction, "Set up connection pooling", "open", "m3")
	e.extract(employee, "th", fixed(old))
	got = e.items(employee, "th")[tenure.StateUID(tenure.StateAction, "Set up connection pooling")]
	if got.Status != "done" || !got.LastSeenAt.Equal(at(6)) {
		t.Errorf("after an open re-mention: status %s last_seen_at %v, want done and %v", got.Status, got.LastSeenAt, at(6))
	}
}

func testStateSupersede(t *testing.T, f StateFactory) {
	const oldText, newText = "Use Redis for caching", "Switch to Memcached for caching instead of Redis"
	e := newStateEnv(t, f, engine.StateOptions{Embedder: vectors{oldText: unit(1), newText: unit(0.88)}})
	e.append(employee, msg("th", "m1", "Eve", "Let's use Redis for caching", at(0)))
	e.extract(employee, "th", fixed(cand(tenure.StateDecision, oldText, "active", "m1")))
	e.append(employee, msg("th", "m2", "Eve", "Let's switch to Memcached instead of Redis", at(1)))
	r := e.extract(employee, "th", fixed(cand(tenure.StateDecision, newText, "active", "m2")))
	if r.ItemsSuperseded != 1 || r.ItemsInserted != 1 || r.ItemsConflicted != 0 {
		t.Fatalf("result = %+v, want one supersession", r)
	}
	items := e.items(employee, "th")
	oldUID, newUID := tenure.StateUID(tenure.StateDecision, oldText), tenure.StateUID(tenure.StateDecision, newText)
	old, nu := items[oldUID], items[newUID]
	wantEv := &tenure.SupersessionEvidence{Trigger: "instead", RefMessageID: "m2", CandidateUID: newUID}
	if old.Status != "superseded" || old.ReplacedBy != newUID || !cmp.Equal(old.SupersessionEvidence, wantEv) {
		t.Errorf("old = %+v, want superseded by %s with evidence %+v", old, newUID, wantEv)
	}
	if nu.Status != "active" || nu.Conflict {
		t.Errorf("new = %+v, want active and not conflicting", nu)
	}
	// The superseded item is never resurrected by a later mention.
	e.append(employee, msg("th", "m3", "Eve", "Redis for caching was nice", at(2)))
	r = e.extract(employee, "th", fixed(cand(tenure.StateDecision, oldText, "active", "m3")))
	if r.Dropped["superseded_duplicate"] != 1 || e.items(employee, "th")[oldUID].Status != "superseded" {
		t.Errorf("re-mention: %+v, status %s; want dropped superseded_duplicate, still superseded", r, e.items(employee, "th")[oldUID].Status)
	}
}

func testStateConflict(t *testing.T, f StateFactory) {
	const a = "Use Redis for caching"
	// An assistant does not overrule the user: a changed value it states
	// marks both items conflicting. A user's changed value supersedes.
	for _, tc := range []struct {
		name, role   string
		wantConflict bool
	}{
		{"AssistantChangesValue", "assistant", true},
		{"UserChangesValue", "user", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const b = "Use Memcached for caching"
			e := newStateEnv(t, f, engine.StateOptions{})
			e.append(employee, msg("th", "m1", "Eve", a, at(0)))
			e.extract(employee, "th", fixed(cand(tenure.StateDecision, a, "active", "m1")))
			e.append(employee, msg("th", "u2", "Eve", "hm", at(1)), role(msg("th", "m2", "Bot", b, at(2)), tc.role))
			r := e.extract(employee, "th", fixed(cand(tenure.StateDecision, b, "active", "m2")))
			items := e.items(employee, "th")
			oldIt, newIt := items[tenure.StateUID(tenure.StateDecision, a)], items[tenure.StateUID(tenure.StateDecision, b)]
			switch {
			case tc.wantConflict && (r.ItemsConflicted != 1 || !oldIt.Conflict || !newIt.Conflict || oldIt.Status != "active"):
				t.Errorf("result %+v; old %+v; new %+v; want both active and conflicting", r, oldIt, newIt)
			case !tc.wantConflict && (r.ItemsSuperseded != 1 || oldIt.Status != "superseded" || newIt.Conflict):
				t.Errorf("result %+v; old %+v; new %+v; want the old one superseded", r, oldIt, newIt)
			}
		})
	}
	// Items whose slots do not decide are compared by a configured
	// embedder's similarity: in the band, they conflict.
	const b = "Keep session data in an in-memory store"
	for _, tc := range []struct {
		name   string
		cosine float64
		tags   []string
		want   string
	}{
		{"BandConflicts", 0.86, []string{"other"}, "conflict"},
		{"BelowBandInserts", 0.84, []string{"other"}, "insert"},
		{"TopicBoostLiftsIntoBand", 0.84, nil, "conflict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newStateEnv(t, f, engine.StateOptions{Embedder: vectors{a: unit(1), b: unit(tc.cosine)}})
			e.append(employee, msg("th", "m1", "Eve", a, at(0)))
			e.extract(employee, "th", fixed(cand(tenure.StateDecision, a, "active", "m1")))
			e.append(employee, msg("th", "m2", "Eve", b, at(1)))
			c := cand(tenure.StateDecision, b, "active", "m2")
			if tc.tags != nil {
				c.Item.TopicTags = tc.tags
			}
			r := e.extract(employee, "th", fixed(c))
			if got := map[bool]string{true: "conflict", false: "insert"}[r.ItemsConflicted == 1]; got != tc.want || r.ItemsInserted != 1 {
				t.Errorf("result %+v at %.2f, want %s", r, tc.cosine, tc.want)
			}
		})
	}
}

func testStateCrossType(t *testing.T, f StateFactory) {
	const text = "Use Redis for caching"
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, msg("th", "m1", "Eve", text, at(0)))
	e.extract(employee, "th", fixed(cand(tenure.StateDecision, text, "active", "m1")))
	e.append(employee, msg("th", "m2", "Eve", text+"?", at(1)))
	r := e.extract(employee, "th", fixed(cand(tenure.StateQuestion, text, "open", "m2")))
	if r.ItemsInserted != 1 || r.ItemsMerged != 0 || len(e.items(employee, "th")) != 2 {
		t.Errorf("result %+v, want the question inserted beside the decision", r)
	}
}

func testStateRefsAndCap(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{MaxCandidates: 2})
	e.append(employee, msg("th", "m1", "Eve", "a", at(0)), msg("other", "x1", "Eve", "b", at(0)))
	r := e.extract(employee, "th", fixed(
		cand(tenure.StateAction, "Invented ref", "open", "nope"),
		cand(tenure.StateAction, "Other thread ref", "open", "x1", "m1"),
		cand(tenure.StateAction, "Over the cap", "open", "m1"),
	))
	items := e.items(employee, "th")
	got := items[tenure.StateUID(tenure.StateAction, "Other thread ref")]
	if r.Dropped["no_valid_refs"] != 1 || r.Dropped["over_cap"] != 1 || len(items) != 1 || !slices.Equal(got.Refs, []string{"m1"}) {
		t.Errorf("result %+v, items %v; want one item with refs [m1], one no_valid_refs and one over_cap drop", r, items)
	}
}

func testStateTieBreaker(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{MaxMessages: 2})
	same := at(0)
	e.append(employee, msg("th", "z", "Eve", "first", same), msg("th", "a", "Eve", "second", same), msg("th", "m", "Eve", "third", same))
	var batches [][]string
	x := script(func(b extract.Batch) (extract.Result, error) {
		var ids []string
		for _, m := range b.Messages {
			ids = append(ids, m.ID)
		}
		batches = append(batches, ids)
		return extract.Result{}, nil
	})
	e.extract(employee, "th", x)
	e.extract(employee, "th", x)
	e.extract(employee, "th", x)
	want := [][]string{{"z", "a"}, {"m"}}
	if !cmp.Equal(batches, want) {
		t.Errorf("batches = %v, want %v (equal timestamps ordered by append position, none skipped or repeated)", batches, want)
	}
}

func testStateExtractorFails(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{Timeout: 50 * time.Millisecond})
	e.append(employee, msg("th", "m1", "Eve", "Let's use Redis", at(0)))
	failing := script(func(extract.Batch) (extract.Result, error) {
		return extract.Result{}, tenure.Errorf(tenure.CodeUnavailable, "", "model down")
	})
	if _, err := e.s.ExtractState(e.ctx, employee, "th", failing); tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	slow := slowExtractor{}
	if _, err := e.s.ExtractState(e.ctx, employee, "th", slow); tenure.ErrorCode(err) != tenure.CodeTimeout {
		t.Fatalf("slow extractor err = %v, want timeout", err)
	}
	// Nothing was consumed: the next run sees the same message.
	r := e.extract(employee, "th", fixed(cand(tenure.StateDecision, "Use Redis", "active", "m1")))
	if r.ItemsInserted != 1 || r.Messages != 1 {
		t.Errorf("after failures: %+v, want the message still pending", r)
	}
}

type slowExtractor struct{}

func (slowExtractor) Extract(ctx context.Context, _ extract.Batch) (extract.Result, error) {
	<-ctx.Done()
	return extract.Result{}, ctx.Err()
}

func testStateExpand(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, msg("th", "m1", "Eve", "Let's use Redis for caching", at(0)), msg("th", "m2", "Eve", "agreed", at(1)))
	e.extract(employee, "th", fixed(cand(tenure.StateDecision, "Use Redis for caching", "active", "m1", "m2")))
	uid := tenure.StateUID(tenure.StateDecision, "Use Redis for caching")
	x, err := e.s.Expand(e.ctx, employee, tenure.ExpandRequest{UID: uid})
	if err != nil {
		t.Fatal(err)
	}
	if x.Item.UID != uid || len(x.Messages) != 2 || x.Messages[0].Content != "Let's use Redis for caching" || len(x.Missing) != 0 {
		t.Errorf("expand = %+v, want the item and its two messages", x)
	}
	for _, p := range []tenure.Principal{cfo, outsider} {
		if _, err := e.s.Expand(e.ctx, p, tenure.ExpandRequest{UID: uid}); tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("expand as %s: err = %v, want not_found (another user's state)", p.UserID, err)
		}
	}
	if _, err := e.s.Expand(e.ctx, employee, tenure.ExpandRequest{}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("expand without uid: err = %v, want invalid", err)
	}
	if _, err := e.s.Expand(e.ctx, employee, tenure.ExpandRequest{UID: uid, ThreadID: "elsewhere"}); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("expand in another thread: err = %v, want not_found", err)
	}
}

func testStateFacts(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, msg("th", "m1", "Eve", "I live in Boston", at(0)))
	fact := func(value, ref string) script {
		return func(extract.Batch) (extract.Result, error) {
			return extract.Result{Facts: []extract.Fact{{Kind: extract.FactProfile, Subject: "Eve", Attribute: "lives_in",
				Value: value, Text: "Eve lives in " + value, Refs: []string{ref}, Confidence: tenure.ConfidenceHigh}}}, nil
		}
	}
	if r := e.extract(employee, "th", fact("Boston", "m1")); r.FactsWritten != 1 {
		t.Fatalf("result %+v, want one fact", r)
	}
	e.append(employee, msg("th", "m2", "Eve", "I moved to Denver", at(1)))
	e.extract(employee, "th", fact("Denver", "m2"))
	o, err := e.s.CurrentValue(e.ctx, employee, "profile|person|eve|fact:lives_in", tenure.Read{})
	if err != nil || o.Content != "Eve lives in Denver" {
		t.Errorf("current value = %q, %v; want the later fact", o.Content, err)
	}
	h, err := e.s.History(e.ctx, employee, "profile|person|eve|fact:lives_in", tenure.Scope{})
	var said []string
	for _, v := range h.Versions {
		if !slices.Contains(said, v.Content) {
			said = append(said, v.Content)
		}
	}
	if err != nil || !slices.Equal(said, []string{"Eve lives in Boston", "Eve lives in Denver"}) {
		t.Errorf("history = %v, %v; want both facts kept in order", said, err)
	}
}

func testSummaries(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	opt := engine.SummaryOptions{RollingEvery: 2, Inactivity: time.Hour}
	sum := summarize.NewExtractive(summarize.Options{})
	e.clock.Set(at(0).Add(time.Hour - time.Minute))
	e.append(employee, msg("th", "m1", "Eve", "I'll send the budget draft to Sam on Friday.", at(0)))
	r, err := e.s.Summarize(e.ctx, employee, "th", sum, opt)
	if err != nil || r.Rolling != nil || len(r.Sessions) != 0 {
		t.Fatalf("after one user turn: %+v, %v; want nothing due", r, err)
	}
	e.append(employee, msg("th", "m2", "Sam", "Great, the venue costs 4000 dollars.", at(1)))
	if r, err = e.s.Summarize(e.ctx, employee, "th", sum, opt); err != nil || r.Rolling == nil || len(r.Sessions) != 0 {
		t.Fatalf("after two user turns: %+v, %v; want a rolling summary and the session still open", r, err)
	}
	if !strings.Contains(r.Rolling.Content, "budget draft") {
		t.Errorf("rolling summary %q lost the commitment", r.Rolling.Content)
	}
	// A new session three hours later closes the first one.
	e.append(employee, msg("th", "m3", "Eve", "Sam, did the venue confirm?", at(180)), msg("th", "m4", "Sam", "Yes, it did.", at(181)))
	e.clock.Set(at(300))
	if r, err = e.s.Summarize(e.ctx, employee, "th", sum, opt); err != nil || r.Rolling == nil || len(r.Sessions) != 2 {
		t.Fatalf("later: %+v, %v; want a second rolling summary and both sessions summarized", r, err)
	}
	h, err := e.s.History(e.ctx, employee, engine.RollingKey("th"), tenure.Scope{})
	texts := map[string]bool{}
	for _, v := range h.Versions {
		texts[v.Content] = true
	}
	if err != nil || len(texts) != 2 {
		t.Errorf("rolling history holds %d texts, %v; want the earlier summary kept beside the new one", len(texts), err)
	}
	var ss summarize.SessionSummary
	if err := json.Unmarshal(r.Sessions[0].Value, &ss); err != nil || ss.OneLiner == "" || len(ss.Commitments) == 0 {
		t.Errorf("session summary = %+v, %v; want a one-liner and the commitment", ss, err)
	}
	if r, err = e.s.Summarize(e.ctx, employee, "th", sum, opt); err != nil || r.Rolling != nil || len(r.Sessions) != 0 {
		t.Errorf("rerun = %+v, %v; want nothing new", r, err)
	}
}

// brokenRolling fails rolling summaries and delegates session summaries.
type brokenRolling struct{ engine.Summarizer }

func (brokenRolling) Rolling(context.Context, string, []tenure.Message) (string, error) {
	return "", tenure.Errorf(tenure.CodeUnavailable, "", "model down")
}

func testSummaryFailure(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	e.append(employee, msg("th", "m1", "Eve", "Let's book the venue.", at(0)), msg("th", "m2", "Sam", "I'll call them.", at(1)))
	e.clock.Set(at(300))
	r, err := e.s.Summarize(e.ctx, employee, "th", brokenRolling{summarize.NewExtractive(summarize.Options{})},
		engine.SummaryOptions{RollingEvery: 1})
	if tenure.ErrorCode(err) != tenure.CodeUnavailable || len(r.Sessions) != 1 {
		t.Errorf("result %+v, err %v; want the session summary written and the rolling failure reported", r, err)
	}
	if _, err := e.s.CurrentValue(e.ctx, employee, engine.RollingKey("th"), tenure.Read{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("rolling summary stored despite the failure: %v", err)
	}
}

// Two users share a thread id, each with messages only they can see: each
// reads at its own watermark, so neither skips the other's earlier turns.
func testStateWatermarkPerUser(t *testing.T, f StateFactory) {
	e := newStateEnv(t, f, engine.StateOptions{})
	mine := func(m tenure.Message, user string) tenure.Message { m.UserID = user; return m }
	e.append(cfo, mine(msg("th", "c1", "Cy", "Let's use Kafka for events", at(0)), "cfo"))
	e.append(employee, mine(msg("th", "e1", "Eve", "Let's use Redis for caching", at(1)), "eve"))
	ids := func(p tenure.Principal) []string {
		var seen []string
		e.extract(p, "th", script(func(b extract.Batch) (extract.Result, error) {
			for _, m := range b.Messages {
				seen = append(seen, m.ID)
			}
			return extract.Result{}, nil
		}))
		return seen
	}
	if got := ids(employee); !slices.Equal(got, []string{"e1"}) {
		t.Errorf("eve's batch = %v, want [e1]", got)
	}
	if got := ids(cfo); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("cfo's batch = %v, want [c1]: another user's watermark must not skip it", got)
	}
}
