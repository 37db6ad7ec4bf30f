package compile_test

import (
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
