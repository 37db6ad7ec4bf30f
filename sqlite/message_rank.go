package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure/engine"
)

// Full-text ranking of messages is FTS5's bm25() computed in Go over
// statistics local to the search: FTS5 finds the rows of the searched
// range that match (a seek into each term's list, cheap), and the score of
// each is
//
//	sum over phrases p of idf(p) · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))
//
// as in FTS5's fts5Bm25Function — k1 = 1.2, b = 0.75, f the phrase's
// instances in the row weighted by column (speaker 0.5, text 1, dates 1),
// D the row's tokens in all columns, idf(p) = ln((N − n(p) + 0.5) /
// (n(p) + 0.5)), 1e-6 when not positive — but with N, n(p) and avgdl
// counted over the rows the reader may see in what is searched (the
// threads in scope, or the tenant), not over the whole table. FTS5's
// bm25() counts n(p) by reading the phrase's list in every tenant's
// partition on every query, which cost most of a compile in a large store
// (104–163 ms of 178 at 1M messages); here a search reads what it
// searches. The statistics also no longer depend on rows the reader cannot
// see, in its tenant or another. A store that holds one thread, all of it
// visible, ranks exactly as bm25() did.
//
// Where the numbers come from: D is FTS5's own count (the docsize shadow
// table, one varint per column); which rows hold a phrase, in the speaker
// column or the others, FTS5 answers from its lists (rowid queries, no
// text read); N and the sum of D are kept per thread by the indexer
// (fts_threads.docs and tokens, migration 0024), and are counted row by
// row instead when some row in scope may be hidden from the reader (a
// user, persona or project is set on one of the threads' messages —
// fts_threads.scoped — or the search is as of a time) or spilled. f is
// bounded by presence — at least one instance where the phrase is, at
// most one per token of those columns — and counted exactly only for the
// rows whose upper bound reaches the k-th best lower bound (the others
// cannot be among the k best): FTS5 counts them, as the markers
// highlight() inserts for each instance of the phrase (overlapping
// instances of one phrase, which only a phrase of repeated tokens can
// have, count once). Counting every match that way re-tokenizes its text
// and cost twice bm25()'s per-row work in a giant thread.

// bm25 parameters, as FTS5's bm25() has them, and the column weights
// (speaker, text, dates) the search has always used.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

var bm25Weights = [3]float64{0.5, 1.0, 1.0}

// hit is a full-text match: its message, thread, position and score.
type hit struct {
	seq    int64
	thread string
	pos    int64
	score  float64
}

// row is a visible row of messages_fts that matches the query.
type row struct {
	rowid    int64
	size     int64     // D: its tokens, all columns
	cols     [3]int64  // its tokens by column
	lo, hi   []float64 // bounds of f of each phrase (equal once exact)
	resolved bool      // hit's seq, thread and pos are known
	hit
}

// hits returns the f.Limit best full-text matches within the scope, best
// first, ties in seq order. The full-text index is partitioned by rowid
// (see index.go): the search asks FTS5 for the rows of the threads in
// scope (or of the tenant), one range of rowids each, and ranks them
// (see the comment at the top of this file). Every visible match is
// scored, and the order — score, then seq — depends only on what the
// reader may see: no tie is cut by the order of rows it cannot.
func (b *backend) hits(ctx context.Context, db reads, tenant string, f engine.MessageCandidateFilter, scope func(alias string) string,
	args []any) ([]hit, error) {
	tx, err := db.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	plan, err := planSearch(ctx, tx, tenant, f.Threads)
	if err != nil || len(plan.ranges) == 0 {
		return nil, err
	}
	r := ranking{q: tx, f: f, scope: scope, args: args, plan: plan, rows: map[int64]*row{}}
	if err := r.statistics(ctx); err != nil {
		return nil, err
	}
	if err := r.match(ctx); err != nil {
		return nil, err
	}
	if err := r.presence(ctx); err != nil {
		return nil, err
	}
	return r.best(ctx)
}

// searchPlan is what a search reads: ranges of messages_fts rowids, and
// the thread keys (fts_threads.key) in scope.
type searchPlan struct {
	ranges [][2]int64
	// keys are the thread keys of the threads in scope, sorted; nil when
	// every thread of the tenant is.
	keys []int64
	// tenantKeys is the tenant's range of thread keys, when it has one.
	tenantKeys *[2]int64
	// filter says that the partitioned ranges hold threads out of scope,
	// whose rows must be left out by their keys.
	filter bool
}

// maxRanges is how many threads' ranges a search runs before it searches
// the tenant's instead.
const maxRanges = 8

