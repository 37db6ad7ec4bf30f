package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// storedViews is a ViewReader over a few stored messages, counting reads.
type storedViews struct {
	msgs          []tenure.Message
	lasts, counts int
}

func (s *storedViews) LastOfView(_ context.Context, v engine.ThreadView) (string, time.Time, bool, error) {
	s.lasts++
	for i := len(s.msgs) - 1; i >= 0; i-- {
		m := s.msgs[i]
		if m.ThreadID == v.Thread && (m.UserID == "" || m.UserID == v.User) && (m.PersonaID == "" || m.PersonaID == v.Persona) {
			return m.SessionID, m.CreatedAt, true, nil
		}
	}
	return "", time.Time{}, false, nil
}

func (s *storedViews) CountAutoSessions(_ context.Context, v engine.ThreadView, prefix string) (int, error) {
	s.counts++
	seen := map[string]bool{}
	for _, m := range s.msgs {
		if m.ThreadID == v.Thread && m.UserID == v.User && m.PersonaID == v.Persona && len(m.SessionID) > len(prefix) &&
			m.SessionID[:len(prefix)] == prefix {
			seen[m.SessionID] = true
		}
	}
	return len(seen), nil
}

// TestSessionDeriver derives sessions as every store does: a message
// continues its view's last session within the gap and starts the next
// derived one after it; a shared message moves every loaded view of its
// thread, a user's own only that user's; a given session is kept; each
// view is read once, and its derived sessions counted once if it had any.
func TestSessionDeriver(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	stored := &storedViews{msgs: []tenure.Message{
		{ThreadID: "th", UserID: "ann", SessionID: "auto-ann-1", CreatedAt: at},
		{ThreadID: "th", UserID: "ann", SessionID: "auto-ann-2", CreatedAt: at.Add(2 * time.Hour)},
	}}
	d := engine.NewSessionDeriver(stored, 30*time.Minute)
	ctx := context.Background()
	steps := []struct {
		m    tenure.Message
		want string
	}{
		{tenure.Message{ThreadID: "th", UserID: "ann", CreatedAt: at.Add(2*time.Hour + 10*time.Minute)}, "auto-ann-2"},
		{tenure.Message{ThreadID: "th", UserID: "bob", CreatedAt: at.Add(2*time.Hour + 11*time.Minute)}, "auto-bob-1"},
		{tenure.Message{ThreadID: "th", CreatedAt: at.Add(2*time.Hour + 12*time.Minute)}, "auto-1"},
		// ann's view holds the shared message: her session moves to it.
		{tenure.Message{ThreadID: "th", UserID: "ann", CreatedAt: at.Add(2*time.Hour + 13*time.Minute)}, "auto-1"},
		{tenure.Message{ThreadID: "th", UserID: "ann", CreatedAt: at.Add(4 * time.Hour)}, "auto-ann-3"},
		// bob's view last moved with the shared message, two hours ago.
		{tenure.Message{ThreadID: "th", UserID: "bob", CreatedAt: at.Add(4*time.Hour + time.Minute)}, "auto-bob-2"},
		{tenure.Message{ThreadID: "th", UserID: "bob", SessionID: "standup", CreatedAt: at.Add(4*time.Hour + 2*time.Minute)}, "standup"},
		{tenure.Message{ThreadID: "other", UserID: "ann", CreatedAt: at.Add(4 * time.Hour)}, "auto-ann-1"},
	}
	for i, s := range steps {
		m := s.m
		if err := d.Assign(ctx, &m); err != nil {
			t.Fatal(err)
		}
		if m.SessionID != s.want {
			t.Errorf("step %d (%s at %s): session %q, want %q", i, m.UserID, m.CreatedAt.Format(time.Kitchen), m.SessionID, s.want)
		}
	}
	// Only ann's view of th had stored messages to count sessions among.
	if stored.lasts != 4 || stored.counts != 1 {
		t.Errorf("views read %d times, sessions counted %d times; want 4 and 1", stored.lasts, stored.counts)
	}
}
