package engine_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
)

// TestDigestAssistantCommitment: a support thread digested with the rules
// extractor keeps the assistant's promise ("I'll email you a prepaid
// return label today") as an open action owned by the assistant and due
// the day it was said, and the envelope shows its owner and due date.
func TestDigestAssistantCommitment(t *testing.T) {
	p, at, st := eveStore(t)
	ctx := t.Context()
	msgs := []tenure.Message{
		{ID: "m1", Role: "user", Speaker: "Maria", Content: "Hi, my kettle arrived with a cracked lid. A refund please."},
		{ID: "m2", Role: "assistant", Content: "Understood. I'll email you a prepaid return label today."},
		{ID: "m3", Role: "user", Speaker: "Maria", Content: "Thanks!"},
	}
	for i := range msgs {
		msgs[i].ThreadID, msgs[i].CreatedAt = "th", at.Add(time.Duration(i)*time.Minute)
	}
	if _, err := st.AppendMessages(ctx, p, msgs); err != nil {
		t.Fatal(err)
	}
	if d := st.Digest(ctx, p, "th", extract.NewRules(extract.RulesOptions{}), nil, engine.SummaryOptions{}); d.Err() != nil {
		t.Fatal(d.Err())
	}
	active, _ := stateByStatus(t, st, p, "th")
	const text = "Email Maria a prepaid return label on 10 March 2025"
	it, ok := active[text]
	if !ok {
		t.Fatalf("no action %q; active: %v", text, slices.Collect(maps.Keys(active)))
	}
	if it.Type != tenure.StateAction || it.Status != "open" || it.Owner != "assistant" || it.Due != "2025-03-10" || !slices.Equal(it.Refs, []string{"m2"}) {
		t.Errorf("action %+v, want open, owner assistant, due 2025-03-10, refs [m2]", it)
	}
	c := compile.New(st, compile.Options{Now: func() time.Time { return at.Add(time.Hour) }})
	env, _, err := c.Compile(ctx, compile.Request{Principal: p, Query: "When does Maria get her return label?", ThreadID: "th", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if want := text + " (owner assistant, due 2025-03-10)"; !strings.Contains(env.Text(), want) {
		t.Errorf("envelope lacks %q:\n%s", want, env.Text())
	}
}
