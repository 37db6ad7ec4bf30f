package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

const messageCols = `m.seq, m.pos, m.thread_id, m.id, m.session_id, m.user_id, m.project_id, m.role, m.speaker, m.content,
	m.attachments, m.dates, m.created_at, m.tokens, m.persona_id`

// threadKey is the key of a thread (migration 0026), given its tenant and
// thread ids as two arguments: NULL, which matches no message, when the
// thread has none.
const threadKey = `(SELECT tkey FROM message_threads WHERE tenant_id = ? AND thread_id = ?)`

// scanMessages decodes rows of messageCols, plus a score column when
// scored is set.
func scanMessages(rows *sql.Rows, tenant string, scored bool) ([]tenure.ScoredMessage, error) {
	var extra func(*tenure.ScoredMessage) []any
	if scored {
		extra = func(sm *tenure.ScoredMessage) []any { return []any{&sm.Score} }
	}
	return scanRows(rows, tenant, extra)
}

// scanRows decodes rows of messageCols followed by the columns extra
// returns destinations for (nil: none).
func scanRows(rows *sql.Rows, tenant string, extra func(*tenure.ScoredMessage) []any) ([]tenure.ScoredMessage, error) {
	defer rows.Close()
	var (
		out          []tenure.ScoredMessage
		sm           tenure.ScoredMessage
		attach, date sql.NullString
		created      int64
	)
	// One set of destinations for every row: a candidate query reads
	// hundreds, and a fresh slice per row was a tenth of its allocations.
	dst := []any{&sm.Seq, &sm.Pos, &sm.ThreadID, &sm.ID, &sm.SessionID, &sm.UserID, &sm.ProjectID, &sm.Role, &sm.Speaker,
		&sm.Content, &attach, &date, &created, &sm.Tokens, &sm.PersonaID}
	if extra != nil {
		dst = append(dst, extra(&sm)...)
	}
	for rows.Next() {
		sm = tenure.ScoredMessage{}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		sm.TenantID = tenant
		sm.CreatedAt = fromNanos(created)
		if attach.Valid {
			if err := json.Unmarshal([]byte(attach.String), &sm.Attachments); err != nil {
				return nil, fmt.Errorf("decode message %s attachments: %w", sm.ID, err)
			}
		}
		if date.Valid {
			if err := json.Unmarshal([]byte(date.String), &sm.Dates); err != nil {
				return nil, fmt.Errorf("decode message %s dates: %w", sm.ID, err)
			}
		}
		out = append(out, sm)
	}
	return out, rows.Err()
}

func (b *backend) Messages(ctx context.Context, tenant string, f engine.MessageList) ([]tenure.Message, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + messageCols + ` FROM messages m WHERE m.tkey = ` + threadKey + `
		AND (m.user_id = '' OR m.user_id = ?) AND (m.persona_id = '' OR m.persona_id = ?) AND (? OR m.project_id = '' OR m.project_id = ?)`
	args := []any{tenant, f.ThreadID, f.UserID, f.PersonaID, f.AnyProject, f.ProjectID}
	if f.AfterTime != nil {
		q += ` AND m.created_at > ?`
		args = append(args, f.AfterTime.UnixNano())
	}
	if f.AfterID != "" {
		// The id names a message of the reader's view: its own first,
		// then a shared one; another user's is not found.
		var at, pos int64
		err := db.QueryRowContext(ctx, `SELECT created_at, pos FROM messages WHERE tkey = `+threadKey+` AND id = ?
			AND user_id IN ('', ?) AND persona_id IN ('', ?) ORDER BY user_id = '', persona_id = '' LIMIT 1`,
			tenant, f.ThreadID, f.AfterID, f.UserID, f.PersonaID).Scan(&at, &pos)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, tenure.Errorf(tenure.CodeNotFound, "after_id", "no message %q in thread %q", f.AfterID, f.ThreadID)
		}
		if err != nil {
			return nil, err
		}
		q += ` AND (m.created_at > ? OR (m.created_at = ? AND m.pos > ?))`
		args = append(args, at, at, pos)
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY m.created_at, m.pos LIMIT ?`, append(args, f.Limit)...)
	if err != nil {
		return nil, err
	}
	scored, err := scanMessages(rows, tenant, false)
	return unscored(scored), err
}

func (b *backend) Threads(ctx context.Context, tenant string, f engine.MessageList) ([]tenure.Thread, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT t.thread_id, count(*), min(m.created_at), max(m.created_at)
		FROM message_threads t CROSS JOIN messages m ON m.tkey = t.tkey
		WHERE t.tenant_id = ? AND (m.user_id = '' OR m.user_id = ?) AND m.persona_id IN ('', ?) AND (? OR m.project_id = '' OR m.project_id = ?)
		GROUP BY t.tkey ORDER BY max(m.created_at) DESC, t.thread_id LIMIT ?`, tenant, f.UserID, f.PersonaID, f.AnyProject, f.ProjectID, f.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tenure.Thread
	for rows.Next() {
		var (
			t           tenure.Thread
			first, last int64
		)
		if err := rows.Scan(&t.ThreadID, &t.Messages, &first, &last); err != nil {
			return nil, err
		}
		t.First, t.Last = fromNanos(first), fromNanos(last)
		out = append(out, t)
	}
	return out, rows.Err()
}
