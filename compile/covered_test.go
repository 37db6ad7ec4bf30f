package compile_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// TestSummaryCoveredByHistory: when the history section holds every
// message of the thread up to what its summary tells, the summary only
// repeats them and is omitted (covered_by_history); when the budget cuts
// the history, the summary is what the model has of the cut messages and
// stays.
func TestSummaryCoveredByHistory(t *testing.T) {
	f := newFixture(t)
	at := t0.Add(-48 * time.Hour)
	var msgs []tenure.Message
	for i := range 12 {
		msgs = append(msgs, tenure.Message{ThreadID: "t1", ID: fmt.Sprintf("m%d", i+1), Role: "user", Speaker: "Ann",
			Content:   fmt.Sprintf("Note %d about the venue shortlist and the catering quotes for the spring offsite.", i+1),
			CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := f.store.AppendMessages(f.ctx, owner, msgs); err != nil {
		t.Fatal(err)
	}
	summary := f.put(owner, tenure.Object{Key: "summary/t1/rolling", Source: "summary", ValidFrom: msgs[len(msgs)-1].CreatedAt,
		Content: "Ann kept notes on the venue shortlist and the catering quotes for the spring offsite."})
	// Another thread's history does not cover this thread's summary.
	if _, err := f.store.AppendMessages(f.ctx, owner, []tenure.Message{{ThreadID: "t2", ID: "x1", Role: "user", Speaker: "Bo",
		Content: "Note about the venue.", CreatedAt: at}}); err != nil {
		t.Fatal(err)
	}
	req := compile.Request{Principal: owner, ThreadID: "t1", Query: "What do we know about the venue shortlist?"}

	req.Budget = 3000
	env, tr := f.compile(req)
	if strings.Contains(env.Text(), "Ann kept notes") {
		t.Errorf("the whole thread is in the history, yet its summary is compiled:\n%s", env.Text())
	}
	if got := omittedReason(tr, summary.Object.ObjectID); got != compile.OmitCoveredByHistory {
		t.Errorf("summary omitted with reason %q, want %q", got, compile.OmitCoveredByHistory)
	}

	// A budget that cuts the thread's first messages keeps the summary.
	req.Budget = 260
	env, tr = f.compile(req)
	if got := omittedReason(tr, summary.Object.ObjectID); got == compile.OmitCoveredByHistory {
		t.Errorf("history cut (%q), yet the summary is dropped as covered:\n%s", got, env.Text())
	}
	if strings.Contains(env.Text(), "Note 1 about") && strings.Contains(env.Text(), "Note 12 about") {
		t.Fatalf("the small budget holds the whole history; the test needs it cut:\n%s", env.Text())
	}
}
