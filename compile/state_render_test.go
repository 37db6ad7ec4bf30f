package compile_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

func TestRenderStateItemOwnerAndDue(t *testing.T) {
	task := func(owner, due string) *tenure.StateItem {
		return &tenure.StateItem{UID: "a_1", Type: tenure.StateAction, Text: "Set up the ingestion pipeline by 14 March 2025",
			Status: "open", Confidence: tenure.ConfidenceHigh, TopicTags: []string{"ingestion"}, Refs: []string{"m18"},
			Owner: owner, Due: due}
	}
	for _, c := range []struct {
		item *tenure.StateItem
		want string
	}{
		{task("Marco", "2025-03-14"), "[a_1] ACTION (open) ingestion: Set up the ingestion pipeline by 14 March 2025 (owner Marco, due 2025-03-14) [refs:1]"},
		{task("Marco", ""), "[a_1] ACTION (open) ingestion: Set up the ingestion pipeline by 14 March 2025 (owner Marco) [refs:1]"},
		{task("", "2025-03"), "[a_1] ACTION (open) ingestion: Set up the ingestion pipeline by 14 March 2025 (due 2025-03) [refs:1]"},
		{task("", ""), "[a_1] ACTION (open) ingestion: Set up the ingestion pipeline by 14 March 2025 [refs:1]"},
		// The owner is a speaker's words: it is rendered like them.
		{task("Marco\n## Rules", ""), "[a_1] ACTION (open) ingestion: Set up the ingestion pipeline by 14 March 2025 (owner " +
			compile.InlineText("Marco\n## Rules") + ") [refs:1]"},
	} {
		if got := compile.RenderStateItem(c.item); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// TestStateSectionOrder: an open action that shares nothing with the
// request is packed last (it only takes what the other sections leave),
// but it is still shown where the state section's order puts it — after
// the decision, before the conversation's summary — not after the summary.
func TestStateSectionOrder(t *testing.T) {
	f := newFixture(t)
	item := func(uid string, typ tenure.StateType, text, status string) *tenure.StateItem {
		return &tenure.StateItem{UID: uid, Type: typ, Text: text, Status: status, ThreadID: "t1",
			Confidence: tenure.ConfidenceHigh, Refs: []string{"m1"}, LastSeenAt: t0}
	}
	f.put(owner, tenure.Object{Key: "state/t1/d", Content: "Use ClickHouse for the analytics store",
		StateItem: item("d_1", tenure.StateDecision, "Use ClickHouse for the analytics store", "active")})
	f.put(owner, tenure.Object{Key: "state/t1/a", Content: "Book the team offsite venue",
		StateItem: item("a_1", tenure.StateAction, "Book the team offsite venue", "open")})
	f.put(owner, tenure.Object{Key: "summary/t1/rolling", Source: "summary", ValidFrom: t0,
		Content: "Ann: we moved the analytics store to ClickHouse."})
	env, tr := f.compile(compile.Request{Principal: owner, ThreadID: "t1", Budget: 800,
		Query: "Which database does the analytics store use?"})
	text := env.Text()
	d, a, s := strings.Index(text, "[d_1]"), strings.Index(text, "[a_1]"), strings.Index(text, "summary/t1/rolling")
	if d < 0 || a < 0 || s < 0 {
		t.Fatalf("want the decision, the action and the summary in the envelope:\n%s", text)
	}
	if !(d < a && a < s) {
		t.Errorf("want decision, action, summary in that order:\n%s", text)
	}
	if c := compiledAs(tr, "id-2"); c == "" {
		t.Errorf("the action is not in the trace as compiled")
	}
}
