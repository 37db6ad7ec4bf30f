package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// Full-text search ranks as SQLite's FTS5 bm25() does, so that both stores
// retrieve alike: the query's words are turned into lexemes by the same
// text search configuration that built the tsvector columns, each word is
// a term (a word repeated counts twice), and a row's score is
//
//	sum over terms t of idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))
//
// with k1 = 1.2, b = 0.75, idf(t) = max(ln((N − n(t) + 0.5)/(n(t) + 0.5)),
// 1e-6), tf the term's occurrences weighted by column (tsvector weight A
// 1.0, B 0.5 — messages' speaker — and unweighted D 1.0), len the row's
// lexemes and N, n(t) and avglen counted over the tenant's rows the reader
// may read: for objects the open ones of the audience classes it reads
// (migration 0009, engine.ReadableClasses), for messages those of the view
// classes of migration 0006 — so that rows it may not read never change
// the scores of those it may, nor which of them are returned. SQLite
// counts over the same rows (sqlite/object_rank.go, message_rank.go).
// PostgreSQL's ts_rank has no idf, and ranking by it retrieved markedly
// worse.

// lexemesOf is the query that turns the words $1 into lexemes, one list
// per word, in order (a word repeated counts twice).
const lexemesOf = `SELECT coalesce(array_agg(u.lexeme ORDER BY w.n, u.lexeme), '{}')
	FROM unnest($1::text[]) WITH ORDINALITY w(word, n) CROSS JOIN LATERAL unnest(to_tsvector('tenure', w.word)) u`

// anyOf returns the tsquery that matches any of lexemes ("" for none).
func anyOf(lexemes []string) string {
	q := make([]string, 0, len(lexemes))
	seen := map[string]bool{}
	for _, l := range lexemes {
		if !seen[l] {
			seen[l] = true
			q = append(q, `'`+strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(l)+`'`)
		}
	}
	return strings.Join(q, " | ")
}

// bm25 is the ranking query over table: d holds the tenant's rows that
// match (those that pass base, on table aliased m) with the columns carry
// and their terms' weighted frequencies; the rows of d aliased alias that
// pass where are ranked, returning the columns out (of carry) and score.
// Arguments: terms, tsquery, tenant, N, avglen, then where's.
func bm25(table, base string, carry []string, alias, where string, out []string) string {
	mcols := make([]string, len(carry))
	for i, c := range carry {
		mcols[i] = "m." + c
	}
	ocols := make([]string, len(out))
	for i, c := range out {
		ocols[i] = alias + "." + c
	}
	return `WITH t AS (SELECT lexeme FROM unnest(?::text[]) t(lexeme)),
	d AS (SELECT ` + strings.Join(mcols, ", ") + `, length(m.tsv) AS len, x.lexeme, x.tf FROM ` + table + ` m CROSS JOIN LATERAL (
		SELECT u.lexeme, sum(CASE w WHEN 'B' THEN 0.5 ELSE 1.0 END) AS tf
		FROM unnest(m.tsv) u CROSS JOIN unnest(u.weights) w WHERE u.lexeme IN (SELECT lexeme FROM t) GROUP BY u.lexeme) x
		WHERE m.tsv @@ ?::tsquery AND m.tenant_id = ? AND ` + base + `),
	df AS (SELECT lexeme, count(*) AS n FROM d GROUP BY lexeme),
	idf AS (SELECT t.lexeme, greatest(ln((?::float8 - df.n + 0.5) / (df.n + 0.5)), 1e-6) AS idf FROM t JOIN df USING (lexeme))
	SELECT ` + strings.Join(ocols, ", ") + `, sum(idf.idf * ` + alias + `.tf * 2.2 / (` + alias + `.tf + 1.2 * (0.25 + 0.75 * ` + alias + `.len / ?::float8))) AS score
	FROM d ` + alias + ` JOIN idf USING (lexeme) WHERE ` + where + `
	GROUP BY ` + strings.Join(ocols, ", ") + ` ORDER BY score DESC, ` + alias + `.seq`
}