// planSearch returns the ranges of messages_fts rowids that hold the
// tenant's messages, or those of threads when it is not nil: one per
// thread (adjacent ones merged) up to maxRanges, else the tenant's; and
// the negative rowids when the tenant spilled.
func planSearch(ctx context.Context, q querier, tenant string, threads []string) (searchPlan, error) {
	var p searchPlan
	var n int64
	var spill bool
	switch err := q.QueryRowContext(ctx, `SELECT n, spill FROM fts_tenants WHERE tenant_id = ?`, tenant).Scan(&n, &spill); {
	case errors.Is(err, sql.ErrNoRows):
		return p, nil // nothing of the tenant indexed
	case err != nil:
		return p, err
	}
	if n < 1<<ftsTenantBits {
		lo := n << ftsThreadBits
		p.tenantKeys = &[2]int64{lo, lo | (1<<ftsThreadBits - 1)}
	}
	if threads != nil {
		list, err := json.Marshal(threads)
		if err != nil {
			return p, err
		}
		rows, err := q.QueryContext(ctx, `SELECT key FROM fts_threads WHERE tenant_id = ? AND thread_id IN (SELECT value FROM json_each(?))
			ORDER BY key`, tenant, string(list))
		if err != nil {
			return p, err
		}
		p.keys = []int64{}
		for rows.Next() {
			var key int64
			if err := rows.Scan(&key); err != nil {
				rows.Close()
				return p, err
			}
			p.keys = append(p.keys, key)
			lo := key << ftsPosBits
			if len(p.ranges) > 0 && p.ranges[len(p.ranges)-1][1]+1 == lo {
				p.ranges[len(p.ranges)-1][1] = lo | maxPos()
			} else {
				p.ranges = append(p.ranges, [2]int64{lo, lo | maxPos()})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return p, err
		}
	}
	if (threads == nil || len(p.ranges) > maxRanges) && p.tenantKeys != nil {
		p.filter = threads != nil
		p.ranges = [][2]int64{{p.tenantKeys[0] << ftsPosBits, p.tenantKeys[1]<<ftsPosBits | maxPos()}}
	}
	if spill {
		p.ranges = append(p.ranges, [2]int64{math.MinInt64, -1})
	}
	return p, nil
}

// ranking is one search's state: its statistics and its visible matches.
type ranking struct {
	q     querier
	f     engine.MessageCandidateFilter
	scope func(alias string) string
	args  []any
	plan  searchPlan
	// counted says the partitioned ranges' statistics were counted row by
	// row, because some row in them may be hidden: their matches are
	// filtered by the scope too.
	counted bool
	docs    int64 // N
	tokens  int64 // the sum of D over the N rows
	rows    map[int64]*row
	order   []*row // rows, in the order FTS5 returned them
}

// partitioned is the join from a messages_fts rowid in a partitioned
// range, the expression rowid, to its message h.
func partitioned(rowid string) string {
	return `CROSS JOIN fts_threads t ON t.key = ` + rowid + ` >> ` + strconv.Itoa(ftsPosBits) + `
		CROSS JOIN messages h ON h.tkey = t.tkey AND h.pos = ` + rowid + ` & ` + strconv.FormatInt(maxPos(), 10)
}

// spilled is the join from a spilled rowid to its message h.
func spilled(rowid string) string { return `CROSS JOIN messages h ON h.seq = -` + rowid }

// statistics counts N and the sum of D over the visible rows in scope:
// from the threads' totals when no row in them can be hidden, else row by
// row; a spilled tenant's negative rowids always row by row.
func (r *ranking) statistics(ctx context.Context) error {
	if r.plan.tenantKeys != nil {
		var docs, tokens, scoped int64
		var err error
		if r.plan.keys != nil {
			keys, _ := json.Marshal(r.plan.keys)
			err = r.q.QueryRowContext(ctx, `SELECT coalesce(sum(docs), 0), coalesce(sum(tokens), 0), coalesce(sum(scoped), 0)
				FROM fts_threads WHERE key IN (SELECT value FROM json_each(?))`, string(keys)).Scan(&docs, &tokens, &scoped)
		} else {
			err = r.q.QueryRowContext(ctx, `SELECT coalesce(sum(docs), 0), coalesce(sum(tokens), 0), coalesce(sum(scoped), 0)
				FROM fts_threads WHERE key BETWEEN ? AND ?`, r.plan.tenantKeys[0], r.plan.tenantKeys[1]).Scan(&docs, &tokens, &scoped)
		}
		if err != nil {
			return err
		}
		r.counted = scoped > 0 || r.f.Before != nil
		if !r.counted {
			r.docs, r.tokens = docs, tokens
		}
	}
	for _, rg := range r.plan.ranges {
		join := partitioned("d.id")
		switch {
		case rg[1] < 0:
			join = spilled("d.id")
		case !r.counted:
			continue
		}
		rows, err := r.q.QueryContext(ctx, `SELECT d.sz FROM messages_fts_docsize d `+join+`
			WHERE d.id BETWEEN ? AND ? AND `+r.scope("h"), append([]any{rg[0], rg[1]}, r.args...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var sz []byte
			if err := rows.Scan(&sz); err != nil {
				rows.Close()
				return err
			}
			r.docs++
			r.tokens += docSize(sz)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// instances is the select list that counts, in a row of messages_fts
// that matches, the instances of the query's phrases in each column: the
// bytes highlight() adds when it marks each with one byte.
var instances = func() string {
	cols := []string{"speaker", "text", "dates"}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = `length(CAST(highlight(messages_fts, ` + strconv.Itoa(i) + `, char(1), '') AS BLOB)) - length(CAST(` + c + ` AS BLOB))`
	}
	return strings.Join(out, ", ")
}()

// match finds the visible rows that match any of the words, with their
// sizes by column: those of the ranges whose rows are all visible
// without reading their messages, the others (and the spilled) through
// their messages and the scope.
func (r *ranking) match(ctx context.Context) error {
	query := ftsQuery(r.f.Words)
	for _, rg := range r.plan.ranges {
		var join string
		var args []any
		switch {
		case rg[1] < 0:
			join, args = spilled("x.rowid")+` WHERE `+r.scope("h"), r.args
		case r.counted:
			join, args = partitioned("x.rowid")+` WHERE `+r.scope("h"), r.args
		}
		sel := `x.rowid, d.sz`
		if join != "" {
			sel += `, h.seq, h.thread_id, h.pos`
		}
		rows, err := r.q.QueryContext(ctx, `WITH x AS MATERIALIZED (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ?)
			SELECT `+sel+` FROM x CROSS JOIN messages_fts_docsize d ON d.id = x.rowid `+join,
			append([]any{query, rg[0], rg[1]}, args...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			m := &row{lo: make([]float64, len(r.f.Words)), hi: make([]float64, len(r.f.Words))}
			var sz []byte
			dst := []any{&m.rowid, &sz}
			if join != "" {
				m.resolved = true
				dst = append(dst, &m.seq, &m.thread, &m.pos)
			}
			if err := rows.Scan(dst...); err != nil {
				rows.Close()
				return err
			}
			if r.plan.filter && !m.resolved {
				if _, ok := slices.BinarySearch(r.plan.keys, m.rowid>>ftsPosBits); !ok {
					continue
				}
			}
			m.cols = columnSizes(sz)
			m.size = m.cols[0] + m.cols[1] + m.cols[2]
			r.rows[m.rowid] = m
			r.order = append(r.order, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// presence finds which phrases each matching row holds in its speaker
// column and in the others — rowid queries, which FTS5 answers from its
// lists without reading the rows' text — and bounds each phrase's
// weighted frequency f in the row: at least one instance where it is
// present, at most one a token of the column.
func (r *ranking) presence(ctx context.Context) error {
	for i := range r.f.Words {
		phrase := ftsQuery(r.f.Words[i : i+1])
		for part, filter := range []string{`speaker : `, `{text dates} : `} {
			for _, rg := range r.plan.ranges {
				rows, err := r.q.QueryContext(ctx, `SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ?`,
					filter+phrase, rg[0], rg[1])
				if err != nil {
					return err
				}
				for rows.Next() {
					var rowid int64
					if err := rows.Scan(&rowid); err != nil {
						rows.Close()
						return err
					}
					m := r.rows[rowid]
					if m == nil {
						continue // not visible
					}
					if part == 0 {
						m.lo[i] += bm25Weights[0]
						m.hi[i] += bm25Weights[0] * float64(m.cols[0])
					} else {
						m.lo[i] += 1
						m.hi[i] += bm25Weights[1]*float64(m.cols[1]) + bm25Weights[2]*float64(m.cols[2])
					}
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// exact counts the weighted frequencies of the rows whose bounds differ,
// one phrase at a time: highlight() marks each instance, by column.
func (r *ranking) exact(ctx context.Context, rows []*row) error {
	for i := range r.f.Words {
		var ids []int64
		for _, m := range rows {
			if m.lo[i] < m.hi[i] {
				ids = append(ids, m.rowid)
			}
		}
		if len(ids) == 0 {
			continue
		}
		list, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		// The unary + keeps the list from FTS5, which would start the
		// phrase's query again for each row; the range is read once.
		res, err := r.q.QueryContext(ctx, `SELECT rowid, `+instances+` FROM messages_fts
			WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?))`,
			ftsQuery(r.f.Words[i:i+1]), slices.Min(ids), slices.Max(ids), string(list))
		if err != nil {
			return err
		}
		for res.Next() {
			var rowid int64
			var n [3]int64
			if err := res.Scan(&rowid, &n[0], &n[1], &n[2]); err != nil {
				res.Close()
				return err
			}
			if m := r.rows[rowid]; m != nil {
				f := 0.0
				for c, w := range bm25Weights {
					f += w * float64(n[c])
				}
				m.lo[i], m.hi[i] = f, f
			}
		}
		res.Close()
		if err := res.Err(); err != nil {
			return err
		}
	}
	return nil
}

// best scores the rows and returns the f.Limit best, score then seq. Each
// row is scored with its bounds first; only the rows whose upper bound
// reaches the f.Limit-th lower bound can be among the best, and only
// those are counted exactly (a row left out scores strictly less than
// f.Limit rows kept, so it is neither among the best nor tied with them).
func (r *ranking) best(ctx context.Context) ([]hit, error) {
	if len(r.order) == 0 || r.docs == 0 {
		return nil, nil
	}
	df := make([]float64, len(r.f.Words))
	for _, m := range r.order {
		for i, f := range m.lo {
			if f > 0 {
				df[i]++
			}
		}
	}
	bm := newBM25(r.docs, r.tokens, df)
	score := func(m *row, freq []float64) float64 { return bm.score(freq, float64(m.size)) }
	cands := reachable(r.order, r.f.Limit, func(m *row) (float64, float64) { return score(m, m.lo), score(m, m.hi) })
	if err := r.exact(ctx, cands); err != nil {
		return nil, err
	}
	for _, m := range cands {
		m.score = score(m, m.lo)
	}
	// The rows at or above the f.Limit-th score, ties included, are
	// resolved to their messages, and ordered by score and seq.
	slices.SortFunc(cands, func(a, b *row) int { return cmp.Compare(b.score, a.score) })
	cut := len(cands)
	if r.f.Limit < cut {
		last := cands[r.f.Limit-1].score
		cut = r.f.Limit
		for cut < len(cands) && cands[cut].score == last {
			cut++
		}
	}
	top := cands[:cut]
	if err := r.resolve(ctx, top); err != nil {
		return nil, err
	}
	top = slices.DeleteFunc(top, func(m *row) bool { return !m.resolved })
	slices.SortFunc(top, func(a, b *row) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq)) })
	out := make([]hit, 0, min(len(top), r.f.Limit))
	for _, m := range top[:min(len(top), r.f.Limit)] {
		out = append(out, m.hit)
	}
	return out, nil
}

// resolve finds the messages of the rows not resolved yet (those of
// partitioned ranges whose rows are all visible), within the scope still.
func (r *ranking) resolve(ctx context.Context, rows []*row) error {
	var ids []int64
	for _, m := range rows {
		if !m.resolved {
			ids = append(ids, m.rowid)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	res, err := r.q.QueryContext(ctx, `SELECT x.rowid, h.seq, h.thread_id, h.pos FROM (SELECT value AS rowid FROM json_each(?)) x `+
		partitioned("x.rowid")+` WHERE `+r.scope("h"), append([]any{string(list)}, r.args...)...)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		var rowid, seq, pos int64
		var thread string
		if err := res.Scan(&rowid, &seq, &thread, &pos); err != nil {
			return err
		}
		if m := r.rows[rowid]; m != nil {
			m.seq, m.thread, m.pos, m.resolved = seq, thread, pos, true
		}
	}
	return res.Err()
}

// docSize returns the tokens of a row of messages_fts in all its columns,
// from its docsize record: one SQLite varint per column.
func docSize(sz []byte) int64 {
	var total int64
	for len(sz) > 0 {
		v, n := varint(sz)
		total += int64(v)
		sz = sz[n:]
	}
	return total
}

// columnSizes returns the tokens of a row of messages_fts by column, from
// its docsize record.
func columnSizes(sz []byte) [3]int64 {
	var out [3]int64
	for c := 0; c < len(out) && len(sz) > 0; c++ {
		v, n := varint(sz)
		out[c] = int64(v)
		sz = sz[n:]
	}
	return out
}

// varint decodes an SQLite varint (big-endian, 7 bits a byte with the
// high bit set on all but the last, the ninth byte whole), returning it
// and its length.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8 && i < len(b); i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return v, len(b)
	}
	return v<<8 | uint64(b[8]), 9
}
