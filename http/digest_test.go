package http_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/llm"
	"github.com/tenure-dev/tenure/llm/openai"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
)

var (
	t0 = time.Date(2025, 5, 8, 10, 0, 0, 0, time.UTC)
	// redisUID is the decision "Let's use Redis for caching." yields.
	redisUID = tenure.StateUID(tenure.StateDecision, "Use Redis for caching")
)

// redisThread is a thread whose first user turn is a decision.
func redisThread(thread string) []tenure.Message {
	return []tenure.Message{
		{ThreadID: thread, ID: "m1", Role: "user", Speaker: "Ann", Content: "Let's use Redis for caching.", CreatedAt: t0},
		{ThreadID: thread, ID: "m2", Role: "assistant", Speaker: "Bot", Content: "OK, Redis it is.", CreatedAt: t0.Add(time.Minute)},
	}
}

// turn is one more user message of thread.
func turn(thread string, i int) tenure.Message {
	return tenure.Message{ThreadID: thread, ID: fmt.Sprintf("u%d", i), Role: "user", Speaker: "Ann",
		Content: fmt.Sprintf("Note number %d about the rollout.", i), CreatedAt: t0.Add(time.Duration(i+2) * time.Minute)}
}

// rulesDigester digests with the rules and the extractive summarizer, a
// rolling summary every user turn.
func rulesDigester(st *sqlite.Store) tenurehttp.Digester {
	return tenurehttp.NewDigester(st, extract.NewRules(extract.RulesOptions{}), summarize.NewExtractive(summarize.Options{}),
		engine.SummaryOptions{RollingEvery: 1})
}

// llmDigester digests with a model: the LLM extractor, and the LLM
// summarizer falling back to the extractive one.
func llmDigester(st *sqlite.Store, c llm.Completer) tenurehttp.Digester {
	sum := summarize.Fallback(summarize.NewLLM(c, summarize.Options{}), summarize.NewExtractive(summarize.Options{}))
	return tenurehttp.NewDigester(st, extract.NewLLM(c, extract.LLMOptions{}), sum, engine.SummaryOptions{RollingEvery: 1})
}

