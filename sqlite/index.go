package sqlite

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
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
	// unchecked estimates what was written to the write-ahead log since
	// the last checkpoint (see checkpointAfter).
	unchecked atomic.Int64
	// uncompacted counts the messages indexed since the index was last
	// compacted (see compactEvery); compacting is held while it is.
	uncompacted atomic.Int64
	compacting  sync.Mutex
}

// The full-text index is compacted — its segments merged into one, a
// step of compactPages pages per transaction — after every compactEvery
// messages it indexes. FTS5 merges segments as it goes (automerge), but a
// search seeks every segment of each word's list, and a store of a million
// messages kept dozens of them: merging them into one took the p50 of a
// compile there from 21 to 13 ms and its p99 from 42 to 32. Each message
// is copied about once per compactEvery messages indexed after it, about
// what automerge's levels cost; the steps run in the background (and in
// IndexMessages), never in an append or a search.
const (
	compactEvery = 100_000
	compactPages = 2_000
)

// The writer does not checkpoint the write-ahead log when it commits
// (wal_autocheckpoint 0, see Store.dsn): SQLite's automatic checkpoint
// runs inside the commit that crosses 1,000 log pages, so that a bulk
// import paid for copying every page it wrote back into the database —
// about 12 ms of a 10,000-message import's ~80. The background goroutine
// checkpoints instead, after its indexing pass, once the commits since the
// last checkpoint weigh checkpointAfter: a message counts 1 and a commit
// commitWeight, both more than the log pages they write, so the log stays
// smaller than SQLite's threshold would keep it.
const (
	checkpointAfter = 1000
	commitWeight    = 10
)

// wrote records a commit and what it wrote — the messages it inserted or
// indexed, or the pages a compaction step merged — and reports whether
// the log wants a checkpoint.
func (x *messageIndex) wrote(n int) bool {
	return x.unchecked.Add(int64(n+commitWeight)) >= checkpointAfter
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
		if err := s.compact(context.Background(), x); err != nil {
			s.opt.Logger.Error("compact the message index", "err", err)
		}
		if err := s.checkpoint(context.Background(), x); err != nil {
			s.opt.Logger.Error("checkpoint", "err", err)
		}
	}
}

// compact merges the full-text index's segments, a step at a time, once
// compactEvery messages were indexed since it last did; it stops early
// (to go on next time) when the store closes.
func (s *Store) compact(ctx context.Context, x *messageIndex) error {
	x.compacting.Lock()
	defer x.compacting.Unlock()
	every := cmp.Or(s.opt.CompactEvery, compactEvery)
	n := x.uncompacted.Load()
	if every < 0 || n < int64(every) {
		return nil
	}
	for {
		select {
		case <-x.stop:
			return nil
		default:
		}
		worked, err := s.compactStep(ctx)
		if err != nil {
			return err
		}
		if !worked {
			break
		}
		// A compaction rewrites the whole index: the log is checkpointed
		// as it goes, not only once it is done.
		if err := s.checkpoint(ctx, x); err != nil {
			return err
		}
	}
	x.uncompacted.Add(-n)
	return nil
}

// compactStep runs one step of FTS5's incremental optimize (a merge with
// a negative page count) and reports whether it did any work: a step that
// merges rewrites the index's structure record (rowid 10 of its data).
func (s *Store) compactStep(ctx context.Context) (bool, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	const structure = `SELECT coalesce((SELECT block FROM messages_fts_data WHERE id = 10), x'')`
	var before, after []byte
	if err := tx.QueryRowContext(ctx, structure).Scan(&before); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', ?)`, -compactPages); err != nil {
		return false, err
	}
	if err := tx.QueryRowContext(ctx, structure).Scan(&after); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	s.index.wrote(compactPages)
	return !bytes.Equal(before, after), nil
}

// checkpoint copies the write-ahead log back into the database when the
// commits since the last checkpoint weigh checkpointAfter. PASSIVE never
// waits for readers: what it cannot copy yet, the next one does.
func (s *Store) checkpoint(ctx context.Context, x *messageIndex) error {
	n := x.unchecked.Load()
	if n < checkpointAfter {
		return nil
	}
	var busy, frames, done int
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		return err
	}
	x.unchecked.Add(-n)
	return nil
}

// IndexMessages brings the full-text index of messages up to date with
// every committed message, and compacts it and checkpoints the
// write-ahead log when they are due (see compactEvery, checkpointAfter). It is never needed for correctness — appends leave
// indexing to a background goroutine and searches catch up first — but
// pays the cost up front, after a bulk import say. It returns
// CodeUnavailable when the store is not open.
func (s *Store) IndexMessages(ctx context.Context) error {
	if s.w == nil {
		return errClosed
	}
	if err := s.indexMessages(ctx, s.index); err != nil {
		return fmt.Errorf("index messages: %w", err)
	}
	if err := s.compact(ctx, s.index); err != nil {
		return fmt.Errorf("compact the message index: %w", err)
	}
	if err := s.checkpoint(ctx, s.index); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
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
	if err := tx.Commit(); err != nil {
		return false, err
	}
	s.index.wrote(int(to - from))
	s.index.uncompacted.Add(to - from)
	return to < last, nil
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
