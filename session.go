package tenure

import (
	"context"
	"time"
)

// Session is a run of a user's conversation with a persona in a thread:
// created by its first message, closed after a stretch of inactivity (30
// minutes by default) or when it is ended. Messages without a session id
// are grouped into sessions by those gaps; messages with one name theirs.
type Session struct {
	TenantID  string `json:"tenant_id"`
	UserID    string `json:"user_id,omitempty"`
	PersonaID string `json:"persona_id,omitempty"`
	ThreadID  string `json:"thread_id"`
	SessionID string `json:"session_id"`
	// StartedAt and LastActivityAt are the times of its first and latest
	// messages; TurnCount counts its messages.
	StartedAt      time.Time `json:"started_at"`
	LastActivityAt time.Time `json:"last_activity_at"`
	// EndedAt is when it closed: LastActivityAt plus the inactivity
	// window, the start of the session that followed it if that was
	// sooner, or when it was ended explicitly. Nil while it is active.
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	TurnCount int        `json:"turn_count"`
	// SummaryKey is the key of its structured summary, once written.
	SummaryKey string `json:"summary_key,omitempty"`
}

// Active reports whether the session is still open.
func (s *Session) Active() bool { return s.EndedAt == nil }

// SessionState is what survives across the sessions of a user with a
// persona (PersonaID "" for conversations with no persona): the message
// count, the last interaction, the curator's bookkeeping and the
// diagnostics of the rolling summary.
type SessionState struct {
	TenantID        string    `json:"tenant_id"`
	UserID          string    `json:"user_id,omitempty"`
	PersonaID       string    `json:"persona_id,omitempty"`
	MessageCount    int       `json:"message_count"`
	LastInteraction time.Time `json:"last_interaction"`
	// LastUserMessage is the latest user message, cut to
	// MaxLastUserMessage characters.
	LastUserMessage string     `json:"last_user_message,omitempty"`
	Curator         CuratorRun `json:"curator"`
	// LastRollingAttemptAt, LastRollingSuccessAt and LastRollingError
	// diagnose the rolling summary: when it was last due and tried, when
	// it was last written, and why the latest attempt failed (nil when it
	// did not).
	LastRollingAttemptAt *time.Time    `json:"last_rolling_attempt_at,omitempty"`
	LastRollingSuccessAt *time.Time    `json:"last_rolling_success_at,omitempty"`
	LastRollingError     *RollingError `json:"last_rolling_error,omitempty"`
}

// MaxLastUserMessage bounds SessionState.LastUserMessage, in characters.
const MaxLastUserMessage = 200

// CuratorRun is the curator's bookkeeping in a SessionState.
type CuratorRun struct {
	LastRunAt            *time.Time `json:"last_run_at,omitempty"`
	LastMemoryCountAtRun int        `json:"last_memory_count_at_run"`
}

// RollingError says why a rolling summary failed: Reason is an error code
// (CodeTimeout, CodeUnavailable ...), Detail the message.
type RollingError struct {
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// SessionQuery selects sessions of the principal's user that its persona
// may see (its own persona's and those with no persona).
type SessionQuery struct {
	// ThreadID and SessionID, when set, keep one thread's or one
	// session's records.
	ThreadID  string `json:"thread_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Active keeps the sessions still open.
	Active bool `json:"active,omitempty"`
	// Limit caps the result (default 100, at most 10,000).
	Limit int `json:"limit,omitempty"`
}

// SessionStore reads session records and session states.
type SessionStore interface {
	// Sessions lists the principal's sessions its persona may see, the
	// latest activity first; a session past its inactivity window is
	// reported ended. Errors: CodeInvalid.
	Sessions(ctx context.Context, p Principal, q SessionQuery) ([]Session, error)
	// Session returns one session. Errors: CodeInvalid, CodeNotFound
	// (none the principal may see).
	Session(ctx context.Context, p Principal, thread, session string) (Session, error)
	// SessionState returns the state of the principal's user with its
	// persona (zero counts when there is none yet). Errors: CodeInvalid.
	SessionState(ctx context.Context, p Principal) (SessionState, error)
}
