package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// MessageFactory opens a fresh store that is also a MessageStore and can
// supply message candidates.
type MessageFactory func(t *testing.T, now func() time.Time) MessageStore

// MessageStore is what the message conformance tests need.
type MessageStore interface {
	tenure.Store
	tenure.MessageStore
	MessageCandidates(ctx context.Context, q tenure.MessageQuery) ([]tenure.ScoredMessage, error)
}

func msg(thread, id, speaker, content string, at time.Time) tenure.Message {
	return tenure.Message{ThreadID: thread, ID: id, Role: "user", Speaker: speaker, Content: content, CreatedAt: at}
}

// RunMessages runs the message conformance suite.
func RunMessages(t *testing.T, f MessageFactory) {
	t.Run("AppendAndList", func(t *testing.T) { testAppendAndList(t, f) })
	t.Run("Idempotent", func(t *testing.T) { testIdempotent(t, f) })
	t.Run("InvalidAllOrNothing", func(t *testing.T) { testMessagesInvalid(t, f) })
	t.Run("Isolation", func(t *testing.T) { testMessageIsolation(t, f) })
	t.Run("Namespaces", func(t *testing.T) { testMessageNamespaces(t, f) })
	t.Run("Personas", func(t *testing.T) { testPersonas(t, f) })
	t.Run("PersonaThreads", func(t *testing.T) { testPersonaThreads(t, f) })
	t.Run("Candidates", func(t *testing.T) { testMessageCandidates(t, f) })
	t.Run("WideMatches", func(t *testing.T) { testWideMatches(t, f) })
	t.Run("Watermark", func(t *testing.T) { testWatermark(t, f) })
	t.Run("Recent", func(t *testing.T) { testRecent(t, f) })
	t.Run("ObjectRanking", func(t *testing.T) { testObjectRanking(t, f) })
}

func newMsgEnv(t *testing.T, f MessageFactory) (MessageStore, *Clock) {
	c := NewClock(T0)
	return f(t, c.Now), c
}

func testAppendAndList(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	d := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	in := []tenure.Message{
		msg("conv", "D1:1", "Caroline", "Hey Mel! Good to see you!", d),
		msg("conv", "D1:2", "Melanie", "Hey Caroline! I'm swamped with the kids & work.", d),
		{ThreadID: "conv", ID: "D1:3", Role: "user", Speaker: "Caroline", Content: "I went to a LGBTQ support group yesterday.",
			CreatedAt: d, Attachments: []tenure.Attachment{{Kind: "image", Caption: "a rainbow flag"}}},
	}
	r, err := s.AppendMessages(ctx, employee, in)
	if err != nil || r.Appended != 3 {
		t.Fatalf("append = %+v, %v", r, err)
	}
	got, err := s.Messages(ctx, employee, tenure.MessageFilter{ThreadID: "conv"})
	if err != nil || len(got) != 3 {
		t.Fatalf("list = %d messages, %v", len(got), err)
	}
	m := got[2]
	if m.ID != "D1:3" || m.Tokens == 0 || len(m.Attachments) != 1 || !strings.Contains(m.Text(), "[shared image: a rainbow flag]") {
		t.Errorf("stored message = %+v", m)
	}
	if len(m.Dates) != 1 || m.Dates[0].Date.Format(time.DateOnly) != "2023-05-07" {
		t.Errorf("resolved dates = %+v, want yesterday = 2023-05-07", m.Dates)
	}
	if got[0].SessionID == "" || got[0].SessionID != got[2].SessionID {
		t.Errorf("sessions %q %q: turns minutes apart should share a derived session", got[0].SessionID, got[2].SessionID)
	}
	later, err := s.AppendMessages(ctx, employee, []tenure.Message{msg("conv", "D2:1", "Caroline", "Back again", d.Add(24*time.Hour))})
	if err != nil || later.Appended != 1 {
		t.Fatal(err)
	}
	got, _ = s.Messages(ctx, employee, tenure.MessageFilter{ThreadID: "conv"})
	if got[3].SessionID == got[2].SessionID {
		t.Errorf("a day of silence did not start a new session")
	}
}

func testIdempotent(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	m := msg("th", "1", "Ann", "hello there", T0)
	if _, err := s.AppendMessages(ctx, employee, []tenure.Message{m}); err != nil {
		t.Fatal(err)
	}
	r, err := s.AppendMessages(ctx, employee, []tenure.Message{m, m})
	if err != nil || r.Appended != 0 || r.Skipped != 2 {
		t.Errorf("re-append = %+v, %v; want 2 skipped", r, err)
	}
	m.Content = "something else"
	_, err = s.AppendMessages(ctx, employee, []tenure.Message{msg("th", "2", "Ann", "new", T0), m})
	wantCode(t, err, tenure.CodeConflict, "[1].id")
	got, _ := s.Messages(ctx, employee, tenure.MessageFilter{ThreadID: "th"})
	if len(got) != 1 {
		t.Errorf("a failed append left %d messages, want 1", len(got))
	}
}

