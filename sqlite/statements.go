package sqlite

import (
	"context"
	"database/sql"
)

// maxPrepared bounds the read pool's statement cache. Queries are built
// from a fixed set of shapes, but a list's arity can be part of a text;
// past the bound, new texts run unprepared, as they did before the cache.
const maxPrepared = 512

// reads is the read pool, or one of its transactions, running every
// query through a statement prepared once per connection: parsing SQL was
// a quarter of a compile's CPU.
type reads struct {
	viaStmts
	b  *backend
	db *sql.DB
	tx *sql.Tx
}

var _ querier = reads{}

// readsOn returns the read pool db, or its transaction tx, with b's cache.
func (b *backend) readsOn(db *sql.DB, tx *sql.Tx) reads {
	r := reads{b: b, db: db, tx: tx}
	r.viaStmts = viaStmts{stmt: r.stmt, raw: r.raw()}
	return r
}

// begin starts a read transaction whose queries use the same cache.
func (r reads) begin(ctx context.Context) (reads, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	return r.b.readsOn(r.db, tx), err
}

func (r reads) rollback() error { return r.tx.Rollback() }

func (r reads) raw() querier {
	if r.tx != nil {
		return r.tx
	}
	return r.db
}

// stmt returns query prepared, or nil when it is not cached and cannot
// be (the unprepared query then reports why it failed to prepare).
func (r reads) stmt(ctx context.Context, query string) *sql.Stmt {
	st, _ := r.b.cachedRead(ctx, r.db, query, false)
	if st == nil || r.tx == nil {
		return st
	}
	return r.tx.StmtContext(ctx, st)
}

// viaStmts runs each query through the statement stmt returns for it,
// or through raw when that is nil.
type viaStmts struct {
	stmt func(ctx context.Context, query string) *sql.Stmt
	raw  querier
}

func (v viaStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := v.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return v.raw.QueryContext(ctx, query, args...)
}

func (v viaStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := v.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return v.raw.QueryRowContext(ctx, query, args...)
}

func (v viaStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := v.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return v.raw.ExecContext(ctx, query, args...)
}

// prepared returns query prepared on the read pool, for statements of a
// fixed text that are always worth caching.
func (b *backend) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	return b.cachedRead(ctx, db.db, query, true)
}

// cachedRead returns query prepared on the read pool, preparing it once.
// Past maxPrepared it returns nil unless always is set.
func (b *backend) cachedRead(ctx context.Context, db *sql.DB, query string, always bool) (*sql.Stmt, error) {
	b.stmtMu.Lock()
	st, ok := b.stmts[query]
	full := len(b.stmts) >= maxPrepared && !always
	b.stmtMu.Unlock()
	if ok || full {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	b.stmtMu.Lock()
	defer b.stmtMu.Unlock()
	if have, ok := b.stmts[query]; ok {
		st.Close()
		return have, nil
	}
	if b.stmts == nil {
		b.stmts = map[string]*sql.Stmt{}
	}
	b.stmts[query] = st
	return st, nil
}

// writes is a write transaction running its queries through statements
// prepared on the writer. The writer has one connection, which the
// transaction holds, so a statement cannot be prepared for later from
// inside one: a query seen unprepared is noted, and prepared before the
// next transaction begins (learnWrites).
type writes struct {
	viaStmts
	b  *backend
	tx *sql.Tx
}

var _ querier = writes{}

// writesOn returns the write transaction tx with b's statements.
func (b *backend) writesOn(tx *sql.Tx) writes {
	w := writes{b: b, tx: tx}
	w.viaStmts = viaStmts{stmt: w.stmt, raw: tx}
	return w
}

// stmt returns query prepared on the writer, or nil (and notes it).
func (w writes) stmt(ctx context.Context, query string) *sql.Stmt {
	b := w.b
	b.stmtMu.Lock()
	st, ok := b.writeStmts[query]
	if !ok && len(b.writeStmts)+len(b.missedWrites) < maxPrepared {
		if b.missedWrites == nil {
			b.missedWrites = map[string]bool{}
		}
		b.missedWrites[query] = true
	}
	b.stmtMu.Unlock()
	if !ok {
		return nil
	}
	return w.tx.StmtContext(ctx, st)
}

// learnWrites prepares on the writer the queries write transactions ran
// unprepared. One that fails to prepare is dropped: its transaction ran
// it unprepared and reported why.
func (b *backend) learnWrites(ctx context.Context) {
	b.stmtMu.Lock()
	missed := b.missedWrites
	b.missedWrites = nil
	b.stmtMu.Unlock()
	for q := range missed {
		st, err := b.w.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		b.stmtMu.Lock()
		if _, ok := b.writeStmts[q]; ok || b.writeStmts == nil {
			st.Close()
		} else {
			b.writeStmts[q] = st
		}
		b.stmtMu.Unlock()
	}
}
