package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/semantic"
)

// Message vectors live in two tables (migration 0012): embeddings, one
// unit vector per model and hash of the text sent, and message_vectors,
// which links a message to its vector of a model (or records that the
// endpoint refused its text). Finding the messages nearest a query reads
// every vector within the reader's scope and compares it with the
// query's: exact, and linear in the messages in scope.

// backlogWhere is the condition on messages m of a backlog and its
// arguments: no vector or refusal of the model, of the tenant, thread and
// reader when they are set.
func backlogWhere(b semantic.Backlog) (string, []any) {
	where := `NOT EXISTS (SELECT 1 FROM message_vectors v WHERE v.seq = m.seq AND v.model = ?)`
	args := []any{b.Model}
	switch {
	case b.Tenant != "" && b.Thread != "":
		where += ` AND m.tkey = ` + threadKey
		args = append(args, b.Tenant, b.Thread)
	case b.Tenant != "":
		where += ` AND m.tkey IN (SELECT tkey FROM message_threads WHERE tenant_id = ?)`
		args = append(args, b.Tenant)
	}
	if b.Reader != nil {
		where += ` AND (m.user_id = '' OR m.user_id = ?) AND (m.persona_id = '' OR m.persona_id = ?)`
		args = append(args, *b.Reader, b.ReaderPersona)
	}
	return where, args
}