func testMessagesInvalid(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	ok := func() tenure.Message { return msg("th", "1", "Ann", "hi", T0) }
	cases := []struct {
		name  string
		mut   func(*tenure.Message)
		code  tenure.Code
		field string
	}{
		{"NoThread", func(m *tenure.Message) { m.ThreadID = "" }, tenure.CodeInvalid, "[1].thread_id"},
		{"NoID", func(m *tenure.Message) { m.ID = "" }, tenure.CodeInvalid, "[1].id"},
		{"Role", func(m *tenure.Message) { m.Role = "narrator" }, tenure.CodeInvalid, "[1].role"},
		{"Empty", func(m *tenure.Message) { m.Content = "  " }, tenure.CodeInvalid, "[1].content"},
		{"NoTime", func(m *tenure.Message) { m.CreatedAt = time.Time{} }, tenure.CodeInvalid, "[1].created_at"},
		{"TimeOutOfCalendar", func(m *tenure.Message) { m.CreatedAt = time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC) }, tenure.CodeInvalid, "[1].created_at"},
		{"OtherTenant", func(m *tenure.Message) { m.TenantID = "globex" }, tenure.CodeForbidden, "[1].tenant_id"},
		{"OtherUser", func(m *tenure.Message) { m.UserID = "someone" }, tenure.CodeForbidden, "[1].user_id"},
		{"Attachment", func(m *tenure.Message) { m.Attachments = []tenure.Attachment{{}} }, tenure.CodeInvalid, "[1].attachments[0].kind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := ok()
			bad.ID = "2"
			c.mut(&bad)
			_, err := s.AppendMessages(ctx, employee, []tenure.Message{ok(), bad})
			wantCode(t, err, c.code, c.field)
		})
	}
	if got, _ := s.Messages(ctx, employee, tenure.MessageFilter{ThreadID: "th"}); len(got) != 0 {
		t.Errorf("invalid batches left %d messages", len(got))
	}
	_, err := s.Messages(ctx, employee, tenure.MessageFilter{})
	wantCode(t, err, tenure.CodeInvalid, "thread_id")
}

func testMessageIsolation(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	private := msg("th", "p1", "Eve", "my zzprivate diary", T0)
	private.UserID = "eve"
	if _, err := s.AppendMessages(ctx, employee, []tenure.Message{msg("th", "1", "Eve", "zzshared note", T0), private}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []tenure.Principal{outsider, intern} {
		got, _ := s.Messages(ctx, p, tenure.MessageFilter{ThreadID: "th"})
		cands, _ := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: p, Text: "zzprivate zzshared diary note"})
		for _, m := range append(got, scoredToMessages(cands)...) {
			if m.ID == "p1" || (p.TenantID != employee.TenantID) {
				t.Errorf("%s/%s sees message %s", p.TenantID, p.UserID, m.ID)
			}
		}
	}
	got, _ := s.Messages(ctx, employee, tenure.MessageFilter{ThreadID: "th"})
	if len(got) != 2 {
		t.Errorf("owner sees %d messages, want 2", len(got))
	}
}

func scoredToMessages(s []tenure.ScoredMessage) []tenure.Message {
	out := make([]tenure.Message, len(s))
	for i := range s {
		out[i] = s[i].Message
	}
	return out
}

func testMessageCandidates(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	d := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var in []tenure.Message
	for i, text := range []string{
		"How was your weekend?",
		"I went to a LGBTQ support group yesterday and it was so powerful.",
		"That sounds amazing, what happened there?",
		"We talked about transgender stories and support.",
		"I painted a sunrise over the lake last year.",
		"Beautiful! I love painting too.",
	} {
		in = append(in, msg("conv", fmt.Sprintf("D1:%d", i+1), []string{"Melanie", "Caroline"}[i%2], text, d))
	}
	if _, err := s.AppendMessages(ctx, employee, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "When did Caroline go to the support group?", Limit: 2, Neighbors: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].ID != "D1:2" || got[0].Score <= 0 {
		t.Fatalf("best match = %+v, want D1:2 with a positive score", got)
	}
	ids := map[string]float64{}
	for _, m := range got {
		ids[m.ID] = m.Score
	}
	if _, ok := ids["D1:1"]; !ok {
		t.Errorf("neighbour D1:1 of the best match missing: %v", ids)
	}
	if ids["D1:1"] != 0 {
		t.Errorf("neighbour scored %v, want 0", ids["D1:1"])
	}
	dated, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "7 May 2023", Limit: 3})
	if err != nil || len(dated) == 0 || dated[0].ID != "D1:2" {
		t.Errorf("search by resolved date = %+v, %v; want D1:2 (yesterday = 7 May 2023)", dated, err)
	}
	before := d.Add(-time.Hour)
	if early, _ := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "support", Before: &before}); len(early) != 0 {
		t.Errorf("Before filter returned %d messages", len(early))
	}
}

