package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/temporal"
)

// MaxMessageBatch caps one AppendMessages call.
const MaxMessageBatch = 100_000

// DefaultSessionGap starts a new session when a thread was silent this
// long (used for messages without a session id).
const DefaultSessionGap = 30 * time.Minute

// AppendMessages implements tenure.MessageStore.
func (e *Engine) AppendMessages(ctx context.Context, p tenure.Principal, msgs []tenure.Message) (tenure.AppendResult, error) {
	if len(msgs) > MaxMessageBatch {
		return tenure.AppendResult{}, fmt.Errorf("append messages: %w",
			tenure.Errorf(tenure.CodeTooLarge, "messages", "more than %d in one call (use ImportMessages)", MaxMessageBatch))
	}
	return e.ImportMessages(ctx, p, msgs, nil)
}

// importChunk is how many messages ImportMessages prepares and writes at
// a time, between progress reports.
const importChunk = 500

// ImportMessages appends any number of messages like AppendMessages, all
// or nothing in one transaction, and calls progress (when not nil) with the
// number of messages written so far as it goes, for a progress bar.
//
// Messages are prepared (validated, token-counted, dates resolved) a chunk
// ahead of the store writing them, so that the two overlap. Errors are
// reported as if every message had been prepared first: an invalid message
// before an id repeated with other content, both before a conflict with a
// stored message.
func (e *Engine) ImportMessages(ctx context.Context, p tenure.Principal, msgs []tenure.Message, progress func(done int)) (tenure.AppendResult, error) {
	var res tenure.AppendResult
	p, err := e.principal(p)
	if err != nil {
		return res, fmt.Errorf("append messages: %w", err)
	}
	if err := repeatedIDs(msgs); err != nil {
		if _, invalid := e.prepareMessages(p, msgs, 0); invalid != nil {
			err = invalid
		}
		return res, fmt.Errorf("append messages: %w", err)
	}
	if len(msgs) == 0 {
		return res, nil
	}
	chunks, stop := e.prepareChunks(p, msgs)
	defer stop()
	// The first chunk is prepared before the write lock is taken.
	first := <-chunks
	if first.err != nil {
		return res, fmt.Errorf("append messages: %w", first.err)
	}
	err = e.inTx(ctx, "append messages", func(tx Tx, _ *txClock) error {
		res = tenure.AppendResult{}
		done := 0
		var fresh []*tenure.Message
		for c, more := first, true; more; c, more = <-chunks {
			if c.err != nil {
				return c.err
			}
			inserted, existing, err := tx.InsertMessages(ctx, p.TenantID, c.msgs, e.opt.SessionGap)
			if err != nil {
				return err
			}
			for i, ok := range inserted {
				switch m := c.msgs[i].Message; {
				case ok:
					res.Appended++
					fresh = append(fresh, m)
				case sameMessage(&existing[i], m):
					res.Skipped++
				default:
					for c := range chunks { // an invalid message is reported first
						if c.err != nil {
							return c.err
						}
					}
					return tenure.Errorf(tenure.CodeConflict, fmt.Sprintf("[%d].id", done+i),
						"message %q already exists in thread %q with other content", m.ID, m.ThreadID)
				}
			}
			done += len(c.msgs)
			if progress != nil {
				progress(done)
			}
		}
		return e.recordTurns(ctx, tx, p, fresh)
	})
	if err != nil {
		return tenure.AppendResult{}, err
	}
	return res, nil
}

// threadMessage names a message within a tenant: its thread, its user's
// namespace (empty for shared messages) and its id.
type threadMessage struct{ thread, user, id string }

// repeatedIDs reports a message id that msgs give twice in a thread and
// namespace with different content.
func repeatedIDs(msgs []tenure.Message) error {
	seen := make(map[threadMessage]int, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		k := threadMessage{m.ThreadID, m.UserID, m.ID}
		if j, dup := seen[k]; dup && !sameMessage(&msgs[j], m) {
			return tenure.Errorf(tenure.CodeConflict, fmt.Sprintf("[%d].id", i),
				"message %q appears twice in thread %q with different content", m.ID, m.ThreadID)
		}
		seen[k] = i
	}
	return nil
}

// preparedChunk is a chunk of an import ready to write, or the error of
// its first invalid message.
type preparedChunk struct {
	msgs []NewMessage
	err  error
}

