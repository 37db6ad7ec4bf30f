package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// insertRows is how many messages one INSERT statement writes: one
// statement per message spends more in the driver and in setting up the
// statement than in the b-trees.
const insertRows = 100

const (
	insertCols = `tenant_id, thread_id, id, pos, session_id, user_id, project_id, role, speaker, content,
		attachments, dates, created_at, tokens, search_text, search_dates, persona_id, tkey`
	insertValues = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	nInsertCols  = 18
)

// The statements of an append, prepared on the writer when the store
// opens (see prepareWrites): a bulk import runs them once per thread or
// per insertRows messages, and a small append once each.
const (
	// threadQuery reads a thread's key and last position.
	threadQuery = `SELECT t.tkey, coalesce((SELECT max(m.pos) FROM messages m WHERE m.tkey = t.tkey), 0)
		FROM message_threads t WHERE t.tenant_id = ? AND t.thread_id = ?`
	newThreadQuery = `INSERT INTO message_threads (tenant_id, thread_id) VALUES (?, ?) RETURNING tkey`
	// viewQuery reads the last message of a thread (by key) that a
	// user's messages see.
	viewQuery = `SELECT session_id, created_at FROM messages
		WHERE tkey = ? AND user_id IN ('', ?) AND persona_id IN ('', ?) ORDER BY pos DESC LIMIT 1`
)

var (
	insertFull       = insertSQL(insertRows)
	appendStatements = []string{threadQuery, newThreadQuery, viewQuery, insertFull}
)

func insertSQL(rows int) string {
	return `INSERT INTO messages (` + insertCols + `) VALUES ` + insertValues + strings.Repeat(", "+insertValues, rows-1)
}

// msgKey names a message within a tenant: a thread, the namespace of its
// user (empty for shared messages) and persona (empty: none) and its id.
type msgKey struct{ thread, user, persona, id string }

// errTaken reports that a message id to insert is stored already.
var errTaken = errors.New("message id taken")

// sqliteConstraintUnique is SQLite's extended result code for a UNIQUE
// constraint violation.
const sqliteConstraintUnique = 2067

