package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testMessageNamespaces checks that each user's messages have ids of their
// own in a thread: another user's id is a fresh append, never a conflict
// or a skip, and every lookup by id (after_id, expansion refs), every
// derived session and every neighbour resolves within the reader's view
// (its own messages and the shared ones).
func testMessageNamespaces(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	eve := employee
	own := func(p tenure.Principal, id, content string, at time.Time) tenure.Message {
		m := msg("th", id, p.UserID, content, at)
		m.UserID = p.UserID
		return m
	}
	app := func(p tenure.Principal, msgs ...tenure.Message) tenure.AppendResult {
		t.Helper()
		r, err := s.AppendMessages(ctx, p, msgs)
		if err != nil {
			t.Fatalf("append as %s: %v", p.UserID, err)
		}
		return r
	}
	app(eve, msg("th", "s1", "", "shared zzkickoff", T0))
	app(cfo, own(cfo, "m1", "cfo zzbudget is 2M", T0.Add(time.Minute)), own(cfo, "m2", "cfo private follow-up", T0.Add(2*time.Minute)))
	// The same id with other content, then with the cfo's own content:
	// appended both times, as if the cfo's messages did not exist.
	if r := app(eve, own(eve, "m1", "eve zzbudget question", T0.Add(3*time.Minute))); r.Appended != 1 || r.Skipped != 0 {
		t.Errorf("eve's m1: %+v, want appended", r)
	}
	if r := app(eve, own(eve, "m2", "cfo private follow-up", T0.Add(2*time.Minute))); r.Appended != 1 || r.Skipped != 0 {
		t.Errorf("eve's m2 with the cfo's content: %+v, want appended", r)
	}
	// In her own namespace a repeat is a skip, and other content a conflict.
	if r := app(eve, own(eve, "m1", "eve zzbudget question", T0.Add(3*time.Minute))); r.Skipped != 1 {
		t.Errorf("eve's repeat: %+v, want skipped", r)
	}
	_, err := s.AppendMessages(ctx, eve, []tenure.Message{own(eve, "m1", "changed", T0.Add(3*time.Minute))})
	wantCode(t, err, tenure.CodeConflict, "[0].id")
	// A batch may hold the same id for two namespaces.
	shared := msg("th", "m9", "", "shared late", T0.Add(5*time.Minute))
	if r := app(eve, own(eve, "m9", "eve late", T0.Add(4*time.Minute)), shared); r.Appended != 2 {
		t.Errorf("same id, two namespaces in one batch: %+v", r)
	}

	list := func(p tenure.Principal, after string) []tenure.Message {
		t.Helper()
		got, err := s.Messages(ctx, p, tenure.MessageFilter{ThreadID: "th", AfterID: after})
		if err != nil {
			t.Fatalf("%s's messages after %q: %v", p.UserID, after, err)
		}
		return got
	}
	text := func(ms []tenure.Message) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID+"="+m.Content)
		}
		return strings.Join(out, "; ")
	}
	if got, want := text(list(eve, "")), "s1=shared zzkickoff; m2=cfo private follow-up; m1=eve zzbudget question; m9=eve late; m9=shared late"; got != want {
		t.Errorf("eve reads %s\nwant %s", got, want)
	}
	if got, want := text(list(cfo, "m1")), "m2=cfo private follow-up; m9=shared late"; got != want {
		t.Errorf("cfo after its m1: %s, want %s", got, want)
	}
	// after_id names the reader's own message first, then a shared one;
	// another user's only is not found.
	if got, want := text(list(eve, "m1")), "m9=eve late; m9=shared late"; got != want {
		t.Errorf("eve after her m1: %s, want %s", got, want)
	}
	_, err = s.Messages(ctx, intern, tenure.MessageFilter{ThreadID: "th", AfterID: "m1"})
	wantCode(t, err, tenure.CodeNotFound, "after_id")

	// Sessions are derived within the view: eve's turns continue the
	// shared session, whatever the cfo wrote in between.
	sessions := map[string]string{}
	for _, m := range list(eve, "") {
		sessions[m.ID+m.Content[:3]] = m.SessionID
	}
	if sessions["s1sha"] == "" || sessions["m1eve"] != sessions["s1sha"] {
		t.Errorf("eve's sessions %v: her turns should continue the shared one", sessions)
	}

	// Neighbours and positions count only turns the reader can read.
	cands, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: eve, Text: "zzkickoff", Limit: 1, Neighbors: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cands {
		got = append(got, c.ID+":"+c.Content[:3])
	}
	slices.Sort(got)
	if want := []string{"m1:eve", "s1:sha"}; !slices.Equal(got, want) {
		t.Errorf("zzkickoff and its neighbour for eve: %v, want %v (her m1 follows the shared turn in her view)", got, want)
	}
	for _, c := range cands {
		if c.ID == "m1" && c.Pos != 2 {
			t.Errorf("eve's m1 at position %d of her view, want 2", c.Pos)
		}
	}
}