// prepareChunks prepares msgs importChunk at a time, in order, in the
// background, and sends the chunks on a channel that it closes after the
// last one or after the first invalid one. stop ends it early.
func (e *Engine) prepareChunks(p tenure.Principal, msgs []tenure.Message) (chunks <-chan preparedChunk, stop func()) {
	// Buffered for every chunk: the goroutine never waits for the writer.
	out := make(chan preparedChunk, (len(msgs)+importChunk-1)/importChunk)
	quit := make(chan struct{})
	go func() {
		defer close(out)
		for start := 0; start < len(msgs); start += importChunk {
			select {
			case <-quit:
				return
			default:
			}
			batch, err := e.prepareMessages(p, msgs[start:min(start+importChunk, len(msgs))], start)
			out <- preparedChunk{batch, err}
			if err != nil {
				return
			}
		}
	}()
	return out, func() { close(quit) }
}

// prepareMessages validates copies of msgs and derives their token counts
// and dates, on every core: counting tokens is most of the cost of
// preparing a message. The error is the first message's, as a sequential
// pass would report it, with its index counted from offset.
func (e *Engine) prepareMessages(p tenure.Principal, msgs []tenure.Message, offset int) ([]NewMessage, error) {
	batch := make([]NewMessage, len(msgs))
	errs := make([]error, len(msgs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(msgs)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(msgs); i += workers {
				m := msgs[i]
				if errs[i] = e.prepareMessage(p, &m); errs[i] == nil {
					batch[i], errs[i] = newMessage(&m)
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, indexed(offset+i, err)
		}
	}
	return batch, nil
}

// newMessage is a prepared message as the store writes it.
func newMessage(m *tenure.Message) (NewMessage, error) {
	nm := NewMessage{Message: m, Search: datesText(m.Dates)}
	if len(m.Dates) > 0 {
		b, err := json.Marshal(m.Dates)
		if err != nil {
			return nm, fmt.Errorf("dates: %w", err)
		}
		nm.Dates = string(b)
	}
	if len(m.Attachments) > 0 {
		b, err := json.Marshal(m.Attachments)
		if err != nil {
			return nm, fmt.Errorf("attachments: %w", err)
		}
		nm.Attachments = string(b)
		if s := m.Text(); s != m.Content {
			nm.Text = s
		}
	}
	return nm, nil
}

// prepareMessage validates a message and derives its token count and dates.
func (e *Engine) prepareMessage(p tenure.Principal, m *tenure.Message) error {
	if m.TenantID == "" {
		m.TenantID = p.TenantID
	} else if m.TenantID != p.TenantID {
		return tenure.Errorf(tenure.CodeForbidden, "tenant_id", "the principal belongs to tenant %q", p.TenantID)
	}
	if err := m.ValidateWithin(e.opt.MaxContentBytes); err != nil {
		return err
	}
	if m.UserID != "" && m.UserID != p.UserID && !p.HasPermission(tenure.PermAnyUser) {
		return tenure.Errorf(tenure.CodeForbidden, "user_id", "principal %q may not write for user %q", p.UserID, m.UserID)
	}
	// Messages are persona-scoped: a principal acting as a persona talks
	// to that persona.
	if m.PersonaID == "" {
		m.PersonaID = p.PersonaID
	} else if m.PersonaID != p.PersonaID {
		return tenure.Errorf(tenure.CodeForbidden, "persona_id", "a principal writes messages only for its own persona")
	}
	m.CreatedAt = m.CreatedAt.UTC()
	text := m.Text()
	m.Tokens = e.opt.CountTokens(text)
	m.Dates = e.opt.ResolveDates(text, m.CreatedAt)
	return nil
}

// sameMessage reports whether b restates a (an idempotent re-append).
func sameMessage(a, b *tenure.Message) bool {
	return a.Content == b.Content && a.Role == b.Role && a.Speaker == b.Speaker && a.CreatedAt.Equal(b.CreatedAt) &&
		slices.Equal(a.Attachments, b.Attachments)
}

// datesText renders resolved dates for full-text search, each as it is
// shown ("7 May 2023", "May 2023"): a question naming the date, or only
// its month, finds the message.
func datesText(ds []tenure.ResolvedDate) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = temporal.Format(d)
	}
	return strings.Join(parts, "; ")
}

