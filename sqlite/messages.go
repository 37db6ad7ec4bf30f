package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

const messageCols = `m.seq, m.pos, m.thread_id, m.id, m.session_id, m.user_id, m.project_id, m.role, m.speaker, m.content,
	m.attachments, m.dates, m.created_at, m.tokens`

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
		&sm.Content, &attach, &date, &created, &sm.Tokens}
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

func nullJSON(v any, empty bool) (any, error) {
	if empty {
		return nil, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func (b *backend) Messages(ctx context.Context, tenant string, f engine.MessageList) ([]tenure.Message, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + messageCols + ` FROM messages m WHERE m.tenant_id = ? AND m.thread_id = ?
		AND (m.user_id = '' OR m.user_id = ?) AND (m.project_id = '' OR m.project_id = ?)`
	args := []any{tenant, f.ThreadID, f.UserID, f.ProjectID}
	if f.AfterTime != nil {
		q += ` AND m.created_at > ?`
		args = append(args, f.AfterTime.UnixNano())
	}
	if f.AfterID != "" {
		var at, pos int64
		err := db.QueryRowContext(ctx, `SELECT created_at, pos FROM messages WHERE tenant_id = ? AND thread_id = ? AND id = ?`,
			tenant, f.ThreadID, f.AfterID).Scan(&at, &pos)
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

// matches returns the f.Limit best full-text matches within the scope,
// each with the turns within f.Neighbors positions of it in its thread
// (one more for the f.WideMatches best; score 0 unless they match too), in
// one statement: the window rows are found on the position index and
// grouped by message before any row is read. The full-text index holds
// every tenant's messages, so it ranks the top k matches alone (FTS5 sorts
// rowids and scores, not whole rows, which is what makes "ORDER BY rank
// LIMIT k" cheap) and the scope filter runs on those; when it leaves fewer
// than f.Limit while more matches exist, k grows and the search runs
// again, so the result is exactly the top f.Limit in scope.
func (b *backend) matches(ctx context.Context, db *sql.DB, tenant string, f engine.MessageCandidateFilter,
	scope func(alias string) string, args []any) ([]tenure.ScoredMessage, error) {
	match := ftsQuery(f.Words)
	// bm25 weights: speaker, text, dates.
	q := `WITH hits AS (SELECT h.seq, h.thread_id, h.pos, x.score,
			row_number() OVER (ORDER BY x.score DESC, h.seq) AS rk FROM
			(SELECT rowid, -rank AS score FROM messages_fts
			 WHERE messages_fts MATCH ? AND rank MATCH 'bm25(0.5, 1.0, 1.0)' ORDER BY rank LIMIT ?) x
			CROSS JOIN messages h ON h.seq = x.rowid
			WHERE ` + scope("h") + ` ORDER BY x.score DESC, h.seq LIMIT ?),
		near AS (SELECT n.seq, max(CASE WHEN n.seq = hits.seq THEN hits.score ELSE 0 END) AS score
			FROM hits CROSS JOIN messages n ON n.tenant_id = ? AND n.thread_id = hits.thread_id
				AND n.pos BETWEEN hits.pos - ? - (hits.rk <= ?) AND hits.pos + ? + (hits.rk <= ?)
			GROUP BY n.seq)
		SELECT ` + messageCols + `, near.score FROM near CROSS JOIN messages m ON m.seq = near.seq
		WHERE ` + scope("m") + ` ORDER BY near.score DESC, m.seq`
	for k := f.Limit; ; k *= 4 {
		qargs := append([]any{match, k}, args...)
		qargs = append(qargs, f.Limit, tenant, f.Neighbors, f.WideMatches, f.Neighbors, f.WideMatches)
		rows, err := db.QueryContext(ctx, q, append(qargs, args...)...)
		if err != nil {
			return nil, err
		}
		out, err := scanMessages(rows, tenant, true)
		if err != nil {
			return nil, err
		}
		hits := 0
		for _, m := range out {
			if m.Score > 0 {
				hits++
			}
		}
		if hits >= f.Limit {
			return out, nil
		}
		// Fewer than wanted in scope: were there more matches to rank?
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)`,
			match, k+1).Scan(&n); err != nil || n <= k {
			return out, err
		}
	}
}

func (b *backend) MessageCandidates(ctx context.Context, tenant string, f engine.MessageCandidateFilter) ([]tenure.ScoredMessage, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	args := []any{tenant, f.UserID, f.ProjectID}
	if f.Before != nil {
		args = append(args, f.Before.UnixNano())
	}
	scope := func(alias string) string { return candidateScope(alias, f.Before != nil) }
	var out []tenure.ScoredMessage
	if len(f.Words) > 0 && f.Limit > 0 {
		if err := b.searchable(ctx); err != nil {
			return nil, err
		}
		if out, err = b.matches(ctx, db, tenant, f, scope, args); err != nil {
			return nil, err
		}
	}
	if f.Recent > 0 && !holds(out, f.RecentUnlessTokens) {
		// The latest appended first: seq is the rowid, so this reads the
		// table's tail. The unary + keeps the planner off the tenant index,
		// which would sort every message of the tenant to find the last few.
		recentScope := "+" + scope("m")
		rows, err := db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE `+recentScope+` ORDER BY m.seq DESC LIMIT ?`,
			append(args, f.Recent)...)
		if err != nil {
			return nil, err
		}
		recent, err := scanMessages(rows, tenant, false)
		if err != nil {
			return nil, err
		}
		have := make(map[int64]bool, len(out))
		for _, m := range out {
			have[m.Seq] = true
		}
		for _, m := range recent {
			if !have[m.Seq] {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// candidateScope is the condition on a messages table aliased alias that
// keeps a principal's candidates: the tenant, the user's and the project's
// (or shared) messages, and, with before, those created before a time. Its
// arguments are tenant, user, project and the time.
func candidateScope(alias string, before bool) string {
	a := alias
	s := a + `.tenant_id = ? AND (` + a + `.user_id = '' OR ` + a + `.user_id = ?) AND (` +
		a + `.project_id = '' OR ` + a + `.project_id = ?)`
	if before {
		s += ` AND ` + alias + `.created_at < ?`
	}
	return s
}

// holds reports whether msgs hold at least limit tokens (never when limit
// is 0).
func holds(msgs []tenure.ScoredMessage, limit int) bool {
	if limit <= 0 {
		return false
	}
	n := 0
	for _, m := range msgs {
		n += m.Tokens
	}
	return n >= limit
}

// threadState is the last message of a thread during an append.
type threadState struct {
	pos     int64
	session string
	last    time.Time
	// autos counts the thread's derived ("auto-") sessions once counted
	// is set: only a new derived session needs it, and counting reads the
	// whole thread. stored is pos before the append.
	autos   int
	counted bool
	stored  int64
}

// insertRows is how many messages one INSERT statement writes: one
// statement per message spends more in the driver and in setting up the
// statement than in the b-trees.
const insertRows = 100

const (
	insertCols = `tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
		attachments, dates, created_at, tokens, search_text, search_dates`
	insertValues = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	nInsertCols  = 16
)

func insertSQL(rows int) string {
	return `INSERT INTO messages (` + insertCols + `) VALUES ` + insertValues + strings.Repeat(", "+insertValues, rows-1)
}

// msgKey names a message within a tenant.
type msgKey struct{ thread, id string }

// errTaken reports that a message id to insert is stored already.
var errTaken = errors.New("message id taken")

// sqliteConstraintUnique is SQLite's extended result code for a UNIQUE
// constraint violation.
const sqliteConstraintUnique = 2067

// InsertMessages first assumes that every message is new, the common case,
// and writes them without looking their ids up. If one is stored already,
// it undoes that and starts again, looking the ids up first.
func (t *writeTx) InsertMessages(ctx context.Context, tenant string, msgs []engine.NewMessage, gap time.Duration) ([]bool, []tenure.Message, error) {
	if _, err := t.tx.ExecContext(ctx, `SAVEPOINT insert_messages`); err != nil {
		return nil, nil, err
	}
	inserted, existing, err := t.insertMessagesOnce(ctx, tenant, msgs, gap, false)
	if errors.Is(err, errTaken) {
		if _, err := t.tx.ExecContext(ctx, `ROLLBACK TO insert_messages`); err != nil {
			return nil, nil, err
		}
		inserted, existing, err = t.insertMessagesOnce(ctx, tenant, msgs, gap, true)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := t.tx.ExecContext(ctx, `RELEASE insert_messages`); err != nil {
		return nil, nil, err
	}
	return inserted, existing, nil
}

// insertMessagesOnce implements InsertMessages; it looks ids up when
// lookup is set, and returns errTaken when it is not and one is taken.
func (t *writeTx) insertMessagesOnce(ctx context.Context, tenant string, msgs []engine.NewMessage, gap time.Duration,
	lookup bool) ([]bool, []tenure.Message, error) {
	threads := map[string]*threadState{}
	var taken map[msgKey]bool
	if lookup {
		var err error
		if taken, err = t.takenIDs(ctx, tenant, msgs, threads); err != nil {
			return nil, nil, err
		}
	}
	inserted := make([]bool, len(msgs))
	existing := make([]tenure.Message, len(msgs))
	var again []int // ids stored already, or repeated in msgs
	fresh := make(map[msgKey]bool, len(msgs))
	args := make([]any, 0, insertRows*nInsertCols)
	for i, nm := range msgs {
		m := nm.Message
		k := msgKey{m.ThreadID, m.ID}
		if taken[k] || fresh[k] {
			if !lookup {
				return nil, nil, errTaken
			}
			again = append(again, i)
			continue
		}
		fresh[k] = true
		st, err := t.thread(ctx, tenant, m.ThreadID, threads)
		if err != nil {
			return nil, nil, err
		}
		session := m.SessionID
		if session == "" {
			if st.session == "" || m.CreatedAt.Sub(st.last) > gap {
				if err := t.countAutos(ctx, tenant, m.ThreadID, st); err != nil {
					return nil, nil, err
				}
				st.autos++
				session = fmt.Sprintf("auto-%d", st.autos)
			} else {
				session = st.session
			}
		}
		attach, err := nullJSON(m.Attachments, len(m.Attachments) == 0)
		if err != nil {
			return nil, nil, err
		}
		dates, err := nullJSON(m.Dates, len(m.Dates) == 0)
		if err != nil {
			return nil, nil, err
		}
		var text, search any // see migration 0006
		if len(m.Attachments) > 0 {
			if s := m.Text(); s != m.Content {
				text = s
			}
		}
		if nm.Search != "" {
			search = nm.Search
		}
		args = append(args, tenant, m.ThreadID, m.ID, st.pos+1, session, m.UserID, m.ProjectID, m.Role, m.Speaker,
			m.Content, attach, dates, nanos(m.CreatedAt), m.Tokens, text, search)
		inserted[i] = true
		st.pos, st.session = st.pos+1, session
		if m.CreatedAt.After(st.last) {
			st.last = m.CreatedAt
		}
		if len(args) == cap(args) {
			if err := t.insertRows(ctx, args); err != nil {
				return nil, nil, err
			}
			args = args[:0]
		}
	}
	if len(args) > 0 {
		if err := t.insertRows(ctx, args); err != nil {
			return nil, nil, err
		}
	}
	for _, i := range again {
		m := msgs[i].Message
		var err error
		if existing[i], err = t.message(ctx, tenant, m.ThreadID, m.ID); err != nil {
			return nil, nil, err
		}
	}
	t.appended = t.appended || len(fresh) > 0
	return inserted, existing, nil
}

// insertRows writes the messages whose columns args holds, in order. It
// returns errTaken if one of their ids is.
func (t *writeTx) insertRows(ctx context.Context, args []any) error {
	rows := len(args) / nInsertCols
	var err error
	if rows == insertRows {
		if t.insertMessages == nil {
			if t.insertMessages, err = t.tx.PrepareContext(ctx, insertSQL(insertRows)); err != nil {
				return err
			}
		}
		_, err = t.insertMessages.ExecContext(ctx, args...)
	} else {
		_, err = t.tx.ExecContext(ctx, insertSQL(rows), args...)
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code() == sqliteConstraintUnique {
		return errTaken
	}
	if err != nil {
		return fmt.Errorf("insert messages: %w", err)
	}
	return nil
}

// takenIDs loads the state of the threads of msgs into threads and
// returns which of msgs' ids those threads hold already.
func (t *writeTx) takenIDs(ctx context.Context, tenant string, msgs []engine.NewMessage, threads map[string]*threadState) (map[msgKey]bool, error) {
	ids := map[string][]any{} // of the threads that have messages
	for _, nm := range msgs {
		m := nm.Message
		st, err := t.thread(ctx, tenant, m.ThreadID, threads)
		if err != nil {
			return nil, err
		}
		if st.pos > 0 {
			ids[m.ThreadID] = append(ids[m.ThreadID], m.ID)
		}
	}
	taken := map[msgKey]bool{}
	const perQuery = 500
	for thread, all := range ids {
		for len(all) > 0 {
			part := all[:min(perQuery, len(all))]
			all = all[len(part):]
			rows, err := t.tx.QueryContext(ctx, `SELECT id FROM messages WHERE tenant_id = ? AND thread_id = ? AND id IN (?`+
				strings.Repeat(", ?", len(part)-1)+`)`, append([]any{tenant, thread}, part...)...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, err
				}
				taken[msgKey{thread, id}] = true
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return taken, nil
}

// thread loads (once per append) the state of a thread's latest message.
func (t *writeTx) thread(ctx context.Context, tenant, thread string, cache map[string]*threadState) (*threadState, error) {
	if st, ok := cache[thread]; ok {
		return st, nil
	}
	st := &threadState{}
	var last sql.NullInt64
	err := t.tx.QueryRowContext(ctx, `SELECT pos, session_id, created_at FROM messages
		WHERE tenant_id = ? AND thread_id = ? ORDER BY pos DESC LIMIT 1`, tenant, thread).Scan(&st.pos, &st.session, &last)
	if errors.Is(err, sql.ErrNoRows) {
		st.counted = true // an empty thread has no sessions
	} else if err != nil {
		return nil, err
	}
	st.stored = st.pos
	if last.Valid {
		st.last = fromNanos(last.Int64)
	}
	cache[thread] = st
	return st, nil
}

// countAutos counts the derived sessions of a thread stored before this
// append, once.
func (t *writeTx) countAutos(ctx context.Context, tenant, thread string, st *threadState) error {
	if st.counted {
		return nil
	}
	if err := t.tx.QueryRowContext(ctx, `SELECT count(DISTINCT session_id) FROM messages
		WHERE tenant_id = ? AND thread_id = ? AND pos <= ? AND session_id LIKE 'auto-%'`, tenant, thread, st.stored).Scan(&st.autos); err != nil {
		return err
	}
	st.counted = true
	return nil
}

func (t *writeTx) message(ctx context.Context, tenant, thread, id string) (tenure.Message, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE m.tenant_id = ? AND m.thread_id = ? AND m.id = ?`,
		tenant, thread, id)
	if err != nil {
		return tenure.Message{}, err
	}
	ms, err := scanMessages(rows, tenant, false)
	if err != nil || len(ms) == 0 {
		return tenure.Message{}, fmt.Errorf("message %s: not found after conflict: %v", id, err)
	}
	return ms[0].Message, nil
}
