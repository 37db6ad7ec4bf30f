package semantic_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/internal/embedtest"
	"github.com/tenure-dev/tenure/llm/openai"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
)

var (
	ada = tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	bob = tenure.Principal{UserID: "bob", TenantID: "private", Authority: "policy", Clearance: tenure.HighlyRestricted}
	t0  = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
)

// newModel returns a model over the fake server, without retries (a test
// must not sleep through backoffs).
func newModel(t *testing.T, srv *embedtest.Server, opt semantic.Options) *semantic.Model {
	t.Helper()
	m, err := semantic.New(openai.NewEmbedder(openai.EmbedderOptions{BaseURL: srv.URL(), Model: "fake", MaxRetries: -1}), opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newStore opens a store that embeds with m.
func newStore(t *testing.T, m *semantic.Model) *sqlite.Store {
	t.Helper()
	st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Embedding: m})
	if err := st.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// appendTurns appends texts as p's turns of thread, a minute apart.
func appendTurns(t *testing.T, st *sqlite.Store, p tenure.Principal, thread string, texts ...string) {
	t.Helper()
	msgs := make([]tenure.Message, len(texts))
	for i, s := range texts {
		msgs[i] = tenure.Message{ThreadID: thread, ID: fmt.Sprintf("%s-%d", thread, i), Role: "user", Content: s,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
	}
	if _, err := st.AppendMessages(context.Background(), p, msgs); err != nil {
		t.Fatal(err)
	}
}

// Messages are embedded a batch at a time, each distinct text once: texts
// a message repeats, or that were embedded before, send nothing.
func TestIndexBatchesAndCaches(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	m := newModel(t, srv, semantic.Options{BatchSize: 2})
	st := newStore(t, m)
	appendTurns(t, st, ada, "t1", "I bought an iPhone", "ok", "We drove the car to Lyon", "ok", "My dog is called Rex")
	var steps []int
	rep, err := st.EmbedMessages(ctx, "", "", func(done, total int) {
		steps = append(steps, done)
		if total != 5 {
			t.Errorf("progress total = %d, want 5", total)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := semantic.Report{Model: "openai:fake", Embedded: 5, Sent: 4, Requests: 2}
	if rep != want {
		t.Errorf("first index = %+v, want %+v", rep, want)
	}
	if len(steps) != 2 || steps[len(steps)-1] != 5 {
		t.Errorf("progress = %v, want two batches ending at 5", steps)
	}
	// Nothing left: nothing sent.
	if rep, err := st.EmbedMessages(ctx, "", "", nil); err != nil || rep.Embedded != 0 || srv.Requests() != 2 {
		t.Errorf("second index = %+v, %v, %d requests; want nothing done, 2 requests", rep, err, srv.Requests())
	}
	// Another thread repeating known texts: linked from the cache.
	appendTurns(t, st, ada, "t2", "ok", "My dog is called Rex", "A new text")
	rep, err = st.EmbedMessages(ctx, ada.TenantID, "t2", nil)
	want = semantic.Report{Model: "openai:fake", Embedded: 3, Cached: 2, Sent: 1, Requests: 1}
	if err != nil || rep != want {
		t.Errorf("index of t2 = %+v, %v; want %+v", rep, err, want)
	}
	if n := strings.Count(strings.Join(srv.Texts(), "\n"), "ok"); n != 1 {
		t.Errorf(`"ok" sent %d times, want 1`, n)
	}
}

// When the endpoint is down, what was embedded stays and the rest is left
// for the next run after the cooldown, which sends only what is missing.
func TestIndexResumesAfterOutage(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	now := t0
	m := newModel(t, srv, semantic.Options{BatchSize: 2, Cooldown: time.Minute, Now: func() time.Time { return now }})
	st := newStore(t, m)
	appendTurns(t, st, ada, "t1", "one", "two")
	if _, err := st.EmbedMessages(ctx, "", "", nil); err != nil {
		t.Fatal(err)
	}
	appendTurns(t, st, ada, "t2", "three", "four", "five")
	srv.SetDown(true)
	rep, err := st.EmbedMessages(ctx, "", "", nil)
	if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable {
		t.Fatalf("index while down: err = %v (%s), want unavailable", err, code)
	}
	if rep.Left != 3 || rep.Embedded != 0 {
		t.Errorf("index while down = %+v, want 3 left", rep)
	}
	srv.SetDown(false)
	sent := len(srv.Texts())
	if rep, err := st.EmbedMessages(ctx, "", "", nil); tenure.ErrorCode(err) != tenure.CodeUnavailable || rep.Left != 3 || len(srv.Texts()) != sent {
		t.Errorf("index in the cooldown = %+v, %v; want 3 left, nothing sent", rep, err)
	}
	now = now.Add(time.Minute)
	rep, err = st.EmbedMessages(ctx, "", "", nil)
	if err != nil || rep.Embedded != 3 || rep.Left != 0 {
		t.Errorf("index after the outage = %+v, %v; want 3 embedded", rep, err)
	}
	if got := srv.Texts()[sent:]; strings.Join(got, ",") != "three,four,five" {
		t.Errorf("sent after the outage %q, want three, four, five", got)
	}
}

// A text the endpoint refuses is found by halving its batch, recorded as
// refused and never sent again; the others are embedded.
func TestIndexRefusedText(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	srv.Refuse("TOO-LONG")
	m := newModel(t, srv, semantic.Options{})
	st := newStore(t, m)
	appendTurns(t, st, ada, "t1", "alpha", "beta TOO-LONG", "gamma", "delta")
	rep, err := st.EmbedMessages(ctx, "", "", nil)
	if err != nil || rep.Embedded != 3 || rep.Refused != 1 {
		t.Fatalf("index = %+v, %v; want 3 embedded, 1 refused", rep, err)
	}
	requests := srv.Requests()
	if rep, err := st.EmbedMessages(ctx, "", "", nil); err != nil || rep.Refused != 0 || srv.Requests() != requests {
		t.Errorf("second index = %+v, %v (%d requests, was %d); want nothing sent", rep, err, srv.Requests(), requests)
	}
}

// Nothing of a tenant, or of a message, the policy keeps local is ever
// sent: neither messages nor queries.
func TestPrivacyPolicy(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	m := newModel(t, srv, semantic.Options{
		Tenant:  func(tenant string) bool { return tenant == ada.TenantID },
		Message: func(msg *tenure.Message) bool { return !strings.Contains(msg.Content, "password") },
	})
	st := newStore(t, m)
	appendTurns(t, st, ada, "t1", "my phone broke", "the wifi password is hunter2")
	appendTurns(t, st, bob, "t1", "bob's medical history")
	rep, err := st.EmbedMessages(ctx, "", "", nil)
	if err != nil || rep.Embedded != 1 || rep.KeptLocal != 2 {
		t.Errorf("index = %+v, %v; want 1 embedded, 2 kept local", rep, err)
	}
	if rep, err := st.EmbedMessages(ctx, bob.TenantID, "t1", nil); err != nil || rep != (semantic.Report{Model: "openai:fake"}) {
		t.Errorf("index of the private tenant's thread = %+v, %v; want nothing read", rep, err)
	}
	if _, _, err := m.EmbedQuery(ctx, bob.TenantID, "medical"); err != semantic.ErrKeptLocal {
		t.Errorf("query of the private tenant: err = %v, want ErrKeptLocal", err)
	}
	for _, secret := range []string{"hunter2", "medical"} {
		if srv.Received(secret) {
			t.Errorf("the endpoint received %q: %q", secret, srv.Texts())
		}
	}
}

// Queries are cached; after a failure they fail at once, sending nothing,
// until the cooldown has passed.
func TestEmbedQuery(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	now := t0
	m := newModel(t, srv, semantic.Options{Cooldown: time.Minute, Now: func() time.Time { return now }})
	v, model, err := m.EmbedQuery(ctx, ada.TenantID, "my phone")
	if err != nil || model != "openai:fake" || len(v) != embedtest.Dims {
		t.Fatalf("EmbedQuery = %d dims, %q, %v", len(v), model, err)
	}
	if sim := semantic.Dot(v, semantic.Normalize(embedtest.Vector("iPhone"))); sim < 0.99 {
		t.Errorf("similarity of phone and iPhone = %.3f, want the fake's synonyms", sim)
	}
	if _, _, err := m.EmbedQuery(ctx, ada.TenantID, "my phone"); err != nil || srv.Requests() != 1 {
		t.Errorf("cached query: %v, %d requests; want 1", err, srv.Requests())
	}
	srv.SetDown(true)
	if _, _, err := m.EmbedQuery(ctx, ada.TenantID, "my car"); tenure.ErrorCode(err) != tenure.CodeUnavailable {
		t.Fatalf("query while down: %v, want unavailable", err)
	}
	srv.SetDown(false)
	now = now.Add(30 * time.Second)
	if _, _, err := m.EmbedQuery(ctx, ada.TenantID, "my car"); tenure.ErrorCode(err) != tenure.CodeUnavailable || srv.Requests() != 2 {
		t.Errorf("query in the cooldown: %v, %d requests; want unavailable, nothing sent", err, srv.Requests())
	}
	now = now.Add(time.Minute)
	if _, _, err := m.EmbedQuery(ctx, ada.TenantID, "my car"); err != nil {
		t.Errorf("query after the cooldown: %v", err)
	}
}

// The hashed n-gram embedder measures letters, not meaning: it never ranks
// history.
func TestNewRefusesHashEmbedder(t *testing.T) {
	if _, err := semantic.New(retrieve.NewHashEmbedder(0), semantic.Options{}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("New(hash embedder): err = %v, want invalid", err)
	}
	if _, err := semantic.New(retrieve.NewHashEmbedder(0), semantic.Options{Name: "mine"}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("New(hash embedder, named): err = %v, want invalid", err)
	}
}

// A query finds by meaning the turn that shares no word with it, in its
// reader's scope only.
func TestNearestMessages(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	m := newModel(t, srv, semantic.Options{})
	st := newStore(t, m)
	appendTurns(t, st, ada, "t1", "We talked about the weather", "I finally bought an iPhone yesterday", "Lunch was great",
		"Then we went home")
	appendTurns(t, st, bob, "t1", "my smartphone is cracked")
	if _, err := st.EmbedMessages(ctx, "", "", nil); err != nil {
		t.Fatal(err)
	}
	q, model, err := m.EmbedQuery(ctx, ada.TenantID, "Which phone?")
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.MessageCandidates(ctx, tenure.MessageQuery{Principal: ada, Text: "Which phone?", Vector: q, Model: model,
		VectorLimit: 1, Neighbors: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range got {
		ids = append(ids, fmt.Sprintf("%s near=%d embedded=%t", c.ID, c.Near, c.Embedded))
		if c.TenantID != ada.TenantID {
			t.Errorf("candidate of tenant %q", c.TenantID)
		}
	}
	want := "t1-1 near=1 embedded=true,t1-0 near=0 embedded=true,t1-2 near=0 embedded=true"
	if strings.Join(ids, ",") != want {
		t.Errorf("candidates = %q, want %q", ids, want)
	}
	if _, err := st.MessageCandidates(ctx, tenure.MessageQuery{Principal: ada, Vector: q, VectorLimit: 1}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("vector without a model: err = %v, want invalid", err)
	}
}

// Task prefixes go before every text sent, and the document prefix names
// the space: vectors embedded without it are never compared with these.
func TestPrefixes(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	m := newModel(t, srv, semantic.Options{DocumentPrefix: "search_document: ", QueryPrefix: "search_query: "})
	if m.Name() != "openai:fake (search_document:)" {
		t.Errorf("Name() = %q", m.Name())
	}
	st := newStore(t, m)
	appendTurns(t, st, ada, "t1", "my phone broke")
	if _, err := st.EmbedMessages(ctx, "", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.EmbedQuery(ctx, ada.TenantID, "which phone?"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(srv.Texts(), "|"); got != "search_document: my phone broke|search_query: which phone?" {
		t.Errorf("sent %q", got)
	}
}

// A vector is shared only within its audience: a text is sent again for
// another user, and a digest embeds, and counts, only the messages its
// principal can read.
func TestAudiences(t *testing.T) {
	ctx := context.Background()
	srv := embedtest.NewServer(t)
	m := newModel(t, srv, semantic.Options{})
	st := newStore(t, m)
	cy := tenure.Principal{UserID: "cy", TenantID: ada.TenantID, Authority: "policy", Clearance: tenure.HighlyRestricted}
	own := func(p tenure.Principal, id, text string) tenure.Message {
		return tenure.Message{ThreadID: "t1", ID: id, UserID: p.UserID, Role: "user", Content: text, CreatedAt: t0}
	}
	if _, err := st.AppendMessages(ctx, ada, []tenure.Message{own(ada, "a1", "the same words")}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMessages(ctx, cy, []tenure.Message{own(cy, "c1", "the same words")}); err != nil {
		t.Fatal(err)
	}
	d := st.Digest(ctx, ada, "t1", extract.NewRules(extract.RulesOptions{}), nil, engine.SummaryOptions{})
	if d.VectorsError != nil || d.Vectors == nil || d.Vectors.Embedded != 1 {
		t.Fatalf("ada's digest: vectors %+v, %v; want her message only", d.Vectors, d.VectorsError)
	}
	rep, err := st.EmbedMessages(ctx, "", "", nil)
	if err != nil || rep.Embedded != 1 || rep.Cached != 0 {
		t.Errorf("backfill = %+v, %v; want cy's message embedded, not from ada's vector", rep, err)
	}
	if n := len(srv.Texts()); n != 2 {
		t.Errorf("sent %d texts, want the same words once for each user", n)
	}
}