// failingModel is an OpenAI-compatible endpoint that answers every chat
// completion with 503 and an OpenAI error body.
func failingModel(t *testing.T) llm.Completer {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"The engine is currently overloaded","type":"server_error","param":null,"code":null}}`)
	}))
	t.Cleanup(ts.Close)
	return openai.NewCompleter(openai.CompleterOptions{BaseURL: ts.URL + "/v1", Model: "test-model"})
}

// digestEnv is an env whose server digests with dig.
func digestEnv(t *testing.T, dig func(*sqlite.Store) tenurehttp.Digester, opts ...func(*tenurehttp.ServerOptions)) *env {
	t.Helper()
	return newStoreEnv(t, func(st *sqlite.Store, o *tenurehttp.ServerOptions) {
		o.Digester = dig(st)
		for _, opt := range opts {
			opt(o)
		}
	})
}

func manual(o *tenurehttp.ServerOptions) { o.ManualDigest = true }

// appendMsgs appends msgs as the key's principal, failing the test when
// the append fails or does not answer within 10 seconds.
func (e *env) appendMsgs(secret string, msgs ...tenure.Message) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	res, err := e.client(secret).AppendMessages(ctx, tenure.Principal{}, msgs)
	if err != nil || res.Appended != len(msgs) {
		e.t.Fatalf("append = %+v, %v; want %d appended", res, err, len(msgs))
	}
}

// stateItem returns p's state item uid of thread, or a not-found error.
func (e *env) stateItem(p tenure.Principal, thread, uid string) (tenure.Object, error) {
	return e.store.CurrentValue(e.ctx, p, engine.StateKey(thread, uid), tenure.Read{})
}

// eventually polls cond until it holds, failing the test after a
// generous deadline.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not after 20s", what)
		}
	}
}

// eventuallyMetric polls /metrics until it has the line want: a
// background digest records itself after its writes are visible.
func (e *env) eventuallyMetric(want string) {
	e.t.Helper()
	eventually(e.t, "metric "+want, func() bool { return strings.Contains(e.call("GET", "/metrics", e.monitor, "").body, want) })
}

// wantMetrics checks that /metrics has every line of want.
func (e *env) wantMetrics(want ...string) {
	e.t.Helper()
	body := e.call("GET", "/metrics", e.monitor, "").body
	for _, w := range want {
		if !strings.Contains(body, w) {
			e.t.Errorf("metrics lack %q", w)
		}
	}
}

func TestExtract(t *testing.T) {
	e := digestEnv(t, rulesDigester, manual)
	c := e.client(e.alice)
	e.appendMsgs(e.alice, redisThread("p1")...)

	res, err := c.Extract(e.ctx, "p1", true)
	if err != nil || res.Err() != nil {
		t.Fatalf("Extract = %+v, %v", res, err)
	}
	if res.State.Messages != 2 || res.State.ItemsInserted == 0 || res.State.ThreadID != "p1" {
		t.Errorf("state = %+v, want items from 2 messages", res.State)
	}
	if res.State.Extractor != "rules" {
		t.Errorf("state.extractor = %q, want rules (a name, never a Go type's)", res.State.Extractor)
	}
	if res.Summary == nil || res.Summary.Rolling == nil || !strings.Contains(res.Summary.Rolling.Content, "Redis") {
		t.Errorf("summary = %+v, want a rolling summary mentioning Redis", res.Summary)
	}
	o, err := e.stateItem(aliceP, "p1", redisUID)
	if err != nil || o.StateItem == nil || o.StateItem.Type != tenure.StateDecision {
		t.Fatalf("state item %s: %+v, %v", redisUID, o, err)
	}
	x, err := c.Expand(e.ctx, tenure.Principal{}, tenure.ExpandRequest{UID: redisUID})
	if err != nil || len(x.Messages) == 0 || x.Messages[0].ID != "m1" {
		t.Errorf("expand %s = %+v, %v; want message m1", redisUID, x, err)
	}

	again, err := c.Extract(e.ctx, "p1", false)
	if err != nil || again.State.SkippedReason != "no_new_messages" || again.Summary != nil {
		t.Errorf("second Extract = %+v, %v; want nothing new and no summary channel", again, err)
	}
	e.wantMetrics(
		`tenure_extraction_runs_total{channel="state",outcome="ok",reason="",trigger="request"} 1`,
		`tenure_extraction_runs_total{channel="state",outcome="skipped",reason="no_new_messages",trigger="request"} 1`,
		`tenure_extraction_runs_total{channel="summary",outcome="ok",reason="",trigger="request"} 1`,
		fmt.Sprintf(`tenure_extraction_items_total{action="inserted"} %d`, res.State.ItemsInserted),
		`tenure_digest_duration_seconds_count{trigger="request"} 2`,
	)
}

func TestExtractBadInput(t *testing.T) {
	e := digestEnv(t, rulesDigester, manual)
	e.appendMsgs(e.alice, redisThread("p1")...)
	for _, tc := range []struct {
		name, path, body string
		status           int
		code             tenure.Code
		field            string
	}{
		{"ErrNoThread", "/v1/extract", `{}`, 400, tenure.CodeInvalid, "thread_id"},
		{"ErrEmptyThread", "/v1/extract", `{"thread_id":""}`, 400, tenure.CodeInvalid, "thread_id"},
		{"ErrUnknownField", "/v1/extract", `{"thread_id":"p1","sumaries":false}`, 400, tenure.CodeInvalid, "sumaries"},
		{"ErrWrongType", "/v1/extract", `{"thread_id":"p1","summaries":"yes"}`, 400, tenure.CodeInvalid, "summaries"},
		{"ErrThreadType", "/v1/extract", `{"thread_id":7}`, 400, tenure.CodeInvalid, "thread_id"},
		{"ErrMalformed", "/v1/extract", `{"thread_id":"p1"`, 400, tenure.CodeInvalid, ""},
		{"ErrNoBody", "/v1/extract", ``, 400, tenure.CodeInvalid, ""},
		{"ErrQuery", "/v1/extract?thread_id=p1", `{"thread_id":"p1"}`, 400, tenure.CodeInvalid, "thread_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("POST", tc.path, e.alice, tc.body)
			b := r.errBody(t)
			if r.status != tc.status || b.Code != tc.code || b.Field != tc.field {
				t.Errorf("status %d %+v, want %d %s naming %q", r.status, b, tc.status, tc.code, tc.field)
			}
		})
	}
	if n := e.count(); n != 0 {
		t.Errorf("bad extract requests stored %d object versions", n)
	}
	// The watermarks did not move: the messages are all still pending.
	res, err := e.client(e.alice).Extract(e.ctx, "p1", true)
	if err != nil || res.State.Messages != 2 || res.State.ItemsInserted == 0 {
		t.Errorf("Extract after the bad requests = %+v, %v; want the 2 messages", res.State, err)
	}
}

// TestExtractTenantIsolation checks that another tenant extracting the
// same thread id sees none of the first tenant's messages and moves none
// of its watermarks.
func TestExtractTenantIsolation(t *testing.T) {
	e := digestEnv(t, rulesDigester, manual)
	e.appendMsgs(e.alice, redisThread("p1")...)

	res, err := e.client(e.bob).Extract(e.ctx, "p1", true)
	if err != nil || res.Err() != nil {
		t.Fatalf("bob's Extract = %+v, %v", res, err)
	}
	if res.State.Messages != 0 || res.State.SkippedReason != "no_new_messages" || res.State.ItemsInserted != 0 {
		t.Errorf("bob's state = %+v, want nothing to read", res.State)
	}
	if res.Summary == nil || res.Summary.Rolling != nil || len(res.Summary.Sessions) != 0 {
		t.Errorf("bob's summary = %+v, want nothing written", res.Summary)
	}
	if objs, err := e.client(e.bob).List(e.ctx, tenure.Principal{}, tenure.Filter{}); err != nil || len(objs) != 0 {
		t.Errorf("bob lists %d objects, %v; want none", len(objs), err)
	}
	if n := e.count(); n != 0 {
		t.Errorf("bob's extract stored %d object versions", n)
	}
	got, err := e.client(e.alice).Extract(e.ctx, "p1", true)
	if err != nil || got.State.Messages != 2 || got.State.ItemsInserted == 0 {
		t.Errorf("alice's Extract after bob's = %+v, %v; want her 2 messages", got.State, err)
	}
}

func TestExtractUnconfigured(t *testing.T) {
	e := newEnv(t)
	e.appendMsgs(e.alice, redisThread("p1")...)
	_, err := e.client(e.alice).Extract(e.ctx, "p1", true)
	wantError(t, err, tenure.CodeUnavailable, "")
	if n := e.count(); n != 0 {
		t.Errorf("stored %d object versions without a digester", n)
	}
}

// TestExtractChannelErrors checks the status rule: a failed channel is
// reported with 200 when the other ran, and is the call's error when it
// was the only one.
func TestExtractChannelErrors(t *testing.T) {
	model := failingModel(t)
	e := digestEnv(t, func(st *sqlite.Store) tenurehttp.Digester { return llmDigester(st, model) }, manual)
	e.appendMsgs(e.alice, redisThread("p1")...)
	c := e.client(e.alice)

	t.Run("ErrOnlyChannel", func(t *testing.T) {
		r := e.call("POST", "/v1/extract", e.alice, `{"thread_id":"p1","summaries":false}`)
		if b := r.errBody(t); r.status != 503 || b.Code != tenure.CodeUnavailable {
			t.Errorf("state only, model down: %d %+v; want 503 unavailable", r.status, b)
		}
		_, err := c.Extract(e.ctx, "p1", false)
		wantError(t, err, tenure.CodeUnavailable, "")
	})
	t.Run("OKPartial", func(t *testing.T) {
		res, err := c.Extract(e.ctx, "p1", true)
		if err != nil {
			t.Fatalf("Extract: %v; want 200 with the state channel's error", err)
		}
		if res.StateError == nil || res.StateError.Code != tenure.CodeUnavailable {
			t.Errorf("state_error = %+v, want unavailable", res.StateError)
		}
		if res.SummaryError != nil || res.Summary == nil || res.Summary.Rolling == nil {
			t.Errorf("summary = %+v, %+v; want the extractive rolling summary", res.Summary, res.SummaryError)
		}
	})
	if _, err := e.stateItem(aliceP, "p1", redisUID); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("state item with the model down: %v, want none", err)
	}
	e.wantMetrics(`tenure_extraction_runs_total{channel="state",outcome="error",reason="unavailable",trigger="request"} 3`)
}

// TestBackgroundDigest checks that an append is followed by a digest of
// its thread, as the appending principal.
func TestBackgroundDigest(t *testing.T) {
	e := digestEnv(t, rulesDigester)
	e.appendMsgs(e.alice, redisThread("p1")...)
	eventually(t, "the state item of the appended decision", func() bool {
		_, err := e.stateItem(aliceP, "p1", redisUID)
		return err == nil
	})
	eventually(t, "the rolling summary", func() bool {
		_, err := e.store.CurrentValue(e.ctx, aliceP, engine.RollingKey("p1"), tenure.Read{})
		return err == nil
	})
	// The digest ran as alice: another user of her tenant does not see
	// what it wrote.
	other := tenure.Principal{TenantID: "acme", UserID: "carol", Authority: "employee", Clearance: tenure.Restricted}
	if _, err := e.stateItem(other, "p1", redisUID); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("carol reads alice's state item: %v", err)
	}
	e.eventuallyMetric(`tenure_extraction_runs_total{channel="state",outcome="ok",reason="",trigger="append"} 1`)
	e.wantMetrics(`tenure_digest_requests_total{result="queued"} 1`, `tenure_digest_duration_seconds_count{trigger="append"} 1`)
}

// TestBackgroundDigestFailingExtractor checks that a model that fails
// never fails the append, and that the summaries are still written.
func TestBackgroundDigestFailingExtractor(t *testing.T) {
	model := failingModel(t)
	e := digestEnv(t, func(st *sqlite.Store) tenurehttp.Digester { return llmDigester(st, model) })
	e.appendMsgs(e.alice, redisThread("p1")...)
	eventually(t, "the rolling summary", func() bool {
		_, err := e.store.CurrentValue(e.ctx, aliceP, engine.RollingKey("p1"), tenure.Read{})
		return err == nil
	})
	e.eventuallyMetric(`tenure_extraction_runs_total{channel="state",outcome="error",reason="unavailable",trigger="append"} 1`)
	if _, err := e.stateItem(aliceP, "p1", redisUID); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("state item with the model down: %v, want none", err)
	}
	msgs, err := e.client(e.alice).Messages(e.ctx, tenure.Principal{}, tenure.MessageFilter{ThreadID: "p1"})
	if err != nil || len(msgs) != 2 {
		t.Errorf("messages after the failed digest: %d, %v; want both", len(msgs), err)
	}
}

// gate holds the first digest through it until release is closed, or
// until the digest's context ends.
type gate struct {
	once     sync.Once
	entered  chan struct{}
	release  chan struct{}
	canceled atomic.Bool
	runs     atomic.Int32
	active   atomic.Int32
	overlap  atomic.Bool // two digests ran at once
}

func newGate() *gate { return &gate{entered: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) wrap(d tenurehttp.Digester) tenurehttp.Digester {
	return tenurehttp.DigestFunc(func(ctx context.Context, p tenure.Principal, thread string, summaries bool) engine.DigestResult {
		if g.active.Add(1) > 1 {
			g.overlap.Store(true)
		}
		defer g.active.Add(-1)
		g.runs.Add(1)
		g.once.Do(func() { close(g.entered) })
		select {
		case <-g.release:
		case <-ctx.Done():
			g.canceled.Store(true)
			err := &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: ctx.Err()}
			return engine.DigestResult{StateError: err, SummaryError: err}
		}
		return d.Digest(ctx, p, thread, summaries)
	})
}

// TestBackgroundDigestCoalesces checks that appends never wait for a
// running digest, that digests of a thread never overlap, and that the
// appends made while one runs are folded into one more run.
func TestBackgroundDigestCoalesces(t *testing.T) {
	g := newGate()
	e := digestEnv(t, func(st *sqlite.Store) tenurehttp.Digester { return g.wrap(rulesDigester(st)) })
	e.appendMsgs(e.alice, redisThread("p1")...)
	<-g.entered
	for i := range 4 {
		e.appendMsgs(e.alice, turn("p1", i)) // would time out if it waited for the digest
	}
	requested := make(chan error, 1)
	go func() {
		_, err := e.client(e.alice).Extract(e.ctx, "p1", true)
		requested <- err
	}()
	close(g.release)
	if err := <-requested; err != nil {
		t.Errorf("requested Extract while a background digest ran: %v", err)
	}
	eventually(t, "the coalesced re-run", func() bool { return g.runs.Load() >= 3 })
	sctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	if err := e.srv.StopDigests(sctx); err != nil {
		t.Fatal(err)
	}
	if n := g.runs.Load(); n != 3 {
		t.Errorf("%d digests ran; want 3: the first, one for the 4 appends made meanwhile, the requested one", n)
	}
	if g.overlap.Load() {
		t.Errorf("two digests of the thread ran at once")
	}
	if _, err := e.stateItem(aliceP, "p1", redisUID); err != nil {
		t.Errorf("state item: %v", err)
	}
	e.wantMetrics(`tenure_digest_requests_total{result="queued"} 1`, `tenure_digest_requests_total{result="coalesced"} 4`)
}

// TestDigestShutdown checks that Serve's shutdown waits for a running
// background digest, and cancels it after the shutdown timeout.
func TestDigestShutdown(t *testing.T) {
	start := func(t *testing.T, timeout time.Duration) (*env, *gate, chan error) {
		t.Helper()
		base := newEnv(t)
		g := newGate()
		srv := tenurehttp.NewServer(base.store, base.store, tenurehttp.ServerOptions{Digester: g.wrap(rulesDigester(base.store)),
			ShutdownTimeout: timeout})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ctx, ln) }()
		t.Cleanup(func() { stop(); close(g.release) })
		base.url = "http://" + ln.Addr().String()
		base.appendMsgs(base.alice, redisThread("p1")...)
		<-g.entered
		stop() // SIGTERM
		return base, g, served
	}
	t.Run("OK", func(t *testing.T) {
		e, g, served := start(t, 20*time.Second)
		time.Sleep(50 * time.Millisecond)
		select {
		case err := <-served:
			t.Fatalf("Serve returned %v with a digest running", err)
		default:
		}
		g.release <- struct{}{} // let the digest through; the cleanup closes release
		if err := <-served; err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if _, err := e.stateItem(aliceP, "p1", redisUID); err != nil {
			t.Errorf("state item of the digest running at shutdown: %v", err)
		}
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		e, g, served := start(t, 100*time.Millisecond)
		err := <-served
		wantError(t, err, tenure.CodeTimeout, "")
		if !g.canceled.Load() {
			t.Errorf("the digest running at the shutdown timeout was not canceled")
		}
		if _, err := e.stateItem(aliceP, "p1", redisUID); tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("canceled digest wrote its state item: %v", err)
		}
	})
}
