package compile_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// chat is a conversation with an assistant: the user's short turns, each
// answered by a long reply that matches the query better, long replies
// elsewhere that match it almost as well, and short user turns that match
// it better but say nothing.
func chat() messages {
	said := func(pos int64, role, text string, score float64) tenure.ScoredMessage {
		m := turn(pos, text, score)
		m.Role, m.Speaker = role, ""
		return m
	}
	long := strings.Repeat("Phone accessories come in many kinds, and a good case protects a phone. ", 5)
	src := messages{
		said(0, "user", "I'm looking for a wallet case for my iPhone 13 Pro.", 0.3),
		said(1, "assistant", "For an iPhone, try Bellroy and Nomad wallet cases. "+long, 1),
		said(2, "user", "I also need a power bank for my phone on long trips.", 0.3),
		said(3, "assistant", "Anker makes reliable power banks for any phone. "+long, 1),
	}
	for i := int64(0); i < 10; i++ {
		src = append(src, said(100+3*i, "assistant", fmt.Sprintf("Answer %d about phone plans. %s", i, long), 0.9),
			said(200+3*i, "user", fmt.Sprintf("My phone is fine (%d).", i), 0.8))
	}
	return src
}

// A request about the user ("can you suggest…") is answered from the
// user's own turns, which the assistant's longer, better-matching replies
// must not crowd out; a question that recalls what the assistant said
// gets the assistant's turns.
func TestRoles(t *testing.T) {
	ask := func(opt compile.HistoryOptions, query string) string {
		t.Helper()
		env, _, err := compile.New(chat(), compile.Options{History: opt}).Compile(context.Background(),
			compile.Request{Principal: owner, Query: query, Budget: 250})
		if err != nil {
			t.Fatal(err)
		}
		return env.Text()
	}
	request := "Can you suggest some useful accessories for my phone?"
	if text := ask(compile.HistoryOptions{}, request); !strings.Contains(text, "wallet case for my iPhone") ||
		!strings.Contains(text, "power bank for my phone") {
		t.Errorf("the user's turns are missing:\n%s", text)
	}
	if text := ask(compile.HistoryOptions{DisableRoles: true}, request); strings.Contains(text, "wallet case for my iPhone") {
		t.Errorf("without roles the replies should win (the fixture no longer tests roles):\n%s", text)
	}
	if text := ask(compile.HistoryOptions{}, "Which power bank brand did you recommend for my phone?"); !strings.Contains(text, "Anker makes") {
		t.Errorf("the assistant's recommendation is missing:\n%s", text)
	}
}

// A question about a time relative to now ("two weeks ago", "the first
// week of April") finds what was said then; one about what is coming
// ("tonight") prefers no day.
func TestRelativePeriod(t *testing.T) {
	now := time.Date(2023, 4, 18, 20, 0, 0, 0, time.UTC)
	on := func(pos int64, day time.Time, text string, score float64) tenure.ScoredMessage {
		m := turn(pos, text, score)
		m.CreatedAt, m.SessionID = day, day.Format(time.DateOnly)
		return m
	}
	twoWeeksAgo := time.Date(2023, 4, 5, 12, 0, 0, 0, time.UTC)
	yesterday := now.AddDate(0, 0, -1)
	src := messages{
		on(0, twoWeeksAgo, "We cooked a mushroom risotto for the neighbours.", 0.45),
		on(50, yesterday, "Cooked pasta, the usual.", 0.55),
	}
	for i := int64(1); i < 20; i++ { // each on a day of its own: no session outweighs another
		src = append(src, on(100+3*i, time.Date(2023, 1, int(i), 9, 0, 0, 0, time.UTC), fmt.Sprintf("I love to cook dinners (%d).", i), 0.6))
	}
	c := compile.New(src, compile.Options{Now: func() time.Time { return now }})
	compileFor := func(q string) string {
		t.Helper()
		env, _, err := c.Compile(context.Background(), compile.Request{Principal: owner, Query: q, Budget: 60})
		if err != nil {
			t.Fatal(err)
		}
		return env.Text()
	}
	if text := compileFor("What did we cook two weeks ago?"); !strings.Contains(text, "mushroom risotto") {
		t.Errorf("the turn of two weeks ago is missing:\n%s", text)
	}
	if text := compileFor("What should I cook tonight?"); strings.Contains(text, "Cooked pasta") {
		t.Errorf("tonight raised yesterday's turn:\n%s", text)
	}
	if text := compileFor("What did we cook in the first week of April?"); !strings.Contains(text, "mushroom risotto") {
		t.Errorf("the turn of the first week of April is missing:\n%s", text)
	}
}

func TestRecallsAssistant(t *testing.T) {
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"What was the move you made after 27. Kg2 Bd5+?", true},
		{"Can you remind me of that restaurant in Cihampelas Walk?", true},
		{"I was going through our previous conversation about propaganda.", true},
		{"You mentioned a few options for language apps.", true},
		{"Which brand did you recommend for my phone?", true},
		{"We discussed hiking trails last week; which one was shortest?", true},
		{"Going back to your earlier suggestion, how long does it take?", true},
		{"What was the third stop on the itinerary you planned for me?", true},
		{"Can you tell me again the name of that hotel?", true},
		{"Which database did we agree on for the event log?", true},
		{"Can you suggest some useful accessories for my phone?", false},
		{"Can you recommend a show or movie for me to watch tonight?", false},
		{"I'm trying to decide whether to buy a NAS device now. What do you think?", false},
		{"What did I buy for my sister's birthday?", false},
		{"Any tips on what to look for in a new guitar?", false},
	} {
		if got := compile.RecallsAssistant(c.query); got != c.want {
			t.Errorf("RecallsAssistant(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}
