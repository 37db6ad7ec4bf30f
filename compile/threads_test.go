package compile_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/summarize"
)

// TestThreadScopedContext: two interleaved conversations on different
// topics; a compilation for one shows nothing of the other but what is
// documented to cross threads (the user's profile facts, the project's
// decisions and constraints).
func TestThreadScopedContext(t *testing.T) {
	f := newFixture(t)
	eve := tenure.Principal{UserID: "eve", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	at := t0.Add(-72 * time.Hour)
	msg := func(thread, id, project, text string, min int) tenure.Message {
		return tenure.Message{ThreadID: thread, ID: id, Role: "user", Speaker: "Eve", UserID: "eve", ProjectID: project,
			Content: text, CreatedAt: at.Add(time.Duration(min) * time.Minute)}
	}
	msgs := []tenure.Message{
		msg("billing", "b1", "", "Let's use PostgreSQL for the billing ledger.", 0),
		msg("search", "s1", "", "Let's use MongoDB for the search index.", 1),
		msg("billing", "b2", "", "The invoices must be kept for seven years.", 2),
		msg("search", "s2", "", "I live in Boston, by the way.", 3),
		msg("search", "s3", "", "Should we shard the search cluster by region?", 4),
		msg("billing", "b3", "", "We will send the billing reminders on Mondays.", 5),
	}
	if _, err := f.store.AppendMessages(f.ctx, eve, msgs); err != nil {
		t.Fatal(err)
	}
	for _, thread := range []string{"billing", "search"} {
		d := f.store.Digest(f.ctx, eve, thread, extract.NewRules(extract.RulesOptions{}), summarize.NewExtractive(summarize.Options{}),
			engine.SummaryOptions{RollingEvery: 1})
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A decision of project apollo, made in another conversation: the
	// digest of the whole thread files it under the project its messages
	// name.
	if _, err := f.store.AppendMessages(f.ctx, eve, []tenure.Message{
		msg("roadmap", "r1", "apollo", "Let's use Kubernetes for the apollo deployment.", 6),
		msg("roadmap", "r2", "apollo", "Should we mirror the apollo images to a second registry?", 7),
	}); err != nil {
		t.Fatal(err)
	}
	d := f.store.Digest(f.ctx, eve, "roadmap", extract.NewRules(extract.RulesOptions{}), nil, engine.SummaryOptions{})
	if d.Err() != nil || d.State.ItemsInserted < 2 {
		t.Fatalf("digest of the project thread = %+v", d)
	}
	var text string

	req := compile.Request{Principal: eve, Query: "Which database does billing use, and where do I live? mongodb search shard", Budget: 3000, ThreadID: "billing"}
	env, tr := f.compile(req)
	text = env.Text()
	mustContain(t, text, "PostgreSQL", "seven years", "Boston")
	mustNotContain(t, text, "MongoDB", "shard", "Kubernetes")
	if !strings.Contains(text, "Let's use PostgreSQL") {
		t.Errorf("the thread's history is missing:\n%s", text)
	}
	other := 0
	for _, o := range tr.Omitted {
		if o.Reason == compile.OmitOtherThread {
			other++
		}
	}
	if other == 0 {
		t.Errorf("no state of another thread reported as %s: %+v", compile.OmitOtherThread, tr.Omitted)
	}

	// The project's decisions cross threads; with every thread open,
	// everything is there.
	req.Scope.ProjectID = "apollo"
	env, _ = f.compile(req)
	mustContain(t, env.Text(), "Kubernetes")
	mustNotContain(t, env.Text(), "MongoDB", "second registry") // a question stays in its thread
	req.Scope.ProjectID, req.Threads = "", []string{compile.AllThreads}
	env, _ = f.compile(req)
	mustContain(t, env.Text(), "MongoDB", "PostgreSQL")

	req.Threads = []string{" bad"}
	if _, _, err := f.c.Compile(f.ctx, req); tenure.ErrorField(err) != "threads[0]" {
		t.Errorf("bad thread id: %v", err)
	}
}
