package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

func (b *backend) MessagesByID(ctx context.Context, tenant string, f engine.MessageIDs) ([]tenure.Message, error) {
	if len(f.IDs) == 0 {
		return nil, nil
	}
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	args := []any{tenant, f.ThreadID, f.UserID, f.PersonaID, f.ProjectID}
	for _, id := range f.IDs {
		args = append(args, id)
	}
	rows, err := db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE m.tkey = `+threadKey+`
		AND (m.user_id = '' OR m.user_id = ?) AND (m.persona_id = '' OR m.persona_id = ?) AND (m.project_id = '' OR m.project_id = ?)
		AND m.id IN (?`+strings.Repeat(", ?", len(f.IDs)-1)+`) ORDER BY m.created_at, m.pos`, args...)
	if err != nil {
		return nil, err
	}
	scored, err := scanMessages(rows, tenant, false)
	return unscored(scored), err
}

// unscored drops the scores of scanned messages.
func unscored(scored []tenure.ScoredMessage) []tenure.Message {
	out := make([]tenure.Message, len(scored))
	for i := range scored {
		out[i] = scored[i].Message
	}
	return out
}

const watermarkQuery = `SELECT last_created_at, last_message_id, updated_at FROM watermarks
	WHERE tenant_id = ? AND thread_id = ? AND channel = ?`

func scanWatermark(row *sql.Row, thread, channel string) (tenure.Watermark, bool, error) {
	w := tenure.Watermark{ThreadID: thread, Channel: channel}
	var at, updated int64
	err := row.Scan(&at, &w.MessageID, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return tenure.Watermark{}, false, nil
	}
	if err != nil {
		return tenure.Watermark{}, false, err
	}
	w.CreatedAt, w.UpdatedAt = fromNanos(at), fromNanos(updated)
	return w, true, nil
}

func (b *backend) Watermark(ctx context.Context, tenant, thread, channel string) (tenure.Watermark, bool, error) {
	db, err := b.reader()
	if err != nil {
		return tenure.Watermark{}, false, err
	}
	return scanWatermark(db.QueryRowContext(ctx, watermarkQuery, tenant, thread, channel), thread, channel)
}

func (t *writeTx) Watermark(ctx context.Context, tenant, thread, channel string) (tenure.Watermark, bool, error) {
	return scanWatermark(t.db.QueryRowContext(ctx, watermarkQuery, tenant, thread, channel), thread, channel)
}

func (t *writeTx) SetWatermark(ctx context.Context, tenant string, w tenure.Watermark) error {
	_, err := t.db.ExecContext(ctx, `INSERT INTO watermarks (tenant_id, thread_id, channel, last_created_at, last_message_id, updated_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, thread_id, channel) DO UPDATE SET
		last_created_at = excluded.last_created_at, last_message_id = excluded.last_message_id, updated_at = excluded.updated_at`,
		tenant, w.ThreadID, w.Channel, nanos(w.CreatedAt), w.MessageID, nanos(w.UpdatedAt))
	return err
}