// InsertMessages first assumes that every message is new, the common case,
// and writes them without looking their ids up. If one is stored already,
// it undoes that and starts again, looking the ids up first.
func (t *writeTx) InsertMessages(ctx context.Context, tenant string, msgs []engine.NewMessage, gap time.Duration) ([]bool, []tenure.Message, error) {
	if _, err := t.db.ExecContext(ctx, `SAVEPOINT insert_messages`); err != nil {
		return nil, nil, err
	}
	inserted, existing, err := t.insertMessagesOnce(ctx, tenant, msgs, gap, false)
	if errors.Is(err, errTaken) {
		if _, err := t.db.ExecContext(ctx, `ROLLBACK TO insert_messages`); err != nil {
			return nil, nil, err
		}
		inserted, existing, err = t.insertMessagesOnce(ctx, tenant, msgs, gap, true)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := t.db.ExecContext(ctx, `RELEASE insert_messages`); err != nil {
		return nil, nil, err
	}
	return inserted, existing, nil
}

// insertMessagesOnce implements InsertMessages; it looks ids up when
// lookup is set, and returns errTaken when it is not and one is taken.
func (t *writeTx) insertMessagesOnce(ctx context.Context, tenant string, msgs []engine.NewMessage, gap time.Duration,
	lookup bool) ([]bool, []tenure.Message, error) {
	a := &appender{t: t, tenant: tenant, threads: map[string]*threadState{}, args: make([]any, 0, insertRows*nInsertCols)}
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
	var again []int               // ids stored already, or repeated in msgs
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
	t.appended += len(fresh)
	return inserted, existing, nil
}

// appender is the state of one attempt at an append: each thread's key
// and last position, the sessions of the messages, and the rows waiting
// for the next INSERT.
type appender struct {
	t        *writeTx
	tenant   string
	threads  map[string]*threadState
	sessions *engine.SessionDeriver
	args     []any
}

// threadState is a thread during an append: its key (0 until the thread
// has one) and its last position.
type threadState struct{ key, pos int64 }

// add derives m's position and session and queues it for insertion.
func (a *appender) add(ctx context.Context, nm engine.NewMessage) error {
	m := nm.Message
	th, err := a.thread(ctx, m.ThreadID, true)
	if err != nil {
		return err
	}
	// The engine keeps session records by the derived session.
	if err := a.sessions.Assign(ctx, m); err != nil {
		return err
	}
	// NULL for what is empty; see migration 0006 for text and search.
	attach, dates, text, search := orNull(nm.Attachments), orNull(nm.Dates), orNull(nm.Text), orNull(nm.Search)
	th.pos++
	a.args = append(a.args, a.tenant, m.ThreadID, m.ID, th.pos, m.SessionID, m.UserID, m.ProjectID, m.Role, m.Speaker,
		m.Content, attach, dates, nanos(m.CreatedAt), m.Tokens, text, search, m.PersonaID, th.key)
	if len(a.args) == cap(a.args) {
		return a.flush(ctx)
	}
	return nil
}

// orNull is s, or NULL when it is empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// flush inserts the queued rows.
func (a *appender) flush(ctx context.Context) error {
	if len(a.args) == 0 {
		return nil
	}
	err := a.t.insertRows(ctx, a.args)
	a.args = a.args[:0]
	return err
}

// thread returns a thread's key and last position (loaded once per
// append; every user's messages share the positions, which only order
// them). A thread without messages gets its key when create is set.
func (a *appender) thread(ctx context.Context, thread string, create bool) (*threadState, error) {
	if th, ok := a.threads[thread]; ok && (th.key != 0 || !create) {
		return th, nil
	}
	th := &threadState{}
	err := a.t.queryRow(ctx, threadQuery, a.tenant, thread).Scan(&th.key, &th.pos)
	switch {
	case errors.Is(err, sql.ErrNoRows) && create:
		err = a.t.queryRow(ctx, newThreadQuery, a.tenant, thread).Scan(&th.key)
	case errors.Is(err, sql.ErrNoRows):
		err = nil
	}
	if err != nil {
		return nil, err
	}
	a.threads[thread] = th
	return th, nil
}

// LastOfView implements engine.ViewReader, after inserting the queued
// rows.
func (a *appender) LastOfView(ctx context.Context, k engine.ThreadView) (string, time.Time, bool, error) {
	if err := a.flush(ctx); err != nil {
		return "", time.Time{}, false, err
	}
	var session string
	var last int64
	err := a.t.queryRow(ctx, viewQuery, a.threads[k.Thread].key, k.User, k.Persona).Scan(&session, &last)
	if errors.Is(err, sql.ErrNoRows) {
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
	err := a.t.db.QueryRowContext(ctx, `SELECT count(DISTINCT session_id) FROM messages
		WHERE tkey = ? AND user_id = ? AND persona_id = ? AND substr(session_id, 1, ?) = ?`,
		a.threads[k.Thread].key, k.User, k.Persona, len(prefix), prefix).Scan(&n)
	return n, err
}

// insertRows writes the messages whose columns args holds, in order. It
// returns errTaken if one of their ids is.
func (t *writeTx) insertRows(ctx context.Context, args []any) error {
	rows := len(args) / nInsertCols
	var err error
	if rows == insertRows {
		if t.insertMessages == nil {
			if t.insertMessages, err = t.stmt(ctx, insertFull); err != nil {
				return err
			}
		}
		_, err = t.insertMessages.ExecContext(ctx, args...)
	} else {
		_, err = t.db.ExecContext(ctx, insertSQL(rows), args...)
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

// takenIDs returns which of msgs' ids their threads and namespaces hold
// already.
func (a *appender) takenIDs(ctx context.Context, msgs []engine.NewMessage) (map[msgKey]bool, error) {
	ids := map[string][]any{} // of the threads that have messages
	for _, nm := range msgs {
		m := nm.Message
		th, err := a.thread(ctx, m.ThreadID, false)
		if err != nil {
			return nil, err
		}
		if th.pos > 0 {
			ids[m.ThreadID] = append(ids[m.ThreadID], m.ID)
		}
	}
	taken := map[msgKey]bool{}
	const perQuery = 500
	for thread, all := range ids {
		for len(all) > 0 {
			part := all[:min(perQuery, len(all))]
			all = all[len(part):]
			rows, err := a.t.db.QueryContext(ctx, `SELECT user_id, persona_id, id FROM messages WHERE tkey = ? AND id IN (?`+
				strings.Repeat(", ?", len(part)-1)+`)`, append([]any{a.threads[thread].key}, part...)...)
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
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return taken, nil
}

// message reads the stored message k names.
func (t *writeTx) message(ctx context.Context, tenant string, k msgKey) (tenure.Message, error) {
	rows, err := t.db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m
		WHERE m.tkey = `+threadKey+` AND m.user_id = ? AND m.persona_id = ? AND m.id = ?`, tenant, k.thread, k.user, k.persona, k.id)
	if err != nil {
		return tenure.Message{}, err
	}
	ms, err := scanMessages(rows, tenant, false)
	if err != nil || len(ms) == 0 {
		return tenure.Message{}, fmt.Errorf("message %s: not found after conflict: %v", k.id, err)
	}
	return ms[0].Message, nil
}
