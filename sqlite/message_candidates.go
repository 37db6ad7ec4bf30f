package sqlite

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

func (b *backend) MessageCandidates(ctx context.Context, tenant string, f engine.MessageCandidateFilter) ([]tenure.ScoredMessage, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	args := []any{tenant, f.UserID, f.PersonaID, f.ProjectID}
	if f.Before != nil {
		args = append(args, f.Before.UnixNano())
	}
	if f.Threads != nil {
		threads, err := json.Marshal(f.Threads)
		if err != nil {
			return nil, err
		}
		args = append(args, string(threads))
	}
	scope := func(alias string) string { return candidateScope(alias, f.Before != nil, f.Threads != nil) }
	view := &threadViews{db: db, tenant: tenant, user: f.UserID, persona: f.PersonaID, hidden: map[string][]int64{}}
	var out []tenure.ScoredMessage
	if len(f.Words) > 0 && f.Limit > 0 {
		if err := b.searchable(ctx); err != nil {
			return nil, err
		}
		hits, err := b.hits(ctx, db, tenant, f, scope, args)
		if err != nil {
			return nil, err
		}
		if out, err = b.near(ctx, tenant, f, hits, view, scope, args); err != nil {
			return nil, err
		}
	}
	if f.Recent > 0 && !holds(out, f.RecentUnlessTokens) {
		recent, err := b.recent(ctx, db, tenant, f, scope, args)
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
	// Positions are counted within the reader's view, so that "next to"
	// means the same whatever another user wrote in the thread.
	for i := range out {
		hidden, err := view.of(ctx, out[i].ThreadID)
		if err != nil {
			return nil, err
		}
		n, _ := slices.BinarySearch(hidden, out[i].Pos)
		out[i].Pos -= int64(n)
	}
	return out, nil
}

// recent returns the f.Recent latest messages in scope, latest first. Of
// a few threads, each thread's are read backwards on the position index
// (a thread's positions follow its appends, as seq does) and merged: the
// table's tail would hold every other thread's latest messages too. Else
// the latest appended first: seq is the rowid, so this reads the table's
// tail. The unary + keeps the planner off the tenant index, which would
// sort every message of the tenant to find the last few.
func (b *backend) recent(ctx context.Context, db querier, tenant string, f engine.MessageCandidateFilter, scope func(alias string) string,
	args []any) ([]tenure.ScoredMessage, error) {
	if f.Threads == nil || len(f.Threads) > maxRanges {
		rows, err := db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE +`+scope("m")+` ORDER BY m.seq DESC LIMIT ?`,
			append(slices.Clip(args), f.Recent)...)
		if err != nil {
			return nil, err
		}
		return scanMessages(rows, tenant, false)
	}
	var out []tenure.ScoredMessage
	for _, th := range f.Threads {
		rows, err := db.QueryContext(ctx, `SELECT `+messageCols+` FROM messages m WHERE m.tkey = `+threadKey+` AND `+scope("m")+`
			ORDER BY m.pos DESC LIMIT ?`, append(append([]any{tenant, th}, args...), f.Recent)...)
		if err != nil {
			return nil, err
		}
		msgs, err := scanMessages(rows, tenant, false)
		if err != nil {
			return nil, err
		}
		out = append(out, msgs...)
	}
	slices.SortFunc(out, func(a, b tenure.ScoredMessage) int { return cmp.Compare(b.Seq, a.Seq) })
	return out[:min(len(out), f.Recent)], nil
}

// near returns the hits with the f.Neighbors turns before and after each
// in its thread (one more for the f.WideMatches best; score 0 unless they
// match too), best first. Neighbours are counted among the turns of the
// reader's view (its own and the shared ones): another user's turns are
// neither shown nor counted, so what a reader gets never depends on turns
// it cannot read. Each window is a range of positions that holds that many
// turns of the view, computed from the positions of the others' turns
// (none, in the common case); one prepared statement reads every window
// on the position index and groups the rows by message before any is read.
func (b *backend) near(ctx context.Context, tenant string, f engine.MessageCandidateFilter, hits []hit, view *threadViews,
	scope func(alias string) string, args []any) ([]tenure.ScoredMessage, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	windows := make([][3]any, len(hits))
	score := make(map[int64]float64, len(hits))
	for i, h := range hits {
		hidden, err := view.of(ctx, h.thread)
		if err != nil {
			return nil, err
		}
		n := int64(f.Neighbors)
		if i < f.WideMatches {
			n++
		}
		windows[i] = [3]any{h.thread, step(h.pos, -n, hidden), step(h.pos, n, hidden)}
		score[h.seq] = h.score
	}
	list, err := json.Marshal(windows)
	if err != nil {
		return nil, err
	}
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `WITH w AS (SELECT value ->> 0 AS thread_id, value ->> 1 AS lo, value ->> 2 AS hi FROM json_each(?)),
		near AS (SELECT DISTINCT n.seq FROM w CROSS JOIN message_threads t ON t.tenant_id = ? AND t.thread_id = w.thread_id
			CROSS JOIN messages n ON n.tkey = t.tkey AND n.pos BETWEEN w.lo AND w.hi)
		SELECT `+messageCols+` FROM near CROSS JOIN messages m ON m.seq = near.seq WHERE `+scope("m"), append([]any{string(list), tenant}, args...)...)
	if err != nil {
		return nil, err
	}
	out, err := scanMessages(rows, tenant, false)
	for i := range out {
		out[i].Score = score[out[i].Seq]
	}
	slices.SortFunc(out, func(a, b tenure.ScoredMessage) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Seq, b.Seq))
	})
	return out, err
}

// step returns the position n turns of the view away from pos (before it
// when n is negative), skipping the hidden positions (sorted).
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
// cannot read: other users' (everything but its own and the shared ones)
// and other personas' (everything but its persona's and the global ones).
type threadViews struct {
	db      querier
	tenant  string
	user    string
	persona string
	hidden  map[string][]int64
}

// of returns the sorted positions of the thread's turns outside the view.
// It costs two probes of the (tenant, thread, user, id) index, empty in
// the common case: the users before this one and those after, and two of
// the (partial) persona index, empty unless personas are used.
func (v *threadViews) of(ctx context.Context, thread string) ([]int64, error) {
	if h, ok := v.hidden[thread]; ok {
		return h, nil
	}
	rows, err := v.db.QueryContext(ctx, `WITH t AS (SELECT tkey FROM message_threads WHERE tenant_id = ? AND thread_id = ?)
		SELECT pos FROM t CROSS JOIN messages m ON m.tkey = t.tkey AND m.user_id > '' AND m.user_id < ?
		UNION ALL SELECT pos FROM t CROSS JOIN messages m ON m.tkey = t.tkey AND m.user_id > ?
		UNION ALL SELECT pos FROM t CROSS JOIN messages m ON m.tkey = t.tkey AND m.persona_id <> '' AND m.persona_id < ?
		UNION ALL SELECT pos FROM t CROSS JOIN messages m ON m.tkey = t.tkey AND m.persona_id <> '' AND m.persona_id > ?`,
		v.tenant, thread, v.user, v.user, v.persona, v.persona)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	hidden := []int64{}
	for rows.Next() {
		var pos int64
		if err := rows.Scan(&pos); err != nil {
			return nil, err
		}
		hidden = append(hidden, pos)
	}
	slices.Sort(hidden)
	hidden = slices.Compact(hidden) // another user's turn may be another persona's too
	v.hidden[thread] = hidden
	return hidden, rows.Err()
}

// candidateScope is the condition on a messages table aliased alias that
// keeps a principal's candidates: the tenant, the user's and the project's
// (or shared) messages, with before those created before a time, and with
// threads those of the threads listed (a JSON array). Its arguments are
// tenant, user, persona, project, the time and the threads.
func candidateScope(alias string, before, threads bool) string {
	a := alias
	s := a + `.tkey IN (SELECT tkey FROM message_threads WHERE tenant_id = ?) AND (` + a + `.user_id = '' OR ` + a + `.user_id = ?) AND (` +
		a + `.persona_id = '' OR ` + a + `.persona_id = ?) AND (` + a + `.project_id = '' OR ` + a + `.project_id = ?)`
	if before {
		s += ` AND ` + alias + `.created_at < ?`
	}
	if threads {
		s += ` AND ` + alias + `.thread_id IN (SELECT value FROM json_each(?))`
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
