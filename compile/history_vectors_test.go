package compile_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/internal/embedtest"
	"github.com/tenure-dev/tenure/llm/openai"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
)

// vectorEnv is a store whose messages are embedded by the fake endpoint.
type vectorEnv struct {
	srv   *embedtest.Server
	model *semantic.Model
	store *sqlite.Store
}

// newVectorEnv opens a store embedding with the fake, keeping the text of
// tenants other than allowed local when allowed is not empty.
func newVectorEnv(t *testing.T, allowed string) *vectorEnv {
	t.Helper()
	e := &vectorEnv{srv: embedtest.NewServer(t)}
	opt := semantic.Options{}
	if allowed != "" {
		opt.Tenant = func(tenant string) bool { return tenant == allowed }
	}
	var err error
	e.model, err = semantic.New(e.endpoint(), opt)
	if err != nil {
		t.Fatal(err)
	}
	e.store = sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{Embedding: e.model})
	if err := e.store.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.store.Close() })
	return e
}

// endpoint is an embedder of the fake that never retries.
func (e *vectorEnv) endpoint() *openai.Embedder {
	return openai.NewEmbedder(openai.EmbedderOptions{BaseURL: e.srv.URL(), Model: "fake", MaxRetries: -1})
}

// phoneThread is a conversation in which the phone the user bought is
// named only as an iPhone, among turns about buying other things and
// many about the garden.
func phoneThread(t *testing.T, st *sqlite.Store, p tenure.Principal) {
	t.Helper()
	var msgs []tenure.Message
	add := func(text string) {
		msgs = append(msgs, tenure.Message{ThreadID: "t", ID: fmt.Sprint("m", len(msgs)), Role: "user", Content: text,
			CreatedAt: time.Date(2025, 2, 1, 9, len(msgs), 0, 0, time.UTC)})
	}
	add("My new iPhone arrived today.")
	for i := range 40 {
		add(fmt.Sprintf("The garden needs watering again, round %d.", i))
		if i%4 == 3 {
			add(fmt.Sprintf("I still need to buy groceries for party %d.", i))
		}
	}
	if _, err := st.AppendMessages(context.Background(), p, msgs); err != nil {
		t.Fatal(err)
	}
}

const phoneQuery = "Which phone did I buy?"

