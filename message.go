package tenure

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Message is a conversation turn, stored append-only in a thread. Messages
// are session state: the compiler considers past messages as candidates and
// renders them compactly with their ids and dates.
type Message struct {
	TenantID string `json:"tenant_id,omitempty"`
	// UserID and ProjectID scope the message like an object's; a message
	// naming a user is visible only to that user.
	UserID    string `json:"user_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
	// PersonaID is the persona the conversation is with (set by the store
	// from the principal's persona when empty): a message naming a
	// persona is visible only to principals acting as that persona.
	PersonaID string `json:"persona_id,omitempty"`
	ThreadID  string `json:"thread_id"`
	// ID is stable and unique within the thread and the user: each user
	// (and UserID "" for messages shared with the tenant) has ids of its
	// own, so another user's message never collides with one's own.
	ID string `json:"id"`
	// SessionID groups turns into sessions; empty means sessions are
	// derived from gaps in created_at.
	SessionID   string       `json:"session_id,omitempty"`
	Role        string       `json:"role"`
	Speaker     string       `json:"speaker,omitempty"`
	Content     string       `json:"content"`
	CreatedAt   time.Time    `json:"created_at"`
	Attachments []Attachment `json:"attachments,omitempty"`
	// Tokens is the token count of Text in cl100k_base (set by the store).
	Tokens int `json:"tokens,omitempty"`
	// Dates are the calendar dates the message's temporal expressions
	// resolve to against CreatedAt (set by the store).
	Dates []ResolvedDate `json:"dates,omitempty"`
}

// Attachment is something shared with a message, such as an image, known
// by its caption.
type Attachment struct {
	Kind    string `json:"kind"`
	Caption string `json:"caption,omitempty"`
	URL     string `json:"url,omitempty"`
}

// ResolvedDate is a temporal expression of a message and the date it
// denotes.
type ResolvedDate struct {
	Expr string    `json:"expr"`
	Date time.Time `json:"date"`
	// Granularity is day, week, month or year: the precision of Date,
	// which is the period's first day (see Precision).
	Granularity string `json:"granularity"`
}

// Message roles.
var MessageRoles = []string{"user", "assistant", "system", "tool"}

// Text is the message as it is searched and shown: its content followed by
// its attachments' captions.
func (m *Message) Text() string {
	if len(m.Attachments) == 0 {
		return m.Content
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, a := range m.Attachments {
		if a.Caption == "" {
			continue
		}
		fmt.Fprintf(&b, " [shared %s: %s]", a.Kind, a.Caption)
	}
	return b.String()
}

// Validate checks a message for appending (tenant and tokens are set by the
// store).
func (m *Message) Validate() error { return m.ValidateWithin(MaxContentLen) }

// ValidateWithin is Validate with the content limited to max bytes
// (MaxContentLen when max <= 0): over it, CodeTooLarge naming "content".
func (m *Message) ValidateWithin(max int) error {
	if max <= 0 {
		max = MaxContentLen
	}
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"thread_id", m.ThreadID, true}, {"id", m.ID, true}, {"session_id", m.SessionID, false},
		{"speaker", m.Speaker, false}, {"user_id", m.UserID, false}, {"project_id", m.ProjectID, false},
		{"persona_id", m.PersonaID, false}} {
		if err := checkID(f.name, f.v, f.required); err != nil {
			return err
		}
	}
	if err := checkVocab("role", m.Role, MessageRoles); err != nil {
		return err
	}
	if strings.TrimSpace(m.Content) == "" && len(m.Attachments) == 0 {
		return Errorf(CodeInvalid, "content", "a message needs content or an attachment")
	}
	if len(m.Content) > max {
		return Errorf(CodeTooLarge, "content", "longer than %d bytes", max)
	}
	if m.CreatedAt.IsZero() {
		return Errorf(CodeInvalid, "created_at", "required")
	}
	if !InCalendar(m.CreatedAt) {
		return Errorf(CodeInvalid, "created_at", "year %d is outside %d-%d", m.CreatedAt.UTC().Year(), MinYear, MaxYear)
	}
	if len(m.Attachments) > MaxListLen {
		return Errorf(CodeTooLarge, "attachments", "more than %d", MaxListLen)
	}
	for i, a := range m.Attachments {
		if err := checkID(fmt.Sprintf("attachments[%d].kind", i), a.Kind, true); err != nil {
			return err
		}
		if len(a.Caption) > MaxContentLen/16 {
			return Errorf(CodeTooLarge, fmt.Sprintf("attachments[%d].caption", i), "too long")
		}
	}
	return nil
}

// MessageStore appends and reads messages.
type MessageStore interface {
	// AppendMessages appends messages in one transaction, all or nothing.
	// Re-appending a message with the same thread, user, id and content is
	// a no-op (counted as skipped); the same with other content is a
	// CodeConflict. Another user's message with that id is a different
	// message: both are stored. Errors: CodeInvalid (field prefixed with
	// the index), CodeForbidden, CodeConflict.
	AppendMessages(ctx context.Context, p Principal, msgs []Message) (AppendResult, error)
	// Messages lists a thread's messages visible to p in order.
	Messages(ctx context.Context, p Principal, f MessageFilter) ([]Message, error)
}

// AppendResult counts an append.
type AppendResult struct {
	Appended int `json:"appended"`
	Skipped  int `json:"skipped"`
}

// MessageFilter selects messages of a thread.
type MessageFilter struct {
	Scope    Scope  `json:"scope"`
	ThreadID string `json:"thread_id"`
	// AfterTime returns only messages created strictly after it.
	AfterTime *time.Time `json:"after_time,omitempty"`
	// AfterID returns only messages after this one in the thread's order
	// (created_at, then append order): a watermark for incremental reads.
	AfterID string `json:"after_id,omitempty"`
	// Limit caps the result (default 1000, at most 100,000).
	Limit int `json:"limit,omitempty"`
}

// MessageQuery asks for message candidates of a compilation.
type MessageQuery struct {
	Principal Principal
	Scope     Scope
	// Text is the query; Limit caps the full-text matches.
	Text  string
	Limit int
	// Neighbors adds up to this many turns on each side of every match,
	// and one more around each of the WideMatches best matches: the reply
	// to the question that follows a strong match is often the answer.
	Neighbors   int
	WideMatches int
	// Recent adds up to this many of the latest appended messages, matched
	// or not: what fills a budget the matches leave unused.
	Recent int
	// RecentUnlessTokens, when positive, skips Recent once the matches and
	// their neighbours hold at least this many tokens: a caller that can
	// use only so many has no budget left for them.
	RecentUnlessTokens int
	// Before keeps only messages created before this time (nil: all).
	Before *time.Time
	// Threads keeps only messages of these threads (nil: every thread).
	Threads []string
	// Vector, a unit vector in the embedding space named Model, adds the
	// VectorLimit messages whose vectors of Model are most similar to it,
	// with neighbours as for the full-text matches, and sets Similarity on
	// every candidate that has a vector of Model.
	Vector      []float32
	Model       string
	VectorLimit int
}

// ScoredMessage is a message candidate with its full-text score (higher is
// better; 0 for neighbours and recent turns that did not match).
type ScoredMessage struct {
	Message
	Score float64 `json:"score"`
	// Similarity is the cosine similarity of the message's vector to the
	// query's (MessageQuery.Vector), when it has one (Embedded); Near
	// ranks it among the query's nearest messages (1 the nearest, 0 when
	// it is not one of them).
	Similarity float64 `json:"similarity,omitempty"`
	Embedded   bool    `json:"embedded,omitempty"`
	Near       int     `json:"near,omitempty"`
	// Seq orders messages as they were appended; Pos is the position in
	// the thread among the messages the reader can read.
	Seq int64 `json:"seq"`
	Pos int64 `json:"pos"`
}
