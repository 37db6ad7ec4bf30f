package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
)

// sessionGroup gathers the turns of one session in an append.
type sessionGroup struct {
	s    tenure.Session
	msgs int
}

var _ tenure.SessionStore = (*Engine)(nil)

// stateRef names a session state: a user and a persona.
type stateRef struct{ user, persona string }

// recordTurns updates the session records and session states of the
// messages just inserted (their session ids set by the store): each
// session's turn count and times, the sessions of the same thread and
// persona that a later session closed, and each user and persona's
// message count, last interaction and last user message.
func (e *Engine) recordTurns(ctx context.Context, tx Tx, p tenure.Principal, msgs []*tenure.Message) error {
	tenant := p.TenantID
	if len(msgs) == 0 {
		return nil
	}
	type sessionRef struct{ user, persona, thread, session string }
	groups := map[sessionRef]*sessionGroup{}
	var order []sessionRef
	states := map[stateRef]*tenure.SessionState{}
	lastUser := map[stateRef]*tenure.Message{} // clipped once, after the loop
	var stateOrder []stateRef
	for _, m := range msgs {
		k := sessionRef{m.UserID, m.PersonaID, m.ThreadID, m.SessionID}
		g := groups[k]
		if g == nil {
			g = &sessionGroup{s: tenure.Session{TenantID: tenant, UserID: m.UserID, PersonaID: m.PersonaID, ThreadID: m.ThreadID,
				SessionID: m.SessionID, StartedAt: m.CreatedAt, LastActivityAt: m.CreatedAt}}
			groups[k] = g
			order = append(order, k)
		}
		g.msgs++
		g.s.StartedAt = minTime(g.s.StartedAt, m.CreatedAt)
		g.s.LastActivityAt = maxTime(g.s.LastActivityAt, m.CreatedAt)
		// A state is the appending user's, whoever can read the message.
		sk := stateRef{p.UserID, m.PersonaID}
		st := states[sk]
		if st == nil {
			st = &tenure.SessionState{TenantID: tenant, UserID: p.UserID, PersonaID: m.PersonaID}
			states[sk] = st
			stateOrder = append(stateOrder, sk)
		}
		st.MessageCount++
		if !m.CreatedAt.Before(st.LastInteraction) {
			st.LastInteraction = m.CreatedAt
			if m.Role == "user" {
				lastUser[sk] = m
			}
		}
	}
	for k, m := range lastUser {
		states[k].LastUserMessage = clip(m.Text(), tenure.MaxLastUserMessage)
	}
	// Sessions are merged in the order they started, so that a session
	// closes those of its thread that went before it.
	slices.SortStableFunc(order, func(a, b sessionRef) int { return groups[a].s.StartedAt.Compare(groups[b].s.StartedAt) })
	for _, k := range order {
		g := groups[k]
		if err := e.mergeSession(ctx, tx, g); err != nil {
			return err
		}
	}
	for _, k := range stateOrder {
		add := states[k]
		persona := k.persona
		cur, err := tx.SessionStates(ctx, tenant, k.user, &persona)
		if err != nil {
			return err
		}
		st := *add
		if len(cur) > 0 {
			st = cur[0]
			st.MessageCount += add.MessageCount
			if !add.LastInteraction.Before(st.LastInteraction) {
				st.LastInteraction = add.LastInteraction
				if add.LastUserMessage != "" {
					st.LastUserMessage = add.LastUserMessage
				}
			}
		}
		if err := tx.PutSessionState(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// mergeSession adds a group of turns to its session's record, creating
// it, and closes the open sessions of the same user, persona and thread
// whose last turn came before the group's first.
func (e *Engine) mergeSession(ctx context.Context, tx Tx, g *sessionGroup) error {
	s := g.s
	open, err := tx.Sessions(ctx, s.TenantID, SessionFilter{Users: []string{s.UserID}, Personas: []string{s.PersonaID}, ThreadID: s.ThreadID, Open: true})
	if err != nil {
		return err
	}
	for _, o := range open {
		if o.SessionID == s.SessionID || !o.LastActivityAt.Before(s.StartedAt) {
			continue
		}
		end := minTime(o.LastActivityAt.Add(e.opt.SessionGap), s.StartedAt)
		o.EndedAt = &end
		if err := tx.PutSession(ctx, o); err != nil {
			return err
		}
	}
	cur, err := tx.Sessions(ctx, s.TenantID, SessionFilter{Users: []string{s.UserID}, Personas: []string{s.PersonaID}, ThreadID: s.ThreadID,
		SessionID: s.SessionID, Limit: 1})
	if err != nil {
		return err
	}
	if len(cur) > 0 {
		c := cur[0]
		c.StartedAt = minTime(c.StartedAt, s.StartedAt)
		c.LastActivityAt = maxTime(c.LastActivityAt, s.LastActivityAt)
		c.TurnCount += g.msgs
		if c.EndedAt != nil && c.EndedAt.Before(c.LastActivityAt) {
			c.EndedAt = nil // a late turn reopened it
		}
		s = c
	} else {
		s.TurnCount = g.msgs
	}
	return tx.PutSession(ctx, s)
}

// Sessions returns the principal's sessions that its persona may see,
// the latest activity first. A session whose inactivity window has passed
// is reported ended (EndedAt its last activity plus the window) even
// before anything recorded it. Errors: CodeInvalid.
func (e *Engine) Sessions(ctx context.Context, p tenure.Principal, q tenure.SessionQuery) ([]tenure.Session, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	if q.Limit < 0 || q.Limit > 10_000 {
		return nil, fmt.Errorf("sessions: %w", tenure.Errorf(tenure.CodeInvalid, "limit", "must be between 0 and 10000"))
	}
	for _, f := range []struct{ name, v string }{{"thread_id", q.ThreadID}, {"session_id", q.SessionID}} {
		if err := tenure.CheckID(f.name, f.v, false); err != nil {
			return nil, fmt.Errorf("sessions: %w", err)
		}
	}
	if q.Limit == 0 {
		q.Limit = 100
	}
	f := SessionFilter{Users: usersOf(s), Personas: personasOf(p), ThreadID: q.ThreadID, SessionID: q.SessionID, Open: q.Active}
	if !q.Active {
		f.Limit = q.Limit
	}
	out, err := e.b.Sessions(ctx, p.TenantID, f)
	if err != nil {
		return nil, wrap("sessions", err)
	}
	now := e.now()
	kept := out[:0]
	for _, x := range out {
		e.closeIdle(&x, now)
		if !q.Active || x.Active() {
			kept = append(kept, x)
		}
	}
	if len(kept) > q.Limit {
		kept = kept[:q.Limit]
	}
	if kept == nil {
		kept = []tenure.Session{}
	}
	return kept, nil
}

// Session returns one session of the principal's (CodeNotFound: none it
// may see).
func (e *Engine) Session(ctx context.Context, p tenure.Principal, thread, session string) (tenure.Session, error) {
	if thread == "" || session == "" {
		field := "thread_id"
		if thread != "" {
			field = "session_id"
		}
		return tenure.Session{}, fmt.Errorf("session: %w", tenure.Errorf(tenure.CodeInvalid, field, "required"))
	}
	out, err := e.Sessions(ctx, p, tenure.SessionQuery{ThreadID: thread, SessionID: session})
	if err != nil {
		return tenure.Session{}, err
	}
	if len(out) == 0 {
		return tenure.Session{}, fmt.Errorf("session: %w", tenure.Errorf(tenure.CodeNotFound, "session_id", "no session %q in thread %q", session, thread))
	}
	// One of the user's own persona, else the global one.
	slices.SortStableFunc(out, func(a, b tenure.Session) int { return cmp.Compare(b.PersonaID, a.PersonaID) })
	return out[0], nil
}

// closeIdle reports a session past its inactivity window as ended.
func (e *Engine) closeIdle(s *tenure.Session, now time.Time) {
	if s.EndedAt == nil {
		if end := s.LastActivityAt.Add(e.opt.SessionGap); !now.Before(end) {
			s.EndedAt = &end
		}
	}
}

// usersOf lists the users whose session records a reader in scope s may
// read: its own and the shared ones.
func usersOf(s tenure.Scope) []string {
	if s.UserID == "" {
		return []string{""}
	}
	return []string{"", s.UserID}
}

// personasOf lists the personas whose records p may read: none (global)
// and its own.
func personasOf(p tenure.Principal) []string {
	if p.PersonaID == "" {
		return []string{""}
	}
	return []string{"", p.PersonaID}
}

// SessionState returns the state of the principal's user with its persona
// (a zero state, with the user and persona set, when it has none yet).
func (e *Engine) SessionState(ctx context.Context, p tenure.Principal) (tenure.SessionState, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return tenure.SessionState{}, fmt.Errorf("session state: %w", err)
	}
	persona := p.PersonaID
	out, err := e.b.SessionStates(ctx, p.TenantID, s.UserID, &persona)
	if err != nil {
		return tenure.SessionState{}, wrap("session state", err)
	}
	if len(out) == 0 {
		return tenure.SessionState{TenantID: p.TenantID, UserID: s.UserID, PersonaID: persona}, nil
	}
	return out[0], nil
}

// RecordCuratorRun records in the principal's session state that the
// curator ran at `at` over memoryCount memories.
func (e *Engine) RecordCuratorRun(ctx context.Context, p tenure.Principal, at time.Time, memoryCount int) error {
	if memoryCount < 0 {
		return fmt.Errorf("record curator run: %w", tenure.Errorf(tenure.CodeInvalid, "memory_count", "must not be negative"))
	}
	at = at.UTC()
	return e.updateState(ctx, p, "record curator run", func(st *tenure.SessionState) {
		st.Curator = tenure.CuratorRun{LastRunAt: &at, LastMemoryCountAtRun: memoryCount}
	})
}

// noteRolling records a rolling-summary attempt at `at` and its outcome in
// the principal's session state. It only logs its own failure: the
// diagnostics never fail the summary.
func (e *Engine) noteRolling(ctx context.Context, p tenure.Principal, at time.Time, failure error) {
	err := e.updateState(ctx, p, "record rolling summary", func(st *tenure.SessionState) {
		st.LastRollingAttemptAt = &at
		if failure == nil {
			st.LastRollingSuccessAt, st.LastRollingError = &at, nil
			return
		}
		te := tenure.AsError(failure)
		st.LastRollingError = &tenure.RollingError{Reason: string(te.Code), Detail: clip(failure.Error(), 500)}
	})
	if err != nil {
		e.opt.Logger.Warn("session_state.failed", "err", err)
	}
}

// updateState changes the principal's session state in a transaction.
func (e *Engine) updateState(ctx context.Context, p tenure.Principal, op string, change func(*tenure.SessionState)) error {
	p, s, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return e.withTx(ctx, op, func(tx Tx) error {
		persona := p.PersonaID
		cur, err := tx.SessionStates(ctx, p.TenantID, s.UserID, &persona)
		if err != nil {
			return err
		}
		st := tenure.SessionState{TenantID: p.TenantID, UserID: s.UserID, PersonaID: persona}
		if len(cur) > 0 {
			st = cur[0]
		}
		change(&st)
		return tx.PutSessionState(ctx, st)
	})
}

// summarized records a session's summary key on its record and closes it.
func summarized(ctx context.Context, tx Tx, tenant string, p tenure.Principal, sc tenure.Scope, thread, session, key string, end time.Time) error {
	cur, err := tx.Sessions(ctx, tenant, SessionFilter{Users: usersOf(sc), Personas: []string{p.PersonaID}, ThreadID: thread, SessionID: session, Limit: 1})
	if err != nil || len(cur) == 0 {
		return err
	}
	s := cur[0]
	s.SummaryKey = key
	if s.EndedAt == nil {
		s.EndedAt = &end
	}
	return tx.PutSession(ctx, s)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// stateDiagnostics is what a store keeps of a session state beside its
// counters: the curator's bookkeeping and the rolling summary's
// diagnostics, times as Unix nanoseconds.
type stateDiagnostics struct {
	Curator              tenure.CuratorRun    `json:"curator"`
	LastRollingAttemptAt *int64               `json:"last_rolling_attempt_at,omitempty"`
	LastRollingSuccessAt *int64               `json:"last_rolling_success_at,omitempty"`
	LastRollingError     *tenure.RollingError `json:"last_rolling_error,omitempty"`
}

// EncodeStateDiagnostics returns the JSON a store keeps for s's
// diagnostics (every store alike, so that tenure migrate copies it as is).
func EncodeStateDiagnostics(s tenure.SessionState) ([]byte, error) {
	d := stateDiagnostics{Curator: s.Curator, LastRollingError: s.LastRollingError}
	if s.LastRollingAttemptAt != nil {
		d.LastRollingAttemptAt = tenure.Ptr(s.LastRollingAttemptAt.UnixNano())
	}
	if s.LastRollingSuccessAt != nil {
		d.LastRollingSuccessAt = tenure.Ptr(s.LastRollingSuccessAt.UnixNano())
	}
	return json.Marshal(d)
}

// DecodeStateDiagnostics sets s's diagnostics from what
// EncodeStateDiagnostics wrote.
func DecodeStateDiagnostics(b []byte, s *tenure.SessionState) error {
	var d stateDiagnostics
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	s.Curator, s.LastRollingError = d.Curator, d.LastRollingError
	if d.LastRollingAttemptAt != nil {
		s.LastRollingAttemptAt = tenure.Ptr(time.Unix(0, *d.LastRollingAttemptAt).UTC())
	}
	if d.LastRollingSuccessAt != nil {
		s.LastRollingSuccessAt = tenure.Ptr(time.Unix(0, *d.LastRollingSuccessAt).UTC())
	}
	return nil
}
