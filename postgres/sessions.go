package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// Session records and session states (migration 0005), as the SQLite
// store's: engine.SessionReader outside and inside write transactions,
// engine.SessionWriter inside them.

func (b *backend) Sessions(ctx context.Context, tenant string, f engine.SessionFilter) (out []tenure.Session, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = querySessions(ctx, c, tenant, f)
		return err
	})
	return out, err
}

func (t *writeTx) Sessions(ctx context.Context, tenant string, f engine.SessionFilter) ([]tenure.Session, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, err
	}
	return querySessions(ctx, t.c, tenant, f)
}

func (b *backend) SessionStates(ctx context.Context, tenant, user string, persona *string) (out []tenure.SessionState, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = queryStates(ctx, c, tenant, user, persona)
		return err
	})
	return out, err
}

func (t *writeTx) SessionStates(ctx context.Context, tenant, user string, persona *string) ([]tenure.SessionState, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, err
	}
	return queryStates(ctx, t.c, tenant, user, persona)
}

func querySessions(ctx context.Context, c querier, tenant string, f engine.SessionFilter) ([]tenure.Session, error) {
	if len(f.Users) == 0 || (f.Personas != nil && len(f.Personas) == 0) {
		return nil, nil
	}
	where := []string{`tenant_id = ?`, `user_id = ANY(?::text[])`}
	args := []any{tenant, f.Users}
	if f.Personas != nil {
		where = append(where, `persona_id = ANY(?::text[])`)
		args = append(args, f.Personas)
	}
	for _, col := range []struct{ name, v string }{{"thread_id", f.ThreadID}, {"session_id", f.SessionID}} {
		if col.v != "" {
			where = append(where, col.name+` = ?`)
			args = append(args, col.v)
		}
	}
	if f.Open {
		where = append(where, `ended_at IS NULL`)
	}
	if f.Summarized {
		where = append(where, `summary_key <> ''`)
	}
	// Ties in the order SQLite's BINARY collation gives them.
	query := `SELECT user_id, persona_id, thread_id, session_id, started_at, last_activity_at, ended_at, turn_count, summary_key
		FROM sessions WHERE ` + strings.Join(where, " AND ") + ` ORDER BY last_activity_at DESC, thread_id COLLATE "C", session_id COLLATE "C"`
	if f.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := c.Query(ctx, rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tenure.Session
	for rows.Next() {
		s := tenure.Session{TenantID: tenant}
		var started, last int64
		var ended *int64
		if err := rows.Scan(&s.UserID, &s.PersonaID, &s.ThreadID, &s.SessionID, &started, &last, &ended, &s.TurnCount, &s.SummaryKey); err != nil {
			return nil, err
		}
		s.StartedAt, s.LastActivityAt = fromNanos(started), fromNanos(last)
		if ended != nil {
			s.EndedAt = tenure.Ptr(fromNanos(*ended))
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (t *writeTx) PutSession(ctx context.Context, s tenure.Session) error {
	if err := t.as(ctx, s.TenantID); err != nil {
		return err
	}
	_, err := t.c.Exec(ctx, `INSERT INTO sessions (tenant_id, user_id, persona_id, thread_id, session_id,
		started_at, last_activity_at, ended_at, turn_count, summary_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (tenant_id, user_id, persona_id, thread_id, session_id) DO UPDATE SET started_at = excluded.started_at,
		last_activity_at = excluded.last_activity_at, ended_at = excluded.ended_at, turn_count = excluded.turn_count,
		summary_key = excluded.summary_key`,
		s.TenantID, s.UserID, s.PersonaID, s.ThreadID, s.SessionID, nanos(s.StartedAt), nanos(s.LastActivityAt),
		nullNanos(s.EndedAt), s.TurnCount, s.SummaryKey)
	return err
}

func queryStates(ctx context.Context, c querier, tenant, user string, persona *string) ([]tenure.SessionState, error) {
	query := `SELECT persona_id, message_count, last_interaction, last_user_message, diagnostics FROM session_states
		WHERE tenant_id = ? AND user_id = ?`
	args := []any{tenant, user}
	if persona != nil {
		query += ` AND persona_id = ?`
		args = append(args, *persona)
	}
	rows, err := c.Query(ctx, rebind(query+` ORDER BY persona_id COLLATE "C"`), args...)
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
	if err := t.as(ctx, s.TenantID); err != nil {
		return err
	}
	diag, err := engine.EncodeStateDiagnostics(s)
	if err != nil {
		return err
	}
	_, err = t.c.Exec(ctx, `INSERT INTO session_states (tenant_id, user_id, persona_id, message_count,
		last_interaction, last_user_message, diagnostics) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (tenant_id, user_id, persona_id) DO UPDATE SET message_count = excluded.message_count,
		last_interaction = excluded.last_interaction, last_user_message = excluded.last_user_message,
		diagnostics = excluded.diagnostics`,
		s.TenantID, s.UserID, s.PersonaID, s.MessageCount, nanos(s.LastInteraction), noNUL(s.LastUserMessage), string(diag))
	return err
}