func (b *backend) CountUnembedded(ctx context.Context, bl semantic.Backlog) (int, error) {
	db, err := b.reader()
	if err != nil {
		return 0, err
	}
	where, args := backlogWhere(bl)
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM messages m WHERE `+where, args...).Scan(&n)
	return n, err
}

func (b *backend) Unembedded(ctx context.Context, bl semantic.Backlog) ([]semantic.Pending, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	where, args := backlogWhere(bl)
	rows, err := db.QueryContext(ctx, `SELECT m.seq, m.tenant_id, m.thread_id, m.id, m.user_id, m.project_id, m.role, m.speaker,
		m.content, m.attachments FROM messages m WHERE m.seq > ? AND `+where+` ORDER BY m.seq LIMIT ?`,
		append(append([]any{bl.After}, args...), bl.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []semantic.Pending
	for rows.Next() {
		var p semantic.Pending
		m := &p.Message
		var attach sql.NullString
		if err := rows.Scan(&p.Seq, &m.TenantID, &m.ThreadID, &m.ID, &m.UserID, &m.ProjectID, &m.Role, &m.Speaker,
			&m.Content, &attach); err != nil {
			return nil, err
		}
		if attach.Valid {
			if err := json.Unmarshal([]byte(attach.String), &m.Attachments); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (b *backend) KnownVectors(ctx context.Context, model string, hashes []semantic.Hash) (map[semantic.Hash]bool, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	known := map[semantic.Hash]bool{}
	const chunk = 500
	for start := 0; start < len(hashes); start += chunk {
		part := hashes[start:min(start+chunk, len(hashes))]
		args := []any{model}
		for _, h := range part {
			args = append(args, h[:])
		}
		rows, err := db.QueryContext(ctx, `SELECT hash FROM embeddings WHERE model = ? AND hash IN (?`+
			strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var raw []byte
			if err := rows.Scan(&raw); err != nil {
				rows.Close()
				return nil, err
			}
			var h semantic.Hash
			copy(h[:], raw)
			known[h] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return known, nil
}

func (b *backend) PutVectors(ctx context.Context, model string, vecs []semantic.Vector, links []semantic.Link) error {
	if b.w == nil {
		return errClosed
	}
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := make([]*sql.Stmt, 3)
	for i, q := range []string{
		`INSERT INTO embeddings (model, hash, dims, vector) VALUES (?, ?, ?, ?) ON CONFLICT (model, hash) DO NOTHING`,
		// A link whose vector is missing writes nothing: the message stays
		// pending rather than be taken for refused.
		`INSERT INTO message_vectors (seq, model, embedding) SELECT ?, ?, id FROM embeddings WHERE model = ? AND hash = ?
			ON CONFLICT (seq, model) DO NOTHING`,
		`INSERT INTO message_vectors (seq, model, embedding) VALUES (?, ?, NULL) ON CONFLICT (seq, model) DO NOTHING`,
	} {
		if stmts[i], err = tx.PrepareContext(ctx, q); err != nil {
			return err
		}
		defer stmts[i].Close()
	}
	for _, v := range vecs {
		if _, err := stmts[0].ExecContext(ctx, model, v.Hash[:], len(v.Values), semantic.Encode(v.Values)); err != nil {
			return err
		}
	}
	for _, l := range links {
		var err error
		if l.Refused {
			_, err = stmts[2].ExecContext(ctx, l.Seq, model)
		} else {
			_, err = stmts[1].ExecContext(ctx, l.Seq, model, model, l.Hash[:])
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (b *backend) NearestMessages(ctx context.Context, tenant string, f engine.NearestFilter) ([]tenure.ScoredMessage, map[int64]float64, error) {
	db, err := b.reader()
	if err != nil {
		return nil, nil, err
	}
	args := []any{tenant, f.UserID, f.PersonaID, f.ProjectID}
	if f.Before != nil {
		args = append(args, f.Before.UnixNano())
	}
	if f.Threads != nil {
		threads, err := json.Marshal(f.Threads)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, string(threads))
	}
	scope := func(alias string) string { return candidateScope(alias, f.Before != nil, f.Threads != nil) }
	// The messages in scope with a vector, then their vectors, from the
	// cache or a chunk at a time: a scope's vectors are never all held.
	rows, err := db.QueryContext(ctx, `SELECT m.seq, m.thread_id, m.pos, v.embedding FROM messages m
		CROSS JOIN message_vectors v ON v.seq = m.seq AND v.model = ?
		WHERE v.embedding IS NOT NULL AND `+scope("m"), append([]any{f.Model}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	var all []hit
	var embs []int64
	for rows.Next() {
		var h hit
		var emb int64
		if err := rows.Scan(&h.seq, &h.thread, &h.pos, &emb); err != nil {
			rows.Close()
			return nil, nil, err
		}
		all, embs = append(all, h), append(embs, emb)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	sims := make(map[int64]float64, len(all))
	kept := all[:0]
	const chunk = 500
	for start := 0; start < len(all); start += chunk {
		end := min(start+chunk, len(all))
		vecs, err := b.vectorsOf(ctx, db, embs[start:end])
		if err != nil {
			return nil, nil, err
		}
		for i := start; i < end; i++ {
			v := vecs[embs[i]]
			if len(v) != len(f.Vector) {
				continue
			}
			h := all[i]
			h.score = semantic.Dot(f.Vector, v)
			sims[h.seq] = h.score
			kept = append(kept, h)
		}
	}
	all = kept
	slices.SortFunc(all, func(a, b hit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq)) })
	all = all[:min(len(all), f.Limit)]
	near := make(map[int64]int, len(all))
	for i, h := range all {
		near[h.seq] = i + 1
	}
	view := &threadViews{db: db, tenant: tenant, user: f.UserID, persona: f.PersonaID, hidden: map[string][]int64{}}
	out, err := b.near(ctx, tenant, engine.MessageCandidateFilter{Neighbors: f.Neighbors, WideMatches: f.WideMatches}, all, view, scope, args)
	if err != nil {
		return nil, nil, err
	}
	for i := range out {
		m := &out[i]
		m.Score = 0
		m.Similarity, m.Embedded = sims[m.Seq]
		m.Near = near[m.Seq]
		hidden, err := view.of(ctx, m.ThreadID)
		if err != nil {
			return nil, nil, err
		}
		n, _ := slices.BinarySearch(hidden, m.Pos)
		m.Pos -= int64(n)
	}
	return out, sims, nil
}

// vectorsOf returns the vectors of embedding ids, from the store's cache
// or the database (adding them to the cache).
func (b *backend) vectorsOf(ctx context.Context, db querier, ids []int64) (map[int64][]float32, error) {
	out := make(map[int64][]float32, len(ids))
	var missing []any
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		if v, ok := b.vectors.Get(id); ok {
			out[id] = v
			continue
		}
		out[id] = nil
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT id, vector FROM embeddings WHERE id IN (?`+strings.Repeat(", ?", len(missing)-1)+`)`, missing...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var raw sql.RawBytes
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		if v, ok := semantic.Decode(nil, raw); ok {
			out[id] = v
			b.vectors.Add(id, v)
		}
	}
	return out, rows.Err()
}

// vectorCache keeps decoded vectors by embedding id: an embedding never
// changes once stored. The zero value caches nothing.
type vectorCache struct{ c *lru.Cache[int64, []float32] }

// defaultVectorCache is Options.VectorCache's default.
const defaultVectorCache = 1 << 14

func newVectorCache(size int) vectorCache {
	if size == 0 {
		size = defaultVectorCache
	}
	if size < 0 {
		return vectorCache{}
	}
	c, _ := lru.New[int64, []float32](size)
	return vectorCache{c}
}

func (v vectorCache) Get(id int64) ([]float32, bool) {
	if v.c == nil {
		return nil, false
	}
	return v.c.Get(id)
}

func (v vectorCache) Add(id int64, vec []float32) {
	if v.c != nil {
		v.c.Add(id, vec)
	}
}
