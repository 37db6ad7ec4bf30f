package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

const messageCols = `m.seq, m.pos, m.thread_id, m.id, m.session_id, m.user_id, m.project_id, m.role, m.speaker, m.content,
	m.attachments, m.dates, m.created_at, m.tokens, m.persona_id`

// scanMessages decodes rows of messageCols, plus a score column when
// scored is set.
func scanMessages(rows pgx.Rows, tenant string, scored bool) ([]tenure.ScoredMessage, error) {
	defer rows.Close()
	var (
		out          []tenure.ScoredMessage
		sm           tenure.ScoredMessage
		attach, date *string
		created      int64
	)
	dst := []any{&sm.Seq, &sm.Pos, &sm.ThreadID, &sm.ID, &sm.SessionID, &sm.UserID, &sm.ProjectID, &sm.Role, &sm.Speaker,
		&sm.Content, &attach, &date, &created, &sm.Tokens, &sm.PersonaID}
	if scored {
		dst = append(dst, &sm.Score)
	}
	for rows.Next() {
		sm = tenure.ScoredMessage{}
		attach, date = nil, nil
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		sm.TenantID = tenant
		sm.CreatedAt = fromNanos(created)
		if attach != nil {
			if err := json.Unmarshal([]byte(*attach), &sm.Attachments); err != nil {
				return nil, fmt.Errorf("decode message %s attachments: %w", sm.ID, err)
			}
		}
		if date != nil {
			if err := json.Unmarshal([]byte(*date), &sm.Dates); err != nil {
				return nil, fmt.Errorf("decode message %s dates: %w", sm.ID, err)
			}
		}
		out = append(out, sm)
	}
	return out, rows.Err()
}

// unscored drops the scores of scanned messages.
func unscored(scored []tenure.ScoredMessage) []tenure.Message {
	out := make([]tenure.Message, len(scored))
	for i := range scored {
		out[i] = scored[i].Message
	}
	return out
}

// nullJSON encodes v, or nothing (NULL) when empty.
// orNull is s, or NULL when it is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (b *backend) Messages(ctx context.Context, tenant string, f engine.MessageList) (out []tenure.Message, err error) {
	q := `SELECT ` + messageCols + ` FROM messages m WHERE m.tenant_id = ? AND m.thread_id = ?
		AND (m.user_id = '' OR m.user_id = ?) AND (m.persona_id = '' OR m.persona_id = ?) AND (?::boolean OR m.project_id = '' OR m.project_id = ?)`
	args := []any{tenant, f.ThreadID, f.UserID, f.PersonaID, f.AnyProject, f.ProjectID}
	if f.AfterTime != nil {
		q += ` AND m.created_at > ?`
		args = append(args, f.AfterTime.UnixNano())
	}
	err = b.read(ctx, tenant, func(c querier) error {
		if f.AfterID != "" {
			// The id names a message of the reader's view: its own first,
			// then a shared one; another user's is not found.
			var at, pos int64
			err := c.QueryRow(ctx, `SELECT created_at, pos FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND id = $3
				AND user_id IN ('', $4) AND persona_id IN ('', $5) ORDER BY user_id = '', persona_id = '' LIMIT 1`,
				tenant, f.ThreadID, f.AfterID, f.UserID, f.PersonaID).Scan(&at, &pos)
			if errors.Is(err, pgx.ErrNoRows) {
				return tenure.Errorf(tenure.CodeNotFound, "after_id", "no message %q in thread %q", f.AfterID, f.ThreadID)
			}
			if err != nil {
				return err
			}
			q += ` AND (m.created_at > ? OR (m.created_at = ? AND m.pos > ?))`
			args = append(args, at, at, pos)
		}
		rows, err := c.Query(ctx, rebind(q+` ORDER BY m.created_at, m.pos LIMIT ?`), append(args, f.Limit)...)
		if err != nil {
			return err
		}
		scored, err := scanMessages(rows, tenant, false)
		out = unscored(scored)
		return err
	})
	return out, err
}

func (b *backend) MessagesByID(ctx context.Context, tenant string, f engine.MessageIDs) (out []tenure.Message, err error) {
	if len(f.IDs) == 0 {
		return nil, nil
	}
	err = b.read(ctx, tenant, func(c querier) error {
		rows, err := c.Query(ctx, `SELECT `+messageCols+` FROM messages m WHERE m.tenant_id = $1 AND m.thread_id = $2
			AND (m.user_id = '' OR m.user_id = $3) AND (m.persona_id = '' OR m.persona_id = $4) AND (m.project_id = '' OR m.project_id = $5)
			AND m.id = ANY($6) ORDER BY m.created_at, m.pos`, tenant, f.ThreadID, f.UserID, f.PersonaID, f.ProjectID, f.IDs)
		if err != nil {
			return err
		}
		scored, err := scanMessages(rows, tenant, false)
		out = unscored(scored)
		return err
	})
	return out, err
}