// Messages implements tenure.MessageStore.
func (e *Engine) Messages(ctx context.Context, p tenure.Principal, f tenure.MessageFilter) ([]tenure.Message, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{Scope: f.Scope})
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	if f.ThreadID == "" {
		return nil, fmt.Errorf("messages: %w", tenure.Errorf(tenure.CodeInvalid, "thread_id", "required"))
	}
	if f.Limit < 0 || f.Limit > 100_000 {
		return nil, fmt.Errorf("messages: %w", tenure.Errorf(tenure.CodeInvalid, "limit", "must be between 0 and 100000"))
	}
	if f.Limit == 0 {
		f.Limit = 1000
	}
	msgs, err := e.b.Messages(ctx, p.TenantID, MessageList{ThreadID: f.ThreadID, AfterTime: f.AfterTime, AfterID: f.AfterID,
		UserID: s.UserID, PersonaID: p.PersonaID, ProjectID: s.ProjectID, Limit: f.Limit})
	if err != nil {
		return nil, wrap("messages", err)
	}
	if msgs == nil {
		msgs = []tenure.Message{}
	}
	return msgs, nil
}

// MessageCandidates returns the messages a compilation should consider
// (it implements compile.MessageSource).
func (e *Engine) MessageCandidates(ctx context.Context, q tenure.MessageQuery) ([]tenure.ScoredMessage, error) {
	p, err := e.principal(q.Principal)
	if err != nil {
		return nil, fmt.Errorf("message candidates: %w", err)
	}
	s, err := q.Scope.Resolve(p)
	if err != nil {
		return nil, fmt.Errorf("message candidates: %w", err)
	}
	words := retrieve.ContentWords(q.Text)
	if q.Limit <= 0 {
		q.Limit = 200
	}
	for _, c := range []struct {
		field    string
		v, limit int
	}{
		{"limit", q.Limit, 10_000}, {"neighbors", q.Neighbors, 10}, {"wide_matches", q.WideMatches, 10_000},
		{"recent", q.Recent, 10_000}, {"recent_unless_tokens", q.RecentUnlessTokens, 1 << 30},
	} {
		if c.v < 0 || c.v > c.limit {
			return nil, fmt.Errorf("message candidates: %w", tenure.Errorf(tenure.CodeInvalid, c.field, "must be between 0 and %d", c.limit))
		}
	}
	if len(q.Threads) > tenure.MaxListLen {
		return nil, fmt.Errorf("message candidates: %w", tenure.Errorf(tenure.CodeTooLarge, "threads", "more than %d threads", tenure.MaxListLen))
	}
	if err := checkVectorQuery(q); err != nil {
		return nil, fmt.Errorf("message candidates: %w", err)
	}
	out, err := e.b.MessageCandidates(ctx, p.TenantID, MessageCandidateFilter{Words: words, Limit: q.Limit,
		Neighbors: q.Neighbors, WideMatches: q.WideMatches, Recent: q.Recent, RecentUnlessTokens: q.RecentUnlessTokens,
		UserID: s.UserID, PersonaID: p.PersonaID, ProjectID: s.ProjectID, Before: q.Before, Threads: q.Threads})
	if err == nil && len(q.Vector) > 0 && q.VectorLimit > 0 {
		out, err = e.nearest(ctx, p.TenantID, s, q, out)
	}
	return out, wrapIf("message candidates", err)
}

// maxVectorDims bounds a query vector's length: the largest embedding
// models have a few thousand dimensions.
const maxVectorDims = 1 << 14

// checkVectorQuery checks the vector half of a message query.
func checkVectorQuery(q tenure.MessageQuery) error {
	switch {
	case q.VectorLimit < 0 || q.VectorLimit > 10_000:
		return tenure.Errorf(tenure.CodeInvalid, "vector_limit", "must be between 0 and 10000")
	case len(q.Vector) > maxVectorDims:
		return tenure.Errorf(tenure.CodeTooLarge, "vector", "more than %d dimensions", maxVectorDims)
	case len(q.Vector) > 0 && q.Model == "":
		return tenure.Errorf(tenure.CodeInvalid, "model", "required with a vector: the space the vector is in")
	}
	return nil
}