// scopeFilter is the prefilter for a scope and clearance on objects o.
func scopeFilter(f engine.CandidateFilter) (string, []any) {
	s := f.Scope
	return `(o.user_id = '' OR o.user_id = ?) AND (o.project_id = '' OR o.project_id = ?)
		AND (o.session_id = '' OR o.session_id = ?) AND (o.task_id = '' OR o.task_id = ?)
		AND (o.sandbox_id = '' OR o.sandbox_id = ?) AND o.class_rank <= ?`,
		[]any{s.UserID, s.ProjectID, s.SessionID, s.TaskID, s.ScopeID, f.MaxClassRank}
}

func (b *backend) Candidates(ctx context.Context, tenant string, f engine.CandidateFilter) (out []tenure.Object, err error) {
	keep := func(o *tenure.Object) bool { return f.Keep == nil || f.Keep(o) }
	all := func(objs []tenure.Object, err error) ([]tenure.Object, error) {
		if f.Withheld || err != nil {
			return objs, err
		}
		return slices.DeleteFunc(objs, func(o tenure.Object) bool { return !keep(&o) }), nil
	}
	scope, sargs := scopeFilter(f)
	err = b.read(ctx, tenant, func(c querier) error {
		if f.AsOfTx != nil {
			n := f.AsOfTx.UnixNano()
			out, err = all(queryObjects(ctx, c, `SELECT o.seq, o.body, o.tx_end FROM objects o WHERE o.tenant_id = ?
				AND o.tx_start <= ? AND (o.tx_end IS NULL OR o.tx_end > ?) AND `+scope+` ORDER BY o.seq`,
				append([]any{tenant, n, n}, sargs...)...))
			return err
		}
		seen := map[string]bool{}
		add := func(objs []tenure.Object, err error) error {
			for _, o := range objs {
				if k := o.ObjectID; !seen[k] {
					seen[k] = true
					out = append(out, o)
				}
			}
			return err
		}
		if err := add(all(queryObjects(ctx, c, `SELECT o.seq, o.body, o.tx_end FROM objects o
			WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.always ORDER BY o.seq`, tenant))); err != nil {
			return err
		}
		if len(f.Words) > 0 && f.Limit > 0 {
			// The words' lexemes, and the audience classes in the scope:
			// the statistics are those of the classes the principal may
			// read, and only their objects are matched (migration 0009).
			var lexemes []string
			if err := c.QueryRow(ctx, `SELECT (`+lexemesOf+`)`, f.Words).Scan(&lexemes); err != nil {
				return err
			}
			classes, err := objectClasses(ctx, c, tenant, scope, sargs)
			if err != nil {
				return err
			}
			ids, docs, lex, err := engine.ReadableClasses(tenant, classes, f.Keep)
			if err != nil {
				return err
			}
			if len(lexemes) > 0 && docs > 0 {
				tsq := anyOf(lexemes)
				ranked := bm25(`objects`, `m.tx_end IS NULL AND m.fts_class = ANY(?::bigint[])`, []string{"seq"}, "o", "true", []string{"seq"})
				q := `SELECT o.seq, o.body, o.tx_end FROM (` + ranked + ` LIMIT ?) r JOIN objects o ON o.seq = r.seq ORDER BY r.score DESC, o.seq`
				avg := max(float64(lex)/float64(docs), 1)
				if err := add(all(queryObjects(ctx, c, q, lexemes, tsq, tenant, ids, docs, avg, f.Limit))); err != nil {
					return err
				}
			}
		}
		if f.Foundation > 0 {
			// Foundation memories: pinned, then importance 3, newest first.
			if err := add(firstKept(ctx, c, `SELECT o.seq, o.body, o.tx_end FROM objects o
				WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.memory_rank > 0 AND `+scope+` ORDER BY o.memory_rank DESC, o.seq DESC LIMIT ?`,
				append([]any{tenant}, sargs...), f.Foundation, keep)); err != nil {
				return err
			}
		}
		if f.Recent > 0 {
			if err := add(firstKept(ctx, c, `SELECT o.seq, o.body, o.tx_end FROM objects o
				WHERE o.tenant_id = ? AND o.tx_end IS NULL AND `+scope+` ORDER BY o.seq DESC LIMIT ?`,
				append([]any{tenant}, sargs...), f.Recent, keep)); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// objectClasses returns the audience classes of tenant's open objects
// that pass the scope's prefilter (scopeFilter, on alias o).
func objectClasses(ctx context.Context, c querier, tenant, scope string, args []any) ([]engine.ObjectClass, error) {
	rows, err := c.Query(ctx, rebind(`SELECT o.id, o.audience, o.docs, o.lexemes FROM object_classes o WHERE o.tenant_id = ? AND `+scope),
		append([]any{tenant}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []engine.ObjectClass
	for rows.Next() {
		var k engine.ObjectClass
		if err := rows.Scan(&k.ID, &k.Audience, &k.Docs, &k.Length); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// firstKept returns the first n rows of query that keep keeps; the query
// takes args and then its LIMIT, which grows until n are kept or the rows
// run out.
func firstKept(ctx context.Context, c querier, query string, args []any, n int, keep func(*tenure.Object) bool) ([]tenure.Object, error) {
	for limit := n; ; limit *= 4 {
		objs, err := queryObjects(ctx, c, query, append(slices.Clip(args), limit)...)
		if err != nil {
			return nil, err
		}
		rows := len(objs)
		kept := slices.DeleteFunc(objs, func(o tenure.Object) bool { return !keep(&o) })
		if len(kept) >= n || rows < limit {
			return kept[:min(n, len(kept))], nil
		}
	}
}

// candidateScope is the condition on messages aliased alias that keeps a
// principal's candidates; arguments: tenant, user, persona, project, then the time
// (before) and the threads (threads).
func candidateScope(alias string, before, threads bool) string {
	a := alias
	s := a + `.tenant_id = ? AND (` + a + `.user_id = '' OR ` + a + `.user_id = ?) AND (` +
		a + `.persona_id = '' OR ` + a + `.persona_id = ?) AND (` + a + `.project_id = '' OR ` + a + `.project_id = ?)`
	if before {
		s += ` AND ` + a + `.created_at < ?`
	}
	if threads {
		s += ` AND ` + a + `.thread_id = ANY(?::text[])`
	}
	return s
}

// scopeArgs returns candidateScope's arguments.
func scopeArgs(tenant, user, persona, project string, f interface{ before() *int64 }, threads []string) []any {
	args := []any{tenant, user, persona, project}
	if b := f.before(); b != nil {
		args = append(args, *b)
	}
	if threads != nil {
		args = append(args, threads)
	}
	return args
}

type beforeTime struct{ t *int64 }

func (b beforeTime) before() *int64 { return b.t }

func (b *backend) MessageCandidates(ctx context.Context, tenant string, f engine.MessageCandidateFilter) (out []tenure.ScoredMessage, err error) {
	var before *int64
	if f.Before != nil {
		n := f.Before.UnixNano()
		before = &n
	}
	args := scopeArgs(tenant, f.UserID, f.PersonaID, f.ProjectID, beforeTime{before}, f.Threads)
	scope := func(alias string) string { return candidateScope(alias, f.Before != nil, f.Threads != nil) }
	err = b.read(ctx, tenant, func(c querier) error {
		view := &threadViews{c: c, tenant: tenant, user: f.UserID, persona: f.PersonaID, hidden: map[string][]int64{}}
		if len(f.Words) > 0 && f.Limit > 0 {
			hits, err := b.hits(ctx, c, tenant, f, scope, args)
			if err != nil {
				return err
			}
			if out, err = near(ctx, c, tenant, f.Neighbors, f.WideMatches, hits, view, scope, args); err != nil {
				return err
			}
		}
		if f.Recent > 0 && !holds(out, f.RecentUnlessTokens) {
			rows, err := c.Query(ctx, rebind(`SELECT `+messageCols+` FROM messages m WHERE `+scope("m")+` ORDER BY m.seq DESC LIMIT ?`),
				append(slices.Clip(args), f.Recent)...)
			if err != nil {
				return err
			}
			recent, err := scanMessages(rows, tenant, false)
			if err != nil {
				return err
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
		threads := make([]string, len(out))
		for i := range out {
			threads[i] = out[i].ThreadID
		}
		if err := view.load(ctx, threads); err != nil {
			return err
		}
		for i := range out {
			hidden, err := view.of(ctx, out[i].ThreadID)
			if err != nil {
				return err
			}
			n, _ := slices.BinarySearch(hidden, out[i].Pos)
			out[i].Pos -= int64(n)
		}
		return nil
	})
	return out, err
}

// hit is a match: its message, thread, position and score.
type hit struct {
	seq    int64
	thread string
	pos    int64
	score  float64
}

// hits returns the f.Limit best full-text matches within the scope, best
// first.
func (b *backend) hits(ctx context.Context, c querier, tenant string, f engine.MessageCandidateFilter, scope func(string) string, args []any) ([]hit, error) {
	// The words' lexemes and the statistics of the messages the reader may
	// read (see migration 0006), in one round trip.
	var lexemes []string
	var docs, lex int64
	err := c.QueryRow(ctx, `SELECT (`+lexemesOf+`), coalesce(sum(docs), 0), coalesce(sum(lexemes), 0) FROM fts_stats
		WHERE tenant_id = $2 AND user_id IN ('', $3) AND persona_id IN ('', $4) AND project_id IN ('', $5)`,
		f.Words, tenant, f.UserID, f.PersonaID, f.ProjectID).Scan(&lexemes, &docs, &lex)
	if err != nil || docs == 0 || len(lexemes) == 0 {
		return nil, err
	}
	tsq := anyOf(lexemes)
	avg := max(float64(lex)/float64(docs), 1)
	q, qargs := messageRanking(lexemes, tsq, tenant, float64(docs), avg, scope("m"), args, f.Limit, f.Threads,
		viewClass{f.UserID, f.PersonaID, f.ProjectID})
	rows, err := c.Query(ctx, q, qargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.seq, &h.thread, &h.pos, &h.score); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// messageRanking is the query that ranks messages by BM25 in two passes.
// The first scores every matching message within the scope with each
// term's presence, by weight, in place of its frequency — a few tsquery
// tests per row, in C — and keeps the best candidates (shortlist, a
// multiple of the limit); the second scores those exactly, counting
// occurrences. A term's frequency is at least its presence, so the first
// pass's score is a lower bound of the exact one and the shortlist holds
// the exact top in all but contrived cases (a message that repeats a
// term many times and matches little else). Document frequencies are
// those of the messages the reader may read (view), read from fts_terms;
// so a search restricted to threads (threads not nil) reads only their
// messages, however many the tenant holds.
func messageRanking(lexemes []string, tsq, tenant string, docs, avg float64, scope string, scopeArgs []any, limit int,
	threads []string, view viewClass) (string, []any) {
	args := []any{tsq, tenant, docs, avg, lexemes}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	quoted := func(l, weight string) string {
		return `'` + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(l) + `'` + weight
	}
	var flags, counts, idfs, approx, idfList []string
	for i, l := range lexemes {
		// Messages hold weights A and B only: present means either.
		flags = append(flags, fmt.Sprintf(`m.tsv @@ %s::tsquery AS a%d, m.tsv @@ %s::tsquery AS b%d`,
			arg(quoted(l, ":A")), i, arg(quoted(l, ":B")), i))
		counts = append(counts, fmt.Sprintf(`coalesce(sum(docs) FILTER (WHERE lexeme = ($5::text[])[%d]), 0)::float8 AS n%d`, i+1, i))
		idfs = append(idfs, fmt.Sprintf(`greatest(ln(($3 - n%d + 0.5::float8) / (n%d + 0.5::float8)), 1e-6::float8) AS i%d`, i, i, i))
		tf := fmt.Sprintf(`(CASE WHEN m.a%d THEN 1::float8 ELSE 0::float8 END + CASE WHEN m.b%d THEN 0.5::float8 ELSE 0::float8 END)`, i, i)
		approx = append(approx, fmt.Sprintf(`idf.i%d * %s * 2.2::float8 / (%s + m.norm)`, i, tf, tf))
		idfList = append(idfList, fmt.Sprintf("idf.i%d", i))
	}
	classes := `user_id IN ('', ` + arg(view.user) + `) AND persona_id IN ('', ` + arg(view.persona) + `) AND project_id IN ('', ` + arg(view.project) + `)`
	in := ""
	if threads != nil {
		in = ` AND m.thread_id = ANY(` + arg(threads) + `::text[])`
	}
	// The scope's placeholders follow.
	var b strings.Builder
	for _, r := range scope {
		if r == '?' {
			b.WriteString(arg(scopeArgs[0]))
			scopeArgs = scopeArgs[1:]
			continue
		}
		b.WriteRune(r)
	}
	shortlist := arg(max(4*limit, 50))
	lim := arg(limit)
	// norm is k1·(1 − b + b·len/avglen), in float8 throughout (numeric
	// arithmetic was most of the first pass).
	return `WITH d AS MATERIALIZED (SELECT m.seq, m.thread_id, m.pos, m.tenant_id, m.user_id, m.persona_id, m.project_id, m.created_at,
			1.2::float8 * (0.25::float8 + 0.75::float8 * length(m.tsv) / $4::float8) AS norm, ` + strings.Join(flags, ", ") + `
		FROM messages m WHERE m.tsv @@ $1::tsquery AND m.tenant_id = $2` + in + `),
	idf AS (SELECT ` + strings.Join(idfs, ", ") + ` FROM (SELECT ` + strings.Join(counts, ", ") + `
		FROM fts_terms WHERE tenant_id = $2 AND lexeme = ANY($5::text[]) AND ` + classes + `) c),
	approx AS (SELECT m.seq, m.thread_id, m.pos, m.norm, (` + strings.Join(approx, " + ") + `) AS score
		FROM d m, idf WHERE ` + b.String() + ` ORDER BY score DESC, m.seq LIMIT ` + shortlist + `),
	w AS (SELECT w.lexeme, w.idf FROM idf CROSS JOIN LATERAL unnest($5::text[], ARRAY[` + strings.Join(idfList, ", ") + `]) w(lexeme, idf))
	SELECT a.seq, a.thread_id, a.pos, sum(w.idf * x.tf * 2.2::float8 / (x.tf + a.norm)) AS score
	FROM approx a JOIN messages t ON t.seq = a.seq CROSS JOIN LATERAL (SELECT u.lexeme, sum(CASE wt WHEN 'B' THEN 0.5::float8 ELSE 1::float8 END) AS tf
		FROM unnest(t.tsv) u CROSS JOIN unnest(u.weights) wt WHERE u.lexeme = ANY($5) GROUP BY u.lexeme) x
	JOIN w ON w.lexeme = x.lexeme
	GROUP BY a.seq, a.thread_id, a.pos ORDER BY score DESC, a.seq LIMIT ` + lim, args
}

// near returns the hits with their neighbours in the reader's view (see
// the SQLite store's near), best first.
func near(ctx context.Context, c querier, tenant string, neighbors, wide int, hits []hit, view *threadViews,
	scope func(string) string, args []any) ([]tenure.ScoredMessage, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	threads := make([]string, len(hits))
	lo := make([]int64, len(hits))
	hi := make([]int64, len(hits))
	score := make(map[int64]float64, len(hits))
	for i := range hits {
		threads[i] = hits[i].thread
	}
	if err := view.load(ctx, threads); err != nil {
		return nil, err
	}
	for i, h := range hits {
		hidden, err := view.of(ctx, h.thread)
		if err != nil {
			return nil, err
		}
		n := int64(neighbors)
		if i < wide {
			n++
		}
		threads[i], lo[i], hi[i] = h.thread, step(h.pos, -n, hidden), step(h.pos, n, hidden)
		score[h.seq] = h.score
	}
	// Driven by the windows, each read on the position index (a lateral
	// join kept apart by OFFSET 0: the plan must not depend on statistics
	// a fresh table lacks);
	// overlapping windows repeat a message, kept once.
	rows, err := c.Query(ctx, rebind(`SELECT `+messageCols+` FROM unnest(?::text[], ?::bigint[], ?::bigint[]) w(thread_id, lo, hi)
		CROSS JOIN LATERAL (SELECT * FROM messages n WHERE n.tenant_id = ? AND n.thread_id = w.thread_id AND n.pos BETWEEN w.lo AND w.hi
			OFFSET 0) m
		WHERE `+scope("m")), append([]any{threads, lo, hi, tenant}, args...)...)
	if err != nil {
		return nil, err
	}
	all, err := scanMessages(rows, tenant, false)
	seen := make(map[int64]bool, len(all))
	out := all[:0]
	for _, m := range all {
		if !seen[m.Seq] {
			seen[m.Seq] = true
			m.Score = score[m.Seq]
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b tenure.ScoredMessage) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Seq, b.Seq))
	})
	return out, err
}

// step returns the position n turns of the view away from pos, skipping
// the hidden positions (sorted).
func step(pos, n int64, hidden []int64) int64 {
	dir := int64(1)
	if n < 0 {
		dir, n = -1, -n
	}
	for ; n > 0 && pos+dir > 0; n-- {
		pos += dir
		for _, found := slices.BinarySearch(hidden, pos); found; _, found = slices.BinarySearch(hidden, pos) {
			pos += dir
		}
	}
	return pos
}

// threadViews finds, once per thread, the positions of the turns a user
// cannot read: other users' and other personas' (everything but its
// persona's and the global ones).
type threadViews struct {
	c       querier
	tenant  string
	user    string
	persona string
	hidden  map[string][]int64
}

func (v *threadViews) of(ctx context.Context, thread string) ([]int64, error) {
	if h, ok := v.hidden[thread]; ok {
		return h, nil
	}
	if err := v.load(ctx, []string{thread}); err != nil {
		return nil, err
	}
	return v.hidden[thread], nil
}

// load finds the hidden positions of the threads not loaded yet, in one
// query: two ranges of the (tenant, thread, user, id) index per thread,
// empty in the common case — the users before this one and those after —
// and two of the (partial) persona index, empty unless personas are used.
func (v *threadViews) load(ctx context.Context, threads []string) error {
	var todo []string
	for _, t := range threads {
		if _, ok := v.hidden[t]; !ok && !slices.Contains(todo, t) {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	rows, err := v.c.Query(ctx, `SELECT thread_id, pos FROM messages WHERE tenant_id = $1 AND thread_id = ANY($2) AND user_id > '' AND user_id < $3
		UNION ALL SELECT thread_id, pos FROM messages WHERE tenant_id = $1 AND thread_id = ANY($2) AND user_id > $3
		UNION ALL SELECT thread_id, pos FROM messages WHERE tenant_id = $1 AND thread_id = ANY($2) AND persona_id <> '' AND persona_id < $4
		UNION ALL SELECT thread_id, pos FROM messages WHERE tenant_id = $1 AND thread_id = ANY($2) AND persona_id <> '' AND persona_id > $4`,
		v.tenant, todo, v.user, v.persona)
	if err != nil {
		return err
	}
	defer rows.Close()
	for _, t := range todo {
		v.hidden[t] = []int64{}
	}
	for rows.Next() {
		var t string
		var pos int64
		if err := rows.Scan(&t, &pos); err != nil {
			return err
		}
		v.hidden[t] = append(v.hidden[t], pos)
	}
	for _, t := range todo {
		slices.Sort(v.hidden[t])
		v.hidden[t] = slices.Compact(v.hidden[t]) // another user's turn may be another persona's too
	}
	return rows.Err()
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
