package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

// Watermark channels of the narrative summaries.
const (
	RollingChannel = "summary.rolling"
	SessionChannel = "summary.session"
)

// Summarizer writes narrative summaries (summarize.Extractive,
// summarize.LLM or a summarize.Fallback chain of both).
type Summarizer interface {
	Rolling(ctx context.Context, prev string, msgs []tenure.Message) (string, error)
	Session(ctx context.Context, msgs []tenure.Message) (summarize.SessionSummary, error)
}

// SummaryOptions configures the narrative channel. The zero value works.
type SummaryOptions struct {
	// RollingEvery is how many user turns pass between rolling summaries
	// (default summarize.DefaultRollingEvery).
	RollingEvery int
	// Inactivity closes a session after this much silence (default
	// summarize.DefaultInactivity).
	Inactivity time.Duration
	// MaxMessages caps the messages one run reads (default 1000).
	MaxMessages int
}

// SummaryResult reports one run of the narrative channel.
type SummaryResult struct {
	// Rolling is set when the rolling summary was rewritten.
	Rolling *tenure.Object `json:"rolling,omitempty"`
	// Sessions are the session summaries written.
	Sessions []tenure.Object `json:"sessions,omitempty"`
	// Spine is set when a new version of the user's summary spine was
	// written (see UpdateSpine).
	Spine *tenure.Object `json:"spine,omitempty"`
}

// RollingKey and SessionSummaryKey are where a thread's summaries are
// filed; each rewrite is a new version, so earlier ones stay in history.
func RollingKey(thread string) string { return "summary/" + thread + "/rolling" }

// SessionSummaryKey is the key of a session's structured summary.
func SessionSummaryKey(thread, session string) string {
	return "summary/" + thread + "/session/" + session
}

// Summarize brings a thread's narrative channel up to date: the rolling
// summary is rewritten once RollingEvery user turns have arrived since the
// last one, and every session closed by inactivity (or followed by a newer
// session) gets a structured summary. Each part advances its own watermark
// in the transaction that stores its summary; the two parts fail
// independently and the first error is returned after both ran.
func (e *Engine) Summarize(ctx context.Context, p tenure.Principal, thread string, s Summarizer, opt SummaryOptions) (SummaryResult, error) {
	var res SummaryResult
	if opt.MaxMessages <= 0 {
		opt.MaxMessages = 1000
	}
	p, sc, _, err := e.readPoint(p, tenure.Read{})
	if err == nil && thread == "" {
		err = tenure.Errorf(tenure.CodeInvalid, "thread_id", "required")
	}
	if err != nil {
		return res, fmt.Errorf("summarize: %w", err)
	}
	rollErr := e.rolling(ctx, p, sc, thread, s, opt, &res)
	sessErr := e.sessions(ctx, p, sc, thread, s, opt, &res)
	var spineErr error
	if w, ok := s.(summarize.SpineWriter); ok {
		res.Spine, spineErr = e.UpdateSpine(ctx, p, w, false)
	}
	for _, err := range []error{rollErr, sessErr, spineErr} {
		if err != nil {
			e.opt.Logger.Warn("summary.failed", "thread", thread, "err", err)
		}
	}
	if rollErr != nil {
		return res, fmt.Errorf("rolling summary: %w", rollErr)
	}
	if sessErr != nil {
		return res, fmt.Errorf("session summary: %w", sessErr)
	}
	return res, spineErr
}

// pending returns the thread's messages after channel's watermark.
func (e *Engine) pending(ctx context.Context, p tenure.Principal, sc tenure.Scope, thread, channel string, limit int) ([]tenure.Message, tenure.Watermark, bool, error) {
	wm, had, err := e.b.Watermark(ctx, p.TenantID, thread, channel)
	if err != nil {
		return nil, wm, false, wrap("read watermark", err)
	}
	// A digest without a project reads the thread whole; what it writes
	// takes the project its messages name (see projectOf).
	list := MessageList{ThreadID: thread, UserID: sc.UserID, PersonaID: p.PersonaID, ProjectID: sc.ProjectID, AnyProject: sc.ProjectID == "", Limit: limit}
	if had {
		list.AfterID = wm.MessageID
	}
	msgs, err := e.b.Messages(ctx, p.TenantID, list)
	if err != nil {
		return nil, wm, had, wrap("read messages", err)
	}
	return msgs, wm, had, nil
}

