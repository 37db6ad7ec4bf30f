package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/semantic"
)

// Message vectors (as in the SQLite store): embeddings holds one unit
// vector per model and hash of the text sent, as bytea; message_vectors
// links a message to its vector of a model, or records that the endpoint
// refused its text. Finding the messages nearest a query reads every
// vector within the reader's scope and compares it in Go: exact, linear
// in the messages in scope, and no pgvector needed.

// backlogWhere is the condition on messages m of a backlog.
func backlogWhere(b semantic.Backlog) (string, []any) {
	where := `NOT EXISTS (SELECT 1 FROM message_vectors v WHERE v.seq = m.seq AND v.model = ?)`
	args := []any{b.Model}
	if b.Tenant != "" {
		where += ` AND m.tenant_id = ?`
		args = append(args, b.Tenant)
		if b.Thread != "" {
			where += ` AND m.thread_id = ?`
			args = append(args, b.Thread)
		}
	}
	if b.Reader != nil {
		where += ` AND (m.user_id = '' OR m.user_id = ?) AND (m.persona_id = '' OR m.persona_id = ?)`
		args = append(args, *b.Reader, b.ReaderPersona)
	}
	return where, args
}

// backlogTenant is the tenant a backlog reads as: its own, or every one.
func backlogTenant(b semantic.Backlog) string {
	if b.Tenant == "" {
		return system
	}
	return b.Tenant
}

func (b *backend) CountUnembedded(ctx context.Context, bl semantic.Backlog) (n int, err error) {
	where, args := backlogWhere(bl)
	err = b.read(ctx, backlogTenant(bl), func(c querier) error {
		return c.QueryRow(ctx, rebind(`SELECT count(*) FROM messages m WHERE `+where), args...).Scan(&n)
	})
	return n, err
}