// With a model, history finds by meaning the turn that shares no word with
// the query; lexically, the turns about buying other things crowd it out.
func TestHistoryFusesVectors(t *testing.T) {
	ctx := context.Background()
	e := newVectorEnv(t, "")
	phoneThread(t, e.store, owner)
	if _, err := e.store.EmbedMessages(ctx, "", "", nil); err != nil {
		t.Fatal(err)
	}
	req := compile.Request{Principal: owner, Query: phoneQuery, Budget: 300}
	env, tr, err := compile.New(e.store, compile.Options{}).Compile(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(env.Text(), "iPhone") || tr.Retrieval.HistoryVectors != nil {
		t.Fatalf("lexical compilation found the iPhone or reports vectors (%+v):\n%s", tr.Retrieval.HistoryVectors, env.Text())
	}
	// Reciprocal ranks flatten the scores: a turn among the nearest that
	// shares nothing with the query scores more than half as much as the
	// best vector match, and next to a lexical match more. It fuses, but
	// does not find the iPhone in this budget.
	for _, f := range []compile.Fusion{"", compile.FusionOr, compile.FusionConvex, compile.FusionRRF} {
		t.Run(string(f)+"OK", func(t *testing.T) {
			c := compile.New(e.store, compile.Options{MessageEmbedder: e.model, History: compile.HistoryOptions{Fusion: f}})
			env, tr, err := c.Compile(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if f != compile.FusionRRF {
				mustContain(t, env.Text(), "My new iPhone")
			}
			v := tr.Retrieval.HistoryVectors
			if v == nil || !v.Fused || v.Model != "openai:fake" || v.Nearest == 0 || v.Embedded == 0 || len(tr.Warnings) > 0 {
				t.Errorf("trace: vectors %+v, warnings %q; want fused", v, tr.Warnings)
			}
		})
	}
	t.Run("DisableVectors", func(t *testing.T) {
		c := compile.New(e.store, compile.Options{MessageEmbedder: e.model, History: compile.HistoryOptions{DisableVectors: true}})
		lex, tr, err := c.Compile(ctx, req)
		if err != nil || lex.Text() != env.Text() || tr.Retrieval.HistoryVectors != nil {
			t.Errorf("with vectors disabled: %v, vectors %+v; want the lexical envelope", err, tr.Retrieval.HistoryVectors)
		}
	})
}

// An endpoint that is down never fails a compilation: history is ranked
// lexically and the trace says so.
func TestHistoryEndpointDown(t *testing.T) {
	ctx := context.Background()
	e := newVectorEnv(t, "")
	phoneThread(t, e.store, owner)
	if _, err := e.store.EmbedMessages(ctx, "", "", nil); err != nil {
		t.Fatal(err)
	}
	e.srv.SetDown(true)
	env, tr, err := compile.New(e.store, compile.Options{MessageEmbedder: e.model}).Compile(ctx,
		compile.Request{Principal: owner, Query: phoneQuery, Budget: 300})
	if err != nil {
		t.Fatalf("compile with the endpoint down: %v", err)
	}
	mustContain(t, env.Text(), "buy groceries")
	v := tr.Retrieval.HistoryVectors
	if v == nil || v.Fused || v.Reason != compile.VectorsFailed {
		t.Errorf("vectors = %+v, want lexical for endpoint_failed", v)
	}
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "lexically only") {
		t.Errorf("warnings = %q, want one saying history was ranked lexically", tr.Warnings)
	}
}

// Messages not embedded yet: history is ranked lexically, and the trace
// says there were no vectors.
func TestHistoryNoVectorsYet(t *testing.T) {
	e := newVectorEnv(t, "")
	phoneThread(t, e.store, owner)
	_, tr, err := compile.New(e.store, compile.Options{MessageEmbedder: e.model}).Compile(context.Background(),
		compile.Request{Principal: owner, Query: phoneQuery, Budget: 300})
	if v := tr.Retrieval.HistoryVectors; err != nil || v == nil || v.Fused || v.Reason != compile.VectorsMissing {
		t.Errorf("compile = %v, vectors %+v; want lexical for no_vectors", err, v)
	}
}

// Nothing of a tenant kept local is sent: not its messages, its queries or
// its memory objects.
func TestHistoryKeptLocalSendsNothing(t *testing.T) {
	ctx := context.Background()
	e := newVectorEnv(t, "someone-else")
	phoneThread(t, e.store, owner)
	if _, err := e.store.Put(ctx, owner, tenure.Object{Key: "phone",
		Value: val("The owner's phone is an iPhone 15 Pro.")}); err != nil {
		t.Fatal(err)
	}
	if rep, err := e.store.EmbedMessages(ctx, "", "", nil); err != nil || rep.KeptLocal == 0 {
		t.Fatalf("index = %+v, %v; want every message kept local", rep, err)
	}
	c := compile.New(e.store, compile.Options{MessageEmbedder: e.model, Embedder: e.endpoint(),
		EmbedTenant: func(tenant string) bool { return tenant == "someone-else" }})
	_, tr, err := c.Compile(ctx, compile.Request{Principal: owner, Query: phoneQuery, Budget: 300})
	if v := tr.Retrieval.HistoryVectors; err != nil || v == nil || v.Reason != compile.VectorsKeptLocal || len(tr.Warnings) > 0 {
		t.Errorf("compile = %v, vectors %+v, warnings %q; want lexical for kept_local, no warning", err, v, tr.Warnings)
	}
	if n := e.srv.Requests(); n != 0 {
		t.Errorf("the endpoint received %d requests: %q", n, e.srv.Texts())
	}
}

// An embedder of memory that fails never fails a compilation either: the
// memory is ranked lexically and the trace warns.
func TestMemoryEmbedderDown(t *testing.T) {
	ctx := context.Background()
	e := newVectorEnv(t, "")
	if _, err := e.store.Put(ctx, owner, tenure.Object{Key: "phone", Value: val("The owner's phone is an iPhone 15 Pro.")}); err != nil {
		t.Fatal(err)
	}
	e.srv.SetDown(true)
	env, tr, err := compile.New(e.store, compile.Options{Embedder: e.endpoint()}).Compile(ctx,
		compile.Request{Principal: owner, Query: "What is the owner's phone?", Budget: 300})
	if err != nil {
		t.Fatalf("compile with the memory embedder down: %v", err)
	}
	mustContain(t, env.Text(), "iPhone 15 Pro")
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "ranked lexically only") {
		t.Errorf("warnings = %q, want one saying memory was ranked lexically", tr.Warnings)
	}
}
