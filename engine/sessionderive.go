package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/tenure-dev/tenure"
)

// ThreadView is a thread as one user's messages see it: the user's own
// messages and the shared ones (no user), or, for the shared ones, only
// those; and of those, the persona's and the global ones (no persona). A
// message's derived session is decided within its view, so that no one's
// session ids depend on messages they cannot read.
type ThreadView struct{ Thread, User, Persona string }

// ViewReader reads what a store holds of a view during an append. A store
// inserts the messages it has queued before it reads, so that the view
// includes them.
type ViewReader interface {
	// LastOfView returns the session and creation time of the view's last
	// stored message; ok is false when the view has none.
	LastOfView(ctx context.Context, v ThreadView) (session string, at time.Time, ok bool, err error)
	// CountAutoSessions counts the distinct sessions of the thread whose
	// messages have exactly the view's user and persona and whose ids
	// start with prefix (AutoSessionPrefix).
	CountAutoSessions(ctx context.Context, v ThreadView, prefix string) (int, error)
}

// SessionDeriver gives the messages of one append their sessions, the
// same way in every store: a message without one continues its view's
// last session, or starts the next derived one ("auto-…-N") after a gap
// longer than the deriver's, or when the view has none. Each view is read
// once per append; the messages appended since move it on in memory.
type SessionDeriver struct {
	r        ViewReader
	gap      time.Duration
	views    map[ThreadView]*viewState
	byThread map[string][]ThreadView
}

// viewState is the last message of a view during an append. autos counts
// the derived sessions the view's user started, once counted is set.
type viewState struct {
	session string
	last    time.Time
	autos   int
	counted bool
}

// NewSessionDeriver returns a deriver for one append that reads views
// through r.
func NewSessionDeriver(r ViewReader, gap time.Duration) *SessionDeriver {
	return &SessionDeriver{r: r, gap: gap, views: map[ThreadView]*viewState{}, byThread: map[string][]ThreadView{}}
}

// Assign sets m's session when it has none and records m as the last
// message of every loaded view that holds it: its own user's, and all of
// the thread's for a shared message.
func (d *SessionDeriver) Assign(ctx context.Context, m *tenure.Message) error {
	k := ThreadView{m.ThreadID, m.UserID, m.PersonaID}
	v, err := d.view(ctx, k)
	if err != nil {
		return err
	}
	if m.SessionID == "" {
		m.SessionID = v.session
		if m.SessionID == "" || m.CreatedAt.Sub(v.last) > d.gap {
			n, err := d.nextAuto(ctx, k, v)
			if err != nil {
				return err
			}
			m.SessionID = AutoSessionPrefix(m.UserID, m.PersonaID) + strconv.Itoa(n)
		}
	}
	for _, o := range d.byThread[m.ThreadID] {
		if w := d.views[o]; (m.UserID == "" || o.User == m.UserID) && (m.PersonaID == "" || o.Persona == m.PersonaID) {
			w.session = m.SessionID
			if m.CreatedAt.After(w.last) {
				w.last = m.CreatedAt
			}
		}
	}
	return nil
}

func (d *SessionDeriver) view(ctx context.Context, k ThreadView) (*viewState, error) {
	if v, ok := d.views[k]; ok {
		return v, nil
	}
	v := &viewState{}
	session, last, ok, err := d.r.LastOfView(ctx, k)
	switch {
	case err != nil:
		return nil, err
	case ok:
		v.session, v.last = session, last
	default:
		v.counted = true // an empty view has no sessions
	}
	d.views[k] = v
	d.byThread[k.Thread] = append(d.byThread[k.Thread], k)
	return v, nil
}

// nextAuto returns the number of the next session derived for the view's
// user, counting (once) those it already started.
func (d *SessionDeriver) nextAuto(ctx context.Context, k ThreadView, v *viewState) (int, error) {
	if !v.counted {
		n, err := d.r.CountAutoSessions(ctx, k, AutoSessionPrefix(k.User, k.Persona))
		if err != nil {
			return 0, err
		}
		v.autos, v.counted = n, true
	}
	v.autos++
	return v.autos, nil
}