const watermarkQuery = `SELECT last_created_at, last_message_id, updated_at FROM watermarks
	WHERE tenant_id = $1 AND thread_id = $2 AND channel = $3`

func scanWatermark(row pgx.Row, thread, channel string) (tenure.Watermark, bool, error) {
	w := tenure.Watermark{ThreadID: thread, Channel: channel}
	var at, updated int64
	err := row.Scan(&at, &w.MessageID, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return tenure.Watermark{}, false, nil
	}
	if err != nil {
		return tenure.Watermark{}, false, err
	}
	w.CreatedAt, w.UpdatedAt = fromNanos(at), fromNanos(updated)
	return w, true, nil
}

func (b *backend) Watermark(ctx context.Context, tenant, thread, channel string) (w tenure.Watermark, ok bool, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		w, ok, err = scanWatermark(c.QueryRow(ctx, watermarkQuery, tenant, thread, channel), thread, channel)
		return err
	})
	return w, ok, err
}

func (t *writeTx) Watermark(ctx context.Context, tenant, thread, channel string) (tenure.Watermark, bool, error) {
	if err := t.as(ctx, tenant); err != nil {
		return tenure.Watermark{}, false, err
	}
	return scanWatermark(t.c.QueryRow(ctx, watermarkQuery, tenant, thread, channel), thread, channel)
}

func (t *writeTx) SetWatermark(ctx context.Context, tenant string, w tenure.Watermark) error {
	if err := t.as(ctx, tenant); err != nil {
		return err
	}
	_, err := t.c.Exec(ctx, `INSERT INTO watermarks (tenant_id, thread_id, channel, last_created_at, last_message_id, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id, thread_id, channel) DO UPDATE SET
		last_created_at = excluded.last_created_at, last_message_id = excluded.last_message_id, updated_at = excluded.updated_at`,
		tenant, w.ThreadID, w.Channel, nanos(w.CreatedAt), w.MessageID, nanos(w.UpdatedAt))
	return err
}

// insertRows is how many messages one INSERT statement writes at most.
const insertRows = 1000

// insertMessages inserts rows given as one array per column, in one
// statement whatever their number (parsed and planned once, where a
// VALUES list of 17 parameters a row is not), and returns each row's
// view class and lexemes.
const insertMessages = `INSERT INTO messages (tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
		attachments, dates, created_at, tokens, search_text, search_dates, persona_id)
	SELECT $1, r.* FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
		$10::text[], $11::text[], $12::text[], $13::bigint[], $14::int[], $15::text[], $16::text[], $17::text[]) r
	RETURNING user_id, persona_id, project_id, tsvector_to_array(tsv)`

// messageRows are rows to insert, a slice per column.
type messageRows struct {
	thread, id, session, user, project, role, speaker, content []string
	attach, dates, text, search                                []*string
	pos, created                                               []int64
	tokens                                                     []int32
	persona                                                    []string
}

func (r *messageRows) len() int { return len(r.id) }

func (r *messageRows) reset() { *r = messageRows{} }

func (r *messageRows) args(tenant string) []any {
	return []any{tenant, r.thread, r.id, r.pos, r.session, r.user, r.project, r.role, r.speaker, r.content,
		r.attach, r.dates, r.created, r.tokens, r.text, r.search, r.persona}
}

// msgKey names a message within a tenant: a thread, the namespace of its
// user (empty for shared messages) and persona (empty: none) and its id.
type msgKey struct{ thread, user, persona, id string }

// errTaken reports that a message id to insert is stored already.
var errTaken = errors.New("message id taken")

// InsertMessages first assumes that every message is new, the common case,
// and writes them without looking their ids up. If one is stored already,
// it undoes that and starts again, looking the ids up first.
func (t *writeTx) InsertMessages(ctx context.Context, tenant string, msgs []engine.NewMessage, gap time.Duration) ([]bool, []tenure.Message, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, nil, err
	}
	if _, err := t.c.Exec(ctx, `SAVEPOINT insert_messages`); err != nil {
		return nil, nil, err
	}
	inserted, existing, err := t.insertMessagesOnce(ctx, tenant, msgs, gap, false)
	if errors.Is(err, errTaken) {
		if _, err := t.c.Exec(ctx, `ROLLBACK TO insert_messages`); err != nil {
			return nil, nil, err
		}
		inserted, existing, err = t.insertMessagesOnce(ctx, tenant, msgs, gap, true)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := t.c.Exec(ctx, `RELEASE insert_messages`); err != nil {
		return nil, nil, err
	}
	return inserted, existing, nil
}

