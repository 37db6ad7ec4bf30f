package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// Session records and session states (migration 0023):
// engine.SessionReader on the read pool and in write transactions,
// engine.SessionWriter in them.

func (b *backend) Sessions(ctx context.Context, tenant string, f engine.SessionFilter) ([]tenure.Session, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	return querySessions(ctx, db, tenant, f)
}

func (t *writeTx) Sessions(ctx context.Context, tenant string, f engine.SessionFilter) ([]tenure.Session, error) {
	return querySessions(ctx, t.db, tenant, f)
}

func (b *backend) SessionStates(ctx context.Context, tenant, user string, persona *string) ([]tenure.SessionState, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	return queryStates(ctx, db, tenant, user, persona)
}

func (t *writeTx) SessionStates(ctx context.Context, tenant, user string, persona *string) ([]tenure.SessionState, error) {
	return queryStates(ctx, t.db, tenant, user, persona)
}

func querySessions(ctx context.Context, q querier, tenant string, f engine.SessionFilter) ([]tenure.Session, error) {
	if len(f.Users) == 0 {
		return nil, nil
	}
	where := []string{`tenant_id = ?`, `user_id IN (?` + strings.Repeat(", ?", len(f.Users)-1) + `)`}
	args := []any{tenant}
	for _, u := range f.Users {
		args = append(args, u)
	}
	if f.Personas != nil {
		if len(f.Personas) == 0 {
			return nil, nil
		}
		where = append(where, `persona_id IN (?`+strings.Repeat(", ?", len(f.Personas)-1)+`)`)
		for _, p := range f.Personas {
			args = append(args, p)
		}
	}
	for _, c := range []struct{ col, v string }{{"thread_id", f.ThreadID}, {"session_id", f.SessionID}} {
		if c.v != "" {
			where = append(where, c.col+` = ?`)
			args = append(args, c.v)
		}
	}
	if f.Open {
		where = append(where, `ended_at IS NULL`)
	}
	if f.Summarized {
		where = append(where, `summary_key <> ''`)
	}
	query := `SELECT user_id, persona_id, thread_id, session_id, started_at, last_activity_at, ended_at, turn_count, summary_key
		FROM sessions WHERE ` + strings.Join(where, " AND ") + ` ORDER BY last_activity_at DESC, thread_id, session_id`
	if f.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tenure.Session
	for rows.Next() {
		s := tenure.Session{TenantID: tenant}
		var started, last int64
		var ended sql.NullInt64
		if err := rows.Scan(&s.UserID, &s.PersonaID, &s.ThreadID, &s.SessionID, &started, &last, &ended, &s.TurnCount, &s.SummaryKey); err != nil {
			return nil, err
		}
		s.StartedAt, s.LastActivityAt = fromNanos(started), fromNanos(last)
		if ended.Valid {
			t := fromNanos(ended.Int64)
			s.EndedAt = &t
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (t *writeTx) PutSession(ctx context.Context, s tenure.Session) error {
	_, err := t.db.ExecContext(ctx, `INSERT OR REPLACE INTO sessions (tenant_id, user_id, persona_id, thread_id, session_id,
		started_at, last_activity_at, ended_at, turn_count, summary_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.TenantID, s.UserID, s.PersonaID, s.ThreadID, s.SessionID, nanos(s.StartedAt), nanos(s.LastActivityAt),
		nullNanos(s.EndedAt), s.TurnCount, s.SummaryKey)
	return err
}

func queryStates(ctx context.Context, q querier, tenant, user string, persona *string) ([]tenure.SessionState, error) {
	query := `SELECT persona_id, message_count, last_interaction, last_user_message, diagnostics FROM session_states
		WHERE tenant_id = ? AND user_id = ?`
	args := []any{tenant, user}
	if persona != nil {
		query += ` AND persona_id = ?`
		args = append(args, *persona)
	}
	rows, err := q.QueryContext(ctx, query+` ORDER BY persona_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tenure.SessionState
	for rows.Next() {
		s := tenure.SessionState{TenantID: tenant, UserID: user}
		var last int64
		var diag string
		if err := rows.Scan(&s.PersonaID, &s.MessageCount, &last, &s.LastUserMessage, &diag); err != nil {
			return nil, err
		}
		s.LastInteraction = fromNanos(last)
		if err := engine.DecodeStateDiagnostics([]byte(diag), &s); err != nil {
			return nil, fmt.Errorf("decode session state of %q: %w", s.PersonaID, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (t *writeTx) PutSessionState(ctx context.Context, s tenure.SessionState) error {
	diag, err := engine.EncodeStateDiagnostics(s)
	if err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `INSERT OR REPLACE INTO session_states (tenant_id, user_id, persona_id, message_count,
		last_interaction, last_user_message, diagnostics) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		s.TenantID, s.UserID, s.PersonaID, s.MessageCount, nanos(s.LastInteraction), s.LastUserMessage, string(diag))
	return err
}
