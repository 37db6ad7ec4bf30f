package sqlite

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/tenure-dev/tenure/engine"
)

// Full-text ranking of objects is FTS5's bm25() computed in Go, as for
// messages (message_rank.go), over statistics counted on the objects the
// reader may read in the scope: N and the sum of D from the audience
// classes the filter's Keep reads (object_classes, engine.ReadableClasses),
// n(p) from the matches of those classes only. FTS5's own bm25() counted
// every tenant's and every audience's rows, so that an object the reader
// could not read shifted the scores of those it could and, when the limit
// bound, which of them were candidates. The objects of classes it does not
// read are neither counted nor scored; ties are broken by seq among the
// objects it reads.
//
// One column, weight 1: D is the docsize record's count, f is bounded by
// presence (at least one instance, at most one a token) and counted exactly
// (highlight()'s markers) only for the rows whose upper bound reaches the
// k-th best lower bound.

// objectMatch is a matching object the reader may read.
type objectMatch struct {
	seq    int64
	size   int64     // D
	lo, hi []float64 // bounds of f of each phrase (equal once exact)
	score  float64
}

// objectHits returns the seqs of the f.Limit best full-text matches of
// f.Words among the objects of tenant that f.Keep reads within f's scope,
// best first, ties in seq order. scope and args are the scope's prefilter
// (scopeFilter), on columns of an alias o.
func objectHits(ctx context.Context, db reads, tenant string, f engine.CandidateFilter, scope string, args []any) ([]int64, error) {
	tx, err := db.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	rows, err := tx.QueryContext(ctx, `SELECT o.id, o.audience, o.docs, o.tokens FROM object_classes o WHERE o.tenant_id = ? AND `+scope,
		append([]any{tenant}, args...)...)
	if err != nil {
		return nil, err
	}
	var classes []engine.ObjectClass
	for rows.Next() {
		var c engine.ObjectClass
		if err := rows.Scan(&c.ID, &c.Audience, &c.Docs, &c.Length); err != nil {
			rows.Close()
			return nil, err
		}
		classes = append(classes, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids, docs, tokens, err := engine.ReadableClasses(tenant, classes, f.Keep)
	if err != nil || docs <= 0 {
		return nil, err
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	// Which readable objects hold each phrase, with their sizes: one
	// match per distinct phrase (a repeated word counts twice, as a
	// phrase of its own, with the same numbers).
	matches := map[int64]*objectMatch{}
	var order []*objectMatch
	df := make([]float64, len(f.Words))
	for i, w := range f.Words {
		if j := slices.Index(f.Words, w); j < i {
			df[i] = df[j]
			for _, m := range order {
				m.lo[i], m.hi[i] = m.lo[j], m.hi[j]
			}
			continue
		}
		// CROSS JOIN: drive from the full-text match, never from objects.
		rows, err := tx.QueryContext(ctx, `SELECT m.rowid, d.sz FROM objects_fts m CROSS JOIN objects o ON o.seq = m.rowid
			CROSS JOIN objects_fts_docsize d ON d.id = m.rowid
			WHERE objects_fts MATCH ? AND o.tenant_id = ? AND o.fts_class IN (SELECT value FROM json_each(?))`,
			ftsQuery(f.Words[i:i+1]), tenant, string(list))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var seq int64
			var sz []byte
			if err := rows.Scan(&seq, &sz); err != nil {
				rows.Close()
				return nil, err
			}
			m := matches[seq]
			if m == nil {
				m = &objectMatch{seq: seq, size: docSize(sz), lo: make([]float64, len(f.Words)), hi: make([]float64, len(f.Words))}
				matches[seq] = m
				order = append(order, m)
			}
			df[i]++
			m.lo[i], m.hi[i] = 1, float64(m.size)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	bm := newBM25(docs, tokens, df)
	score := func(m *objectMatch, freq []float64) float64 { return bm.score(freq, float64(m.size)) }
	bounds := func(m *objectMatch) (float64, float64) { return score(m, m.lo), score(m, m.hi) }
	cands := reachable(order, f.Limit, bounds)
	if err := exactObjects(ctx, tx, f.Words, undecided(cands, bounds)); err != nil {
		return nil, err
	}
	for _, m := range cands {
		m.score = score(m, m.lo)
	}
	slices.SortFunc(cands, func(a, b *objectMatch) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq)) })
	out := make([]int64, 0, min(len(cands), f.Limit))
	for _, m := range cands[:min(len(cands), f.Limit)] {
		out = append(out, m.seq)
	}
	return out, nil
}

// undecided returns the rows whose place among rows their bounds leave
// open: those whose score interval overlaps another's. A row apart from
// every other (one large document alone, say) keeps its bounds, which
// order it as its exact score would; counting its frequencies exactly
// means marking every instance in its text (highlight()), which for a
// megabyte-long corpus object cost a compile most of a second.
func undecided(rows []*objectMatch, bounds func(*objectMatch) (float64, float64)) []*objectMatch {
	type span struct {
		lo, hi float64
		m      *objectMatch
	}
	spans := make([]span, len(rows))
	for i, m := range rows {
		lo, hi := bounds(m)
		spans[i] = span{lo, hi, m}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out []*objectMatch
	for i := 0; i < len(spans); {
		j, top := i+1, spans[i].hi
		for j < len(spans) && spans[j].lo <= top {
			top = max(top, spans[j].hi)
			j++
		}
		if j-i > 1 {
			for _, sp := range spans[i:j] {
				out = append(out, sp.m)
			}
		}
		i = j
	}
	return out
}

// exactObjects counts the frequencies of the phrases in the rows whose
// bounds differ, one phrase at a time: highlight() marks each instance.
func exactObjects(ctx context.Context, q querier, words []string, rows []*objectMatch) error {
	for i, w := range words {
		if j := slices.Index(words, w); j < i {
			for _, m := range rows {
				m.lo[i], m.hi[i] = m.lo[j], m.hi[j]
			}
			continue
		}
		var ids []int64
		byID := map[int64]*objectMatch{}
		for _, m := range rows {
			if m.lo[i] < m.hi[i] {
				ids = append(ids, m.seq)
				byID[m.seq] = m
			}
		}
		if len(ids) == 0 {
			continue
		}
		list, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		// The range bounds FTS5's reading of the phrase's list; the unary
		// + keeps the id list from it (see message_rank.go's exact).
		res, err := q.QueryContext(ctx, `SELECT rowid, length(CAST(highlight(objects_fts, 0, char(1), '') AS BLOB)) - length(CAST(text AS BLOB))
			FROM objects_fts WHERE objects_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?))`,
			ftsQuery(words[i:i+1]), slices.Min(ids), slices.Max(ids), string(list))
		if err != nil {
			return err
		}
		for res.Next() {
			var seq, n int64
			if err := res.Scan(&seq, &n); err != nil {
				res.Close()
				return err
			}
			if m := byID[seq]; m != nil {
				m.lo[i], m.hi[i] = float64(n), float64(n)
			}
		}
		res.Close()
		if err := res.Err(); err != nil {
			return err
		}
	}
	return nil
}