func (t *writeTx) insertMessagesOnce(ctx context.Context, tenant string, msgs []engine.NewMessage, gap time.Duration,
	lookup bool) ([]bool, []tenure.Message, error) {
	a := &appender{t: t, tenant: tenant, threads: map[string]int64{}, stats: map[viewClass]*classStats{}}
	a.sessions = engine.NewSessionDeriver(a, gap)
	var taken map[msgKey]bool
	if lookup {
		var err error
		if taken, err = a.takenIDs(ctx, msgs); err != nil {
			return nil, nil, err
		}
	}
	inserted := make([]bool, len(msgs))
	var existing []tenure.Message // only when some id was taken
	var again []int
	fresh := make(map[msgKey]bool, len(msgs))
	for i, nm := range msgs {
		m := nm.Message
		k := msgKey{m.ThreadID, m.UserID, m.PersonaID, m.ID}
		if taken[k] || fresh[k] {
			if !lookup {
				return nil, nil, errTaken
			}
			again = append(again, i)
			continue
		}
		fresh[k] = true
		if err := a.add(ctx, nm); err != nil {
			return nil, nil, err
		}
		inserted[i] = true
	}
	if err := a.flush(ctx); err != nil {
		return nil, nil, err
	}
	t.addStats(tenant, a.stats)
	if len(again) > 0 {
		existing = make([]tenure.Message, len(msgs))
	}
	for _, i := range again {
		m := msgs[i].Message
		var err error
		if existing[i], err = t.message(ctx, tenant, msgKey{m.ThreadID, m.UserID, m.PersonaID, m.ID}); err != nil {
			return nil, nil, err
		}
	}
	return inserted, existing, nil
}

// appender is the state of one attempt at an append (see the SQLite
// store's, which this follows).
type appender struct {
	t        *writeTx
	tenant   string
	threads  map[string]int64
	sessions *engine.SessionDeriver
	rows     messageRows
	// stats are the inserted messages' BM25 statistics, by view class.
	stats map[viewClass]*classStats
}

func (a *appender) add(ctx context.Context, nm engine.NewMessage) error {
	m := nm.Message
	pos, err := a.thread(ctx, m.ThreadID)
	if err != nil {
		return err
	}
	if err := a.sessions.Assign(ctx, m); err != nil {
		return err
	}
	attach, dates, text, search := orNull(nm.Attachments), orNull(nm.Dates), orNull(nm.Text), orNull(nm.Search)
	r := &a.rows
	r.thread, r.id, r.pos, r.session = append(r.thread, m.ThreadID), append(r.id, m.ID), append(r.pos, pos+1), append(r.session, m.SessionID)
	r.user, r.project, r.role, r.speaker = append(r.user, m.UserID), append(r.project, m.ProjectID), append(r.role, m.Role), append(r.speaker, m.Speaker)
	r.content, r.attach, r.dates = append(r.content, m.Content), append(r.attach, attach), append(r.dates, dates)
	r.created, r.tokens, r.text, r.search = append(r.created, nanos(m.CreatedAt)), append(r.tokens, int32(m.Tokens)), append(r.text, text), append(r.search, search)
	r.persona = append(r.persona, m.PersonaID)
	a.threads[m.ThreadID] = pos + 1
	if r.len() >= insertRows {
		return a.flush(ctx)
	}
	return nil
}