// The best matches bring the turns two away too: the answer to the
// question that follows a strong match.
func testWideMatches(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	var in []tenure.Message
	for i, text := range []string{"How was the weekend?", "We hiked up to the falls on Saturday.", "Which trail?",
		"The north ridge one, steep but lovely.", "Nice!", "Shall we go again?"} {
		in = append(in, msg("th", fmt.Sprint(i), []string{"Ann", "Ben"}[i%2], text, T0.Add(time.Duration(i)*time.Minute)))
	}
	if _, err := s.AppendMessages(ctx, employee, in); err != nil {
		t.Fatal(err)
	}
	ids := func(wide int) string {
		t.Helper()
		got, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "hiked falls", Limit: 1, Neighbors: 1, WideMatches: wide})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range got {
			out = append(out, m.ID)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	if got := ids(0); got != "0,1,2" {
		t.Errorf("one neighbour each side = %s, want 0,1,2", got)
	}
	if got := ids(1); got != "0,1,2,3" {
		t.Errorf("the best match widened = %s, want 0,1,2,3", got)
	}
	if _, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "falls", WideMatches: -1}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("negative WideMatches: err = %v, want invalid", err)
	}
}

func testWatermark(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	var in []tenure.Message
	// Appended out of time order, and three at the same instant: the
	// order is (created_at, append position), never the id's spelling.
	in = append(in, msg("th", "0", "Ann", "later", T0.Add(time.Minute)))
	for _, id := range []string{"D1:2", "D1:10", "D1:3"} {
		in = append(in, msg("th", id, "Ann", "same time "+id, T0))
	}
	if _, err := s.AppendMessages(ctx, employee, in); err != nil {
		t.Fatal(err)
	}
	ids := func(f tenure.MessageFilter) string {
		t.Helper()
		f.ThreadID = "th"
		got, err := s.Messages(ctx, employee, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range got {
			out = append(out, m.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(tenure.MessageFilter{}); got != "D1:2,D1:10,D1:3,0" {
		t.Errorf("order = %v, want D1:2,D1:10,D1:3,0", got)
	}
	if got := ids(tenure.MessageFilter{AfterID: "D1:10"}); got != "D1:3,0" {
		t.Errorf("after D1:10 = %v, want D1:3,0", got)
	}
	if got := ids(tenure.MessageFilter{AfterTime: &T0}); got != "0" {
		t.Errorf("after T0 = %v, want 0", got)
	}
	_, err := s.Messages(ctx, employee, tenure.MessageFilter{ThreadID: "th", AfterID: "nope"})
	if tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("unknown watermark: err = %v, want not_found", err)
	}
}

func testRecent(t *testing.T, f MessageFactory) {
	s, _ := newMsgEnv(t, f)
	ctx := t.Context()
	var in []tenure.Message
	for i, text := range []string{"rex chewed my shoes", "a blue vase", "marathon training", "tea later?"} {
		in = append(in, msg("th", fmt.Sprint(i), "Ann", text, T0.Add(time.Duration(i)*time.Minute)))
	}
	if _, err := s.AppendMessages(ctx, employee, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "rex", Limit: 5, Recent: 2})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, fmt.Sprintf("%s:%v", m.ID, m.Score > 0))
	}
	// The match first, then the two latest (neither matched).
	if strings.Join(ids, ",") != "0:true,3:false,2:false" {
		t.Errorf("candidates = %v, want 0:true,3:false,2:false", ids)
	}
	// Matches holding enough tokens leave no room for the latest turns.
	full, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "rex", Limit: 5, Recent: 2, RecentUnlessTokens: 1})
	if err != nil || len(full) != 1 || full[0].ID != "0" {
		t.Errorf("recent with the matches holding enough tokens = %+v, %v; want the match alone", full, err)
	}
	roomy, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "rex", Limit: 5, Recent: 2, RecentUnlessTokens: 1000})
	if err != nil || len(roomy) != 3 {
		t.Errorf("recent with the matches holding few tokens = %+v, %v; want the match and two latest", roomy, err)
	}
	none, err := s.MessageCandidates(ctx, tenure.MessageQuery{Principal: employee, Text: "", Recent: 1})
	if err != nil || len(none) != 1 || none[0].ID != "3" {
		t.Errorf("recent without a query = %+v, %v; want message 3", none, err)
	}
	for _, q := range []tenure.MessageQuery{{Recent: -1}, {Recent: 10_001}, {Neighbors: 11}, {Limit: 10_001}, {RecentUnlessTokens: -1}} {
		q.Principal, q.Text = employee, "rex"
		if _, err := s.MessageCandidates(ctx, q); tenure.ErrorCode(err) != tenure.CodeInvalid {
			t.Errorf("MessageCandidates(%+v): err = %v, want invalid", q, err)
		}
	}
}
