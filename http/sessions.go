package http

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tenure-dev/tenure"
)

// SessionList is the body of GET /v1/sessions.
type SessionList struct {
	Sessions []tenure.Session `json:"sessions"`
}

// PersonaHeader names the persona a request acts as, for a key bound to
// none (a key bound to a persona may name only its own).
const PersonaHeader = "Tenure-Persona"

// sessionStore returns the store's sessions, or CodeUnavailable when it
// keeps none.
func (s *Server) sessionStore() (tenure.SessionStore, error) {
	ss, ok := s.store.(tenure.SessionStore)
	if !ok {
		return nil, tenure.Errorf(tenure.CodeUnavailable, "", "this store keeps no session records")
	}
	return ss, nil
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	sq := tenure.SessionQuery{ThreadID: q.str("thread_id"), SessionID: q.str("session_id"), Active: q.bool("active", false), Limit: q.int("limit")}
	if err := q.done(); err != nil {
		return nil, err
	}
	ss, err := s.sessionStore()
	if err != nil {
		return nil, err
	}
	var out []tenure.Session
	err = s.metrics.op("sessions", func() (err error) { out, err = ss.Sessions(r.Context(), p, sq); return })
	if out == nil {
		out = []tenure.Session{}
	}
	return SessionList{Sessions: out}, err
}

func (s *Server) sessionState(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	ss, err := s.sessionStore()
	if err != nil {
		return nil, err
	}
	var st tenure.SessionState
	err = s.metrics.op("session_state", func() (err error) { st, err = ss.SessionState(r.Context(), p); return })
	return st, err
}

var _ tenure.SessionStore = (*Client)(nil)

// Sessions implements tenure.SessionStore (GET /v1/sessions).
func (c *Client) Sessions(ctx context.Context, _ tenure.Principal, sq tenure.SessionQuery) ([]tenure.Session, error) {
	q := url.Values{}
	set(q, "thread_id", sq.ThreadID)
	set(q, "session_id", sq.SessionID)
	if sq.Active {
		q.Set("active", "true")
	}
	if sq.Limit != 0 {
		q.Set("limit", strconv.Itoa(sq.Limit))
	}
	var res SessionList
	err := c.do(ctx, "sessions", http.MethodGet, "/v1/sessions", q, nil, &res)
	return res.Sessions, err
}

// Session implements tenure.SessionStore (GET /v1/sessions with the
// thread and session).
func (c *Client) Session(ctx context.Context, p tenure.Principal, thread, session string) (tenure.Session, error) {
	if thread == "" || session == "" {
		return tenure.Session{}, tenure.Errorf(tenure.CodeInvalid, "session_id", "thread and session required")
	}
	out, err := c.Sessions(ctx, p, tenure.SessionQuery{ThreadID: thread, SessionID: session})
	if err != nil {
		return tenure.Session{}, err
	}
	if len(out) == 0 {
		return tenure.Session{}, tenure.Errorf(tenure.CodeNotFound, "session_id", "no session %q in thread %q", session, thread)
	}
	return out[0], nil
}

// SessionState implements tenure.SessionStore (GET /v1/session-state).
func (c *Client) SessionState(ctx context.Context, _ tenure.Principal) (tenure.SessionState, error) {
	var st tenure.SessionState
	err := c.do(ctx, "session state", http.MethodGet, "/v1/session-state", nil, nil, &st)
	return st, err
}
