package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// Messages are full-text indexed after the append that stores them
// commits, not inside it: FTS5 tokenizing and indexing costs more than
// storing the rows, and an append is the path that must keep up with a
// conversation or a bulk import. fts_watermark records the last message
// in messages_fts. A commit that appended messages wakes a background
// goroutine that indexes the rows after the watermark; a full-text search
// of messages first indexes whatever is still behind it (waiting for the
// background pass if one is running), so a search sees every message
// committed before it started, appended by this process or another.
// Indexing is idempotent and crash-safe: the index rows and the watermark
// move in one transaction.

// indexBatch is how many messages one indexing transaction covers, so that
// a large backlog does not hold the write lock for long.
const indexBatch = 20_000

// messageIndex coordinates indexing between the background goroutine and
// searches.
type messageIndex struct {
	busy chan struct{} // holds a token while a pass runs (capacity 1)
	kick chan struct{} // wakes the background goroutine (capacity 1)
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the goroutine returns
}

func newMessageIndex() *messageIndex {
	return &messageIndex{busy: make(chan struct{}, 1), kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// wake asks the background goroutine for a pass, without waiting.
func (x *messageIndex) wake() {
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// indexLoop indexes in the background until Close, which it lets finish
// the messages committed before it.
func (s *Store) indexLoop(x *messageIndex) {
	defer close(x.done)
	for {
		select {
		case <-x.kick:
		case <-x.stop:
			if err := s.indexMessages(context.Background(), x); err != nil {
				s.opt.Logger.Error("index messages at close", "err", err)
			}
			return
		}
		if err := s.indexMessages(context.Background(), x); err != nil {
			// The next search retries and reports it.
			s.opt.Logger.Error("index messages", "err", err)
		}
	}
}

// IndexMessages brings the full-text index of messages up to date with
// every committed message. It is never needed for correctness — appends
// leave indexing to a background goroutine and searches catch up first —
// but pays the cost up front, after a bulk import say. It returns
// CodeUnavailable when the store is not open.
func (s *Store) IndexMessages(ctx context.Context) error {
	if s.w == nil {
		return errClosed
	}
	if err := s.indexMessages(ctx, s.index); err != nil {
		return fmt.Errorf("index messages: %w", err)
	}
	return nil
}

// indexMessages indexes the messages after the watermark, one pass at a
// time.
func (s *Store) indexMessages(ctx context.Context, x *messageIndex) error {
	if behind, err := s.indexBehind(ctx); err != nil || !behind {
		return err
	}
	select {
	case x.busy <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-x.busy }()
	for {
		more, err := s.indexBatch(ctx)
		if err != nil || !more {
			return err
		}
	}
}

// indexBehind reports, from the read pool and without taking the write
// lock, whether some message is not indexed yet.
func (s *Store) indexBehind(ctx context.Context) (bool, error) {
	var behind bool
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT seq FROM fts_watermark WHERE name = 'messages')
		< (SELECT coalesce(max(seq), 0) FROM messages)`).Scan(&behind)
	return behind, err
}

// indexBatch indexes up to indexBatch messages after the watermark in one
// transaction and moves the watermark past them; more reports whether
// messages remain.
func (s *Store) indexBatch(ctx context.Context) (more bool, err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var from, last int64
	if err := tx.QueryRowContext(ctx, `SELECT seq, (SELECT coalesce(max(seq), 0) FROM messages)
		FROM fts_watermark WHERE name = 'messages'`).Scan(&from, &last); err != nil {
		return false, err
	}
	if from >= last {
		return false, nil
	}
	to := min(last, from+indexBatch)
	if err := numberThreads(ctx, tx, from, to); err != nil {
		return false, err
	}
	// One statement: FTS5 keeps the new rows in memory and writes them as
	// one segment when the statement ends — if they come in rowid order
	// (a smaller rowid than the last makes it write what it holds first).
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts (rowid, speaker, text, dates)
		SELECT CASE WHEN t.key IS NOT NULL AND m.pos <= ? THEN (t.key << ?) | m.pos ELSE -m.seq END AS k,
			m.speaker, coalesce(m.search_text, m.content), coalesce(m.search_dates, '')
		FROM messages m LEFT JOIN fts_threads t ON t.tkey = m.tkey
		WHERE m.seq > ? AND m.seq <= ? ORDER BY k`, maxPos(), ftsPosBits, from, to); err != nil {
		return false, err
	}
	if err := addThreadTotals(ctx, tx, from, to); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE fts_watermark SET seq = ? WHERE name = 'messages'`, to); err != nil {
		return false, err
	}
	return to < last, tx.Commit()
}

// The full-text index is partitioned by tenant and thread through its
// rowids (migration 0013): a message's rowid in messages_fts is
//
//	tenant number << (ftsThreadBits+ftsPosBits) | thread number << ftsPosBits | pos
//
// so that one thread's messages, and one tenant's, are a range of rowids,
// which FTS5 searches by seeking each term's list to the range's start and
// stopping at its end: a search reads and scores the rows of what it
// searches, never the whole store's. Tenants are numbered from 1 in the
// order they are first indexed (fts_tenants), threads from 1 within their
// tenant (fts_threads.key is the rowid's bits above the position). A
// message that does not fit — its tenant, thread or position past what
// the bits hold — is indexed under its negative seq and its tenant marked
// spill: searches of a spilled tenant also search the negative rowids,
// filtered as the whole index was before.
var (
	ftsPosBits    = 22 // 4,194,303 messages per thread
	ftsThreadBits = 20 // 1,048,575 threads per tenant
	ftsTenantBits = 21 // 2,097,151 tenants
)

func maxPos() int64 { return 1<<ftsPosBits - 1 }

// numberThreads numbers the tenants and threads of the messages after
// seq from up to seq to that have no number yet, and marks the tenants
// whose messages will spill.
func numberThreads(ctx context.Context, tx *sql.Tx, from, to int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_tenants (tenant_id)
		SELECT DISTINCT tenant_id FROM messages WHERE seq > ? AND seq <= ?`, from, to); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT m.tenant_id, m.thread_id FROM messages m
		WHERE m.seq > ? AND m.seq <= ? AND NOT EXISTS (SELECT 1 FROM fts_threads t WHERE t.tenant_id = m.tenant_id AND t.thread_id = m.thread_id)`,
		from, to)
	if err != nil {
		return err
	}
	var fresh [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			rows.Close()
			return err
		}
		fresh = append(fresh, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	spill := map[string]bool{}
	for _, p := range fresh {
		var n, threads int64
		if err := tx.QueryRowContext(ctx, `SELECT n, threads FROM fts_tenants WHERE tenant_id = ?`, p[0]).Scan(&n, &threads); err != nil {
			return err
		}
		if n >= 1<<ftsTenantBits || threads+1 >= 1<<ftsThreadBits {
			spill[p[0]] = true
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fts_threads (key, tenant_id, thread_id, tkey)
			VALUES (?1, ?2, ?3, (SELECT tkey FROM message_threads WHERE tenant_id = ?2 AND thread_id = ?3))`,
			n<<ftsThreadBits|(threads+1), p[0], p[1]); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE fts_tenants SET threads = ? WHERE n = ?`, threads+1, n); err != nil {
			return err
		}
	}
	rows, err = tx.QueryContext(ctx, `SELECT DISTINCT tenant_id FROM messages WHERE seq > ? AND seq <= ? AND pos > ?`, from, to, maxPos())
	if err != nil {
		return err
	}
	for rows.Next() {
		var tenant string
		if err := rows.Scan(&tenant); err != nil {
			rows.Close()
			return err
		}
		spill[tenant] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for tenant := range spill {
		if _, err := tx.ExecContext(ctx, `UPDATE fts_tenants SET spill = 1 WHERE tenant_id = ?`, tenant); err != nil {
			return err
		}
	}
	return nil
}

// addThreadTotals adds the messages after seq from up to seq to, just
// indexed, to their threads' totals (migration 0024): how many, their
// tokens as FTS5 counted them, and how many name a user, persona or
// project. Spilled messages have no thread key and are not counted.
func addThreadTotals(ctx context.Context, tx *sql.Tx, from, to int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT t.key, d.sz, m.user_id <> '' OR m.persona_id <> '' OR m.project_id <> ''
		FROM messages m CROSS JOIN fts_threads t ON t.tkey = m.tkey
		CROSS JOIN messages_fts_docsize d ON d.id = (t.key << ?) | m.pos
		WHERE m.seq > ? AND m.seq <= ? AND m.pos <= ?`, ftsPosBits, from, to, maxPos())
	if err != nil {
		return err
	}
	type totals struct{ docs, tokens, scoped int64 }
	byKey := map[int64]*totals{}
	var keys []int64
	for rows.Next() {
		var key int64
		var sz []byte
		var scoped bool
		if err := rows.Scan(&key, &sz, &scoped); err != nil {
			rows.Close()
			return err
		}
		t := byKey[key]
		if t == nil {
			t = &totals{}
			byKey[key] = t
			keys = append(keys, key)
		}
		t.docs++
		t.tokens += docSize(sz)
		if scoped {
			t.scoped++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, key := range keys {
		t := byKey[key]
		if _, err := tx.ExecContext(ctx, `UPDATE fts_threads SET docs = docs + ?, tokens = tokens + ?, scoped = scoped + ? WHERE key = ?`,
			t.docs, t.tokens, t.scoped, key); err != nil {
			return err
		}
	}
	return nil
}

// searchable makes sure every committed message is in the full-text index
// before a search (see the comment at the top of this file).
func (b *backend) searchable(ctx context.Context) error {
	s := (*Store)(b)
	if err := s.indexMessages(ctx, s.index); err != nil {
		return fmt.Errorf("index messages: %w", err)
	}
	return nil
}
