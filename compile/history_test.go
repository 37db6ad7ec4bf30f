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

// messages is a MessageSource over fixed candidates, as a store's
// full-text search would return them.
type messages []tenure.ScoredMessage

func (messages) Candidates(context.Context, tenure.CandidateQuery) ([]tenure.Object, error) {
	return nil, nil
}

func (m messages) MessageCandidates(context.Context, tenure.MessageQuery) ([]tenure.ScoredMessage, error) {
	return m, nil
}

func turn(pos int64, text string, score float64) tenure.ScoredMessage {
	return tenure.ScoredMessage{Message: tenure.Message{TenantID: owner.TenantID, ThreadID: "t", SessionID: "s1",
		ID: fmt.Sprint("m", pos), Role: "user", Speaker: "Ann", Content: text,
		CreatedAt: time.Date(2023, 5, 8, 10, 0, int(pos), 0, time.UTC)}, Score: score, Seq: pos, Pos: pos}
}

// A turn right after a strong match shares its relevance even when it is a
// weak match itself: a larger candidate limit must never push it below the
// weak matches elsewhere.
func TestNeighborOfStrongMatchBeatsWeakMatches(t *testing.T) {
	src := messages{
		turn(0, "Do you have any pets at home these days?", 10),
		turn(1, "Yes, a dog called Luna and a cat called Oliver; pets at heart.", 0.5),
	}
	for i := int64(2); i < 40; i++ {
		src = append(src, turn(i*3, fmt.Sprintf("filler %d about the weather and pets in general, nothing else", i), 1))
	}
	c := compile.New(src, compile.Options{})
	env, _, err := c.Compile(context.Background(), compile.Request{Principal: owner, Query: "What pets does Ann have?", Budget: 120})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"any pets at home", "a dog called Luna"} {
		if !strings.Contains(env.Text(), want) {
			t.Errorf("context lacks %q:\n%s", want, env.Text())
		}
	}
}

// A question about a person is answered by that person's own turns even
// when they share no word with it but the name; they must outrank turns by
// others that merely mention the name, and the turn that says more wins.
func TestSpeakerFocus(t *testing.T) {
	by := func(pos int64, speaker, text string, score float64) tenure.ScoredMessage {
		m := turn(pos, text, score)
		m.Speaker = speaker
		return m
	}
	src := messages{
		by(0, "Ann", "Ok.", 0.1),
		by(10, "Ann", "I'm off to go swimming with the kids, then pottery class tonight.", 0.1),
		by(20, "Bob", "Do you like lasagna? Our activities club cooks it.", 1),
	}
	// Full-text scores as a store gives them: a rare query word outweighs
	// a common name, and a short turn naming it outscores a long one.
	for i := int64(1); i < 30; i++ {
		src = append(src, by(100+i*3, "Bob", fmt.Sprintf("Thanks, Ann! (%d)", i), 0.2))
	}
	q := compile.Request{Principal: owner, Query: "What activities does Ann partake in?", Budget: 70}
	env, _, err := compile.New(src, compile.Options{}).Compile(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.Text(), "going swimming") && !strings.Contains(env.Text(), "go swimming") {
		t.Errorf("speaker focus did not bring Ann's own turn:\n%s", env.Text())
	}
	if !strings.Contains(env.Text(), "activities club") {
		t.Errorf("a turn sharing a query word was pushed out:\n%s", env.Text())
	}
	if strings.Contains(env.Text(), "Ann: Ok.") {
		t.Errorf("a turn that says nothing outranked name-only mentions:\n%s", env.Text())
	}
	off := compile.New(src, compile.Options{History: compile.HistoryOptions{DisableFocus: true}})
	env, _, err = off.Compile(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(env.Text(), "go swimming") {
		t.Errorf("without focus the name-only mentions should win (the fixture no longer tests focus):\n%s", env.Text())
	}
}

// A question naming a month or a day finds what was said then, even when
// other turns match its words better.
func TestNamedPeriod(t *testing.T) {
	at := func(pos int64, month time.Month, text string, score float64) tenure.ScoredMessage {
		m := turn(pos, text, score)
		m.CreatedAt = time.Date(2022, month, 12, 18, 0, 0, 0, time.UTC)
		m.SessionID = month.String()
		return m
	}
	src := messages{
		at(0, time.January, "Travel, travel, travel!", 2),
		at(5, time.July, "We went to Woodhaven, a small town in the Midwest.", 0.5),
	}
	for i := int64(1); i < 20; i++ {
		src = append(src, at(10*i, time.March, fmt.Sprintf("I want to travel some day (%d).", i), 0.6))
	}
	q := compile.Request{Principal: owner, Query: "Where did Ann travel to in July 2022?", Budget: 60}
	env, _, err := compile.New(src, compile.Options{}).Compile(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.Text(), "Woodhaven") {
		t.Errorf("the July turn is missing:\n%s", env.Text())
	}
	off := compile.New(src, compile.Options{History: compile.HistoryOptions{DisableTemporal: true}})
	if env, _, err = off.Compile(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(env.Text(), "Woodhaven") {
		t.Errorf("without temporal resolution the better matches should win (the fixture no longer tests it):\n%s", env.Text())
	}
}

// The reply to a match ranks above the turn that led to it: it more often
// holds what the question asks for.
func TestReplyOutranksPrompt(t *testing.T) {
	src := messages{
		// Ids sort the prompt first, so a tie would favour it.
		turn(19, "Anyway, tell me more about that trip of yours, it sounded wonderful.", 0),
		turn(20, "How was the lasagna at the festival?", 1),
		turn(21, "Honestly it was rich and creamy, my new favourite.", 0),
	}
	for i := int64(0); i < 20; i++ {
		src = append(src, turn(100+3*i, fmt.Sprintf("Unrelated lasagna note number %d, not much else here.", i), 0.45))
	}
	env, _, err := compile.New(src, compile.Options{}).Compile(context.Background(),
		compile.Request{Principal: owner, Query: "What did Ann think of the lasagna?", Budget: 60})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.Text(), "rich and creamy") {
		t.Errorf("the reply is missing:\n%s", env.Text())
	}
	if strings.Contains(env.Text(), "that trip of yours") {
		t.Errorf("the prompt before the match outranked the reply:\n%s", env.Text())
	}
}
