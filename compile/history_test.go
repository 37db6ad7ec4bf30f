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
	src = withFiller(src, 20, "Unrelated lasagna note number %d, not much else here.", 0.45)
	wantOutranks(t, src, "What did Ann think of the lasagna?", "rich and creamy", "that trip of yours")
}

// Shares from both sides add up: a reply inside an exchange that matches
// before and after it outranks a reply next to one match only.
func TestSharesAddUp(t *testing.T) {
	src := messages{
		// The single match comes first, so a tie would favour its reply.
		turn(10, "Is the lake cabin still open in winter?", 1),
		turn(11, "Sure, we stayed a week there, snowed in with cocoa.", 0),
		turn(50, "Did you go hiking by the lake?", 1),
		turn(51, "We swam for hours, then grilled fish on the shore.", 0),
		turn(52, "The lake hike at dawn was the best part.", 1),
	}
	src = withFiller(src, 10, "A lake note number %d, nothing much else.", 0.3)
	wantOutranks(t, src, "What did Ann do at the lake?", "We swam for hours", "snowed in")
}

// withFiller adds n weak matches far from every other turn.
func withFiller(src messages, n int, format string, score float64) messages {
	for i := range int64(n) {
		src = append(src, turn(100+3*i, fmt.Sprintf(format, i), score))
	}
	return src
}

// wantOutranks compiles query over src within 60 tokens, which hold the
// matches and one more turn: it must be the winner's, not the loser's.
func wantOutranks(t *testing.T, src messages, query, winner, loser string) {
	t.Helper()
	env, _, err := compile.New(src, compile.Options{}).Compile(context.Background(),
		compile.Request{Principal: owner, Query: query, Budget: 60})
	if err != nil {
		t.Fatal(err)
	}
	if text := env.Text(); !strings.Contains(text, winner) || strings.Contains(text, loser) {
		t.Errorf("want %q in and %q out:\n%s", winner, loser, text)
	}
}

// recordingSource remembers the message query it was asked.
type recordingSource struct {
	messages
	got *tenure.MessageQuery
}

func (s recordingSource) MessageCandidates(ctx context.Context, q tenure.MessageQuery) ([]tenure.ScoredMessage, error) {
	*s.got = q
	return s.messages.MessageCandidates(ctx, q)
}

// The best matches bring the turns two away (the answer to the question
// that follows them); turning neighbours off turns that off too.
func TestHistoryQueryWidensBestMatches(t *testing.T) {
	for _, c := range []struct {
		opt              compile.HistoryOptions
		neighbors, wide0 bool
	}{{compile.HistoryOptions{}, true, false}, {compile.HistoryOptions{DisableNeighbors: true}, false, true}} {
		var q tenure.MessageQuery
		src := recordingSource{messages{turn(1, "We hiked to the falls.", 1)}, &q}
		if _, _, err := compile.New(src, compile.Options{History: c.opt}).Compile(context.Background(),
			compile.Request{Principal: owner, Query: "Where did Ann hike?", Budget: 200}); err != nil {
			t.Fatal(err)
		}
		if (q.Neighbors > 0) != c.neighbors || (q.WideMatches == 0) != c.wide0 {
			t.Errorf("options %+v: query neighbours %d, wide matches %d", c.opt, q.Neighbors, q.WideMatches)
		}
	}
}