func (e *Engine) rolling(ctx context.Context, p tenure.Principal, sc tenure.Scope, thread string, s Summarizer, opt SummaryOptions, res *SummaryResult) (err error) {
	msgs, wm, had, err := e.pending(ctx, p, sc, thread, scopedChannel(RollingChannel, p, sc), opt.MaxMessages)
	if err != nil {
		return err
	}
	users := 0
	for _, m := range msgs {
		if m.Role == "user" {
			users++
		}
	}
	if !summarize.DueRolling(users, opt.RollingEvery) {
		return nil
	}
	attempt := e.now()
	defer func() { e.noteRolling(ctx, p, attempt, err) }()
	prev := ""
	if o, err := e.CurrentValue(ctx, p, RollingKey(thread), tenure.Read{Scope: sc}); err == nil {
		prev = o.Content
	} else if tenure.ErrorCode(err) != tenure.CodeNotFound {
		return err
	}
	text, err := s.Rolling(ctx, prev, msgs)
	if err != nil {
		return err
	}
	o := tenure.Object{Key: RollingKey(thread), Content: text, Source: "summary", UserID: sc.UserID, PersonaID: p.PersonaID, ProjectID: sc.ProjectID,
		ValidFrom: msgs[len(msgs)-1].CreatedAt}
	written, _, err := e.writeWithWatermark(ctx, p, thread, scopedChannel(RollingChannel, p, sc), wm, had, msgs[len(msgs)-1], o, nil)
	if err == nil {
		res.Rolling = &written
	}
	return err
}

func (e *Engine) sessions(ctx context.Context, p tenure.Principal, sc tenure.Scope, thread string, s Summarizer, opt SummaryOptions, res *SummaryResult) error {
	msgs, wm, had, err := e.pending(ctx, p, sc, thread, scopedChannel(SessionChannel, p, sc), opt.MaxMessages)
	if err != nil || len(msgs) == 0 {
		return err
	}
	// The watermark always sits at the end of a closed session, so the
	// pending messages start at a session boundary.
	var groups [][]tenure.Message
	for i, m := range msgs {
		if i == 0 || m.SessionID != msgs[i-1].SessionID {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], m)
	}
	last := groups[len(groups)-1]
	if !summarize.SessionClosed(last[len(last)-1].CreatedAt, e.now(), opt.Inactivity) {
		groups = groups[:len(groups)-1]
	}
	if len(msgs) == opt.MaxMessages && len(groups) > 1 {
		groups = groups[:len(groups)-1] // may continue past the page
	}
	for _, g := range groups {
		sum, err := s.Session(ctx, g)
		if err != nil {
			return err
		}
		sid := g[0].SessionID
		val, _ := json.Marshal(sum)
		o := tenure.Object{Key: SessionSummaryKey(thread, sid), Value: val, Content: sum.OneLiner, Source: "summary",
			UserID: sc.UserID, PersonaID: p.PersonaID, ProjectID: sc.ProjectID, ValidFrom: g[len(g)-1].CreatedAt}
		end := g[len(g)-1].CreatedAt.Add(e.opt.SessionGap)
		written, next, err := e.writeWithWatermark(ctx, p, thread, scopedChannel(SessionChannel, p, sc), wm, had, g[len(g)-1], o,
			func(tx Tx, key string) error {
				return summarized(ctx, tx, p.TenantID, p, sc, thread, sid, key, end)
			})
		if err != nil {
			return err
		}
		wm, had = next, true
		res.Sessions = append(res.Sessions, written)
	}
	return nil
}

// writeWithWatermark stores o and moves channel's watermark to last in one
// transaction, provided the watermark is still where the caller read it;
// after, when not nil, runs in that transaction too.
func (e *Engine) writeWithWatermark(ctx context.Context, p tenure.Principal, thread, channel string, wm tenure.Watermark, had bool,
	last tenure.Message, o tenure.Object, after func(tx Tx, key string) error) (tenure.Object, tenure.Watermark, error) {
	var out tenure.Object
	next := tenure.Watermark{ThreadID: thread, Channel: channel, CreatedAt: last.CreatedAt, MessageID: last.ID}
	err := e.inTx(ctx, "write "+channel, func(tx Tx, clk *txClock) error {
		if err := checkWatermark(ctx, tx, p.TenantID, thread, channel, wm, had); err != nil {
			return err
		}
		w := &writer{e: e, tx: tx, p: p, clk: clk}
		r, err := w.put(ctx, o)
		if err != nil {
			return err
		}
		out = r.Object
		if after != nil {
			if err := after(tx, o.Key); err != nil {
				return err
			}
		}
		next.UpdatedAt = clk.next(e.now())
		return tx.SetWatermark(ctx, p.TenantID, next)
	})
	return out, next, err
}

// checkWatermark fails with CodeConflict unless channel's watermark is
// still what the run read before it started (another run committed).
func checkWatermark(ctx context.Context, tx Tx, tenant, thread, channel string, wm tenure.Watermark, had bool) error {
	cur, ok, err := tx.Watermark(ctx, tenant, thread, channel)
	if err != nil {
		return err
	}
	if ok != had || cur.MessageID != wm.MessageID {
		return tenure.Errorf(tenure.CodeConflict, "thread_id", "another %s run of thread %q committed meanwhile", channel, thread)
	}
	return nil
}
