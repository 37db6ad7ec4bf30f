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