func (b *backend) Unembedded(ctx context.Context, bl semantic.Backlog) (out []semantic.Pending, err error) {
	where, args := backlogWhere(bl)
	err = b.read(ctx, backlogTenant(bl), func(c querier) error {
		rows, err := c.Query(ctx, rebind(`SELECT m.seq, m.tenant_id, m.thread_id, m.id, m.user_id, m.project_id, m.role, m.speaker,
			m.content, m.attachments FROM messages m WHERE m.seq > ? AND `+where+` ORDER BY m.seq LIMIT ?`),
			append(append([]any{bl.After}, args...), bl.Limit)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p semantic.Pending
			m := &p.Message
			var attach *string
			if err := rows.Scan(&p.Seq, &m.TenantID, &m.ThreadID, &m.ID, &m.UserID, &m.ProjectID, &m.Role, &m.Speaker,
				&m.Content, &attach); err != nil {
				return err
			}
			if attach != nil {
				if err := json.Unmarshal([]byte(*attach), &m.Attachments); err != nil {
					return err
				}
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	return out, err
}

func (b *backend) KnownVectors(ctx context.Context, model string, hashes []semantic.Hash) (map[semantic.Hash]bool, error) {
	known := map[semantic.Hash]bool{}
	raw := make([][]byte, len(hashes))
	for i := range hashes {
		raw[i] = hashes[i][:]
	}
	err := b.read(ctx, system, func(c querier) error {
		rows, err := c.Query(ctx, `SELECT hash FROM embeddings WHERE model = $1 AND hash = ANY($2::bytea[])`, model, raw)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r []byte
			if err := rows.Scan(&r); err != nil {
				return err
			}
			var h semantic.Hash
			copy(h[:], r)
			known[h] = true
		}
		return rows.Err()
	})
	return known, err
}

func (b *backend) PutVectors(ctx context.Context, model string, vecs []semantic.Vector, links []semantic.Link) error {
	if b.pool == nil {
		return errClosed
	}
	c, err := b.begin(ctx, "BEGIN; "+setTenant(system))
	if err != nil {
		return err
	}
	defer c.Release()
	err = func() error {
		for _, v := range vecs {
			if _, err := c.Exec(ctx, `INSERT INTO embeddings (model, hash, dims, vector) VALUES ($1, $2, $3, $4) ON CONFLICT (model, hash) DO NOTHING`,
				model, v.Hash[:], len(v.Values), semantic.Encode(v.Values)); err != nil {
				return err
			}
		}
		for _, l := range links {
			var err error
			if l.Refused {
				_, err = c.Exec(ctx, `INSERT INTO message_vectors (tenant_id, seq, model, embedding) SELECT tenant_id, seq, $2, NULL
					FROM messages WHERE seq = $1 ON CONFLICT (seq, model) DO NOTHING`, l.Seq, model)
			} else {
				// A link whose vector is missing writes nothing: the
				// message stays pending.
				_, err = c.Exec(ctx, `INSERT INTO message_vectors (tenant_id, seq, model, embedding)
					SELECT m.tenant_id, m.seq, $2, e.id FROM messages m, embeddings e WHERE m.seq = $1 AND e.model = $2 AND e.hash = $3
					ON CONFLICT (seq, model) DO NOTHING`, l.Seq, model, l.Hash[:])
			}
			if err != nil {
				return err
			}
		}
		_, err := c.Exec(ctx, "COMMIT")
		return err
	}()
	if err != nil {
		c.Exec(context.Background(), "ROLLBACK")
		return (*Store)(b).fail(err)
	}
	return nil
}

func (b *backend) NearestMessages(ctx context.Context, tenant string, f engine.NearestFilter) (out []tenure.ScoredMessage, sims map[int64]float64, err error) {
	var before *int64
	if f.Before != nil {
		n := f.Before.UnixNano()
		before = &n
	}
	args := scopeArgs(tenant, f.UserID, f.PersonaID, f.ProjectID, beforeTime{before}, f.Threads)
	scope := func(alias string) string { return candidateScope(alias, f.Before != nil, f.Threads != nil) }
	err = b.read(ctx, tenant, func(c querier) error {
		rows, err := c.Query(ctx, rebind(`SELECT m.seq, m.thread_id, m.pos, v.embedding FROM messages m
			JOIN message_vectors v ON v.seq = m.seq AND v.model = ?
			WHERE v.embedding IS NOT NULL AND `+scope("m")), append([]any{f.Model}, args...)...)
		if err != nil {
			return err
		}
		var all []hit
		var embs []int64
		for rows.Next() {
			var h hit
			var emb int64
			if err := rows.Scan(&h.seq, &h.thread, &h.pos, &emb); err != nil {
				rows.Close()
				return err
			}
			all, embs = append(all, h), append(embs, emb)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		sims = make(map[int64]float64, len(all))
		kept := all[:0]
		const chunk = 2000
		for start := 0; start < len(all); start += chunk {
			end := min(start+chunk, len(all))
			vecs, err := b.vectorsOf(ctx, c, embs[start:end])
			if err != nil {
				return err
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
		nearest := make(map[int64]int, len(all))
		for i, h := range all {
			nearest[h.seq] = i + 1
		}
		view := &threadViews{c: c, tenant: tenant, user: f.UserID, persona: f.PersonaID, hidden: map[string][]int64{}}
		if out, err = near(ctx, c, tenant, f.Neighbors, f.WideMatches, all, view, scope, args); err != nil {
			return err
		}
		for i := range out {
			m := &out[i]
			m.Score = 0
			m.Similarity, m.Embedded = sims[m.Seq]
			m.Near = nearest[m.Seq]
			hidden, err := view.of(ctx, m.ThreadID)
			if err != nil {
				return err
			}
			n, _ := slices.BinarySearch(hidden, m.Pos)
			m.Pos -= int64(n)
		}
		return nil
	})
	return out, sims, err
}

// vectorsOf returns the vectors of embedding ids, from the cache or the
// database.
func (b *backend) vectorsOf(ctx context.Context, c querier, ids []int64) (map[int64][]float32, error) {
	out := make(map[int64][]float32, len(ids))
	var missing []int64
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
	rows, err := c.Query(ctx, `SELECT id, vector FROM embeddings WHERE id = ANY($1)`, missing)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var raw []byte
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

// vectorCache keeps decoded vectors by embedding id.
type vectorCache struct{ c *lru.Cache[int64, []float32] }

func newVectorCache(size int) vectorCache {
	if size == 0 {
		size = 1 << 14
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