// flush inserts the queued rows; it returns errTaken if one of their ids
// is.
func (a *appender) flush(ctx context.Context) error {
	if a.rows.len() == 0 {
		return nil
	}
	rows, err := a.t.c.Query(ctx, insertMessages, a.rows.args(a.tenant)...)
	if err == nil {
		var k viewClass
		var lexemes []string
		for rows.Next() {
			if err = rows.Scan(&k.user, &k.persona, &k.project, &lexemes); err != nil {
				break
			}
			st := a.stats[k]
			if st == nil {
				st = &classStats{terms: map[string]int64{}}
				a.stats[k] = st
			}
			st.docs++
			st.lexemes += int64(len(lexemes))
			for _, l := range lexemes {
				st.terms[l]++
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	a.rows.reset()
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return errTaken
	}
	if err != nil {
		return fmt.Errorf("insert messages: %w", err)
	}
	return nil
}

func (a *appender) thread(ctx context.Context, thread string) (int64, error) {
	if pos, ok := a.threads[thread]; ok {
		return pos, nil
	}
	var pos int64
	if err := a.t.c.QueryRow(ctx, `SELECT coalesce(max(pos), 0) FROM messages WHERE tenant_id = $1 AND thread_id = $2`,
		a.tenant, thread).Scan(&pos); err != nil {
		return 0, err
	}
	a.threads[thread] = pos
	return pos, nil
}

// LastOfView implements engine.ViewReader, after inserting the queued
// rows.
func (a *appender) LastOfView(ctx context.Context, k engine.ThreadView) (string, time.Time, bool, error) {
	if err := a.flush(ctx); err != nil {
		return "", time.Time{}, false, err
	}
	var session string
	var last int64
	err := a.t.c.QueryRow(ctx, `SELECT session_id, created_at FROM messages
		WHERE tenant_id = $1 AND thread_id = $2 AND user_id IN ('', $3) AND persona_id IN ('', $4) ORDER BY pos DESC LIMIT 1`,
		a.tenant, k.Thread, k.User, k.Persona).Scan(&session, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	return session, fromNanos(last), err == nil, err
}

// CountAutoSessions implements engine.ViewReader, after inserting the
// queued rows.
func (a *appender) CountAutoSessions(ctx context.Context, k engine.ThreadView, prefix string) (int, error) {
	if err := a.flush(ctx); err != nil {
		return 0, err
	}
	var n int
	err := a.t.c.QueryRow(ctx, `SELECT count(DISTINCT session_id) FROM messages
		WHERE tenant_id = $1 AND thread_id = $2 AND user_id = $3 AND persona_id = $4 AND starts_with(session_id, $5)`,
		a.tenant, k.Thread, k.User, k.Persona, prefix).Scan(&n)
	return n, err
}

func (a *appender) takenIDs(ctx context.Context, msgs []engine.NewMessage) (map[msgKey]bool, error) {
	ids := map[string][]string{}
	for _, nm := range msgs {
		m := nm.Message
		pos, err := a.thread(ctx, m.ThreadID)
		if err != nil {
			return nil, err
		}
		if pos > 0 {
			ids[m.ThreadID] = append(ids[m.ThreadID], m.ID)
		}
	}
	taken := map[msgKey]bool{}
	for thread, all := range ids {
		rows, err := a.t.c.Query(ctx, `SELECT user_id, persona_id, id FROM messages WHERE tenant_id = $1 AND thread_id = $2 AND id = ANY($3)`,
			a.tenant, thread, all)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var user, persona, id string
			if err := rows.Scan(&user, &persona, &id); err != nil {
				rows.Close()
				return nil, err
			}
			taken[msgKey{thread, user, persona, id}] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return taken, nil
}

func (t *writeTx) message(ctx context.Context, tenant string, k msgKey) (tenure.Message, error) {
	rows, err := t.c.Query(ctx, `SELECT `+messageCols+` FROM messages m
		WHERE m.tenant_id = $1 AND m.thread_id = $2 AND m.user_id = $3 AND m.persona_id = $4 AND m.id = $5`, tenant, k.thread, k.user, k.persona, k.id)
	if err != nil {
		return tenure.Message{}, err
	}
	ms, err := scanMessages(rows, tenant, false)
	if err != nil || len(ms) == 0 {
		return tenure.Message{}, fmt.Errorf("message %s: not found after conflict: %v", k.id, err)
	}
	return ms[0].Message, nil
}

func (b *backend) Threads(ctx context.Context, tenant string, f engine.MessageList) (out []tenure.Thread, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		rows, err := c.Query(ctx, `SELECT m.thread_id, count(*), min(m.created_at), max(m.created_at) FROM messages m
			WHERE m.tenant_id = $1 AND (m.user_id = '' OR m.user_id = $2) AND m.persona_id IN ('', $3) AND ($4::boolean OR m.project_id = '' OR m.project_id = $5)
			GROUP BY m.thread_id ORDER BY max(m.created_at) DESC, m.thread_id COLLATE "C" LIMIT $6`, tenant, f.UserID, f.PersonaID, f.AnyProject, f.ProjectID, f.Limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				t           tenure.Thread
				first, last int64
			)
			if err := rows.Scan(&t.ThreadID, &t.Messages, &first, &last); err != nil {
				return err
			}
			t.First, t.Last = fromNanos(first), fromNanos(last)
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}
