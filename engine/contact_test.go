package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// TestContactDetailsChange: a customer gives an email, then says it
// changed. The profile holds the new one, the old one is history, and
// the way they want to be reached is a fact of their profile beside the
// thread's rule.
func TestContactDetailsChange(t *testing.T) {
	p, at, st := eveStore(t)
	ctx := t.Context()
	rules := extract.NewRules(extract.RulesOptions{})
	for i, content := range []string{
		"Hi, my email is maria@oldmail.com if you need it.",
		"Please don't call me, email only.",
		"Also my email changed, it's now maria.g@example.com.",
	} {
		m := tenure.Message{ThreadID: "th", ID: "m" + string(rune('1'+i)), Role: "user", Speaker: "Maria", Content: content,
			CreatedAt: at.Add(time.Duration(i) * time.Minute)}
		if _, err := st.AppendMessages(ctx, p, []tenure.Message{m}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ExtractState(ctx, p, "th", rules); err != nil {
			t.Fatal(err)
		}
	}
	for key, want := range map[string]string{
		"profile|person|maria|fact:email":              "Maria's email is maria.g@example.com",
		"profile|person|maria|fact:contact_preference": "Maria wants email only, no calls",
	} {
		o, err := st.CurrentValue(ctx, p, key, tenure.Read{})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if o.Content != want {
			t.Errorf("%s = %q, want %q", key, o.Content, want)
		}
	}
	hist, err := st.History(ctx, p, "profile|person|maria|fact:email", tenure.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	var oldSuperseded bool
	for _, v := range hist.Versions {
		if v.Content == "Maria's email is maria@oldmail.com" && v.Status == tenure.StatusSuperseded && v.SupersessionLink != "" {
			oldSuperseded = true
		}
	}
	if !oldSuperseded {
		t.Errorf("the old email is not kept as superseded history: %d versions", len(hist.Versions))
	}
	active, _ := stateByStatus(t, st, p, "th")
	if _, ok := active["Do not call Maria; email only"]; !ok {
		t.Errorf("no contact rule in the thread's state: %v", active)
	}
}

// TestRefinementKeepsAlternatives: a decision refined by a later one
// ("A refund" → "The refund should go to my Visa ending 4417, not the
// gift card") is superseded by it, and the refinement keeps what the
// first set aside beside what it sets aside itself.
func TestRefinementKeepsAlternatives(t *testing.T) {
	p, at, st := eveStore(t)
	digestEach(t, st, p, at, []tenure.Message{
		{ID: "m1", Role: "assistant", Content: "Sorry to hear that. Would you like a replacement or a refund?"},
		{ID: "m2", Role: "user", Speaker: "Maria", Content: "A refund please."},
		{ID: "m3", Role: "user", Speaker: "Maria", Content: "The refund should go to my Visa ending 4417, not the gift card."},
	})
	active, superseded := stateByStatus(t, st, p, "th")
	refined, ok := active["The refund should go to my Visa ending 4417, not the gift card"]
	if !ok {
		t.Fatalf("no refined decision: active %v", active)
	}
	if pick, ok := superseded["A refund"]; !ok || pick.ReplacedBy != refined.UID {
		t.Errorf("the pick %+v, want superseded by the refinement", pick)
	}
	if want := []string{"the gift card", "a replacement"}; !slices.Equal(refined.Alternatives, want) {
		t.Errorf("the refinement set aside %q, want %q", refined.Alternatives, want)
	}
	digestEach(t, st, p, at.Add(time.Hour), []tenure.Message{
		{ID: "m4", Role: "user", Speaker: "Maria", Content: "Actually, I'd prefer a replacement instead."},
	})
	active, superseded = stateByStatus(t, st, p, "th")
	if r, ok := superseded[refined.Text]; !ok || active["Take a replacement instead"].UID == "" || r.ReplacedBy != active["Take a replacement instead"].UID {
		t.Errorf("the refinement %+v, want superseded by the replacement (active %v)", r, active)
	}
}
