package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

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
// arguments: no vector or refusal of the model, of the tenant and thread
// when they are set.
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
	for _, v := range vecs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO embeddings (model, hash, dims, vector) VALUES (?, ?, ?, ?)
			ON CONFLICT (model, hash) DO NOTHING`, model, v.Hash[:], len(v.Values), semantic.Encode(v.Values)); err != nil {
			return err
		}
	}
	for _, l := range links {
		// A link whose vector is missing writes nothing: the message stays
		// pending rather than be taken for refused.
		q := `INSERT INTO message_vectors (seq, model, embedding) SELECT ?, ?, id FROM embeddings WHERE model = ? AND hash = ?
			ON CONFLICT (seq, model) DO NOTHING`
		args := []any{l.Seq, model, model, l.Hash[:]}
		if l.Refused {
			q, args = `INSERT INTO message_vectors (seq, model, embedding) VALUES (?, ?, NULL) ON CONFLICT (seq, model) DO NOTHING`, args[:2]
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
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
	args := []any{tenant, f.UserID, f.ProjectID}
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
	rows, err := db.QueryContext(ctx, `SELECT m.seq, m.thread_id, m.pos, e.vector FROM messages m
		CROSS JOIN message_vectors v ON v.seq = m.seq AND v.model = ?
		CROSS JOIN embeddings e ON e.id = v.embedding
		WHERE `+scope("m"), append([]any{f.Model}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	sims := map[int64]float64{}
	var all []hit
	var vec []float32
	for rows.Next() {
		var h hit
		var raw []byte
		if err := rows.Scan(&h.seq, &h.thread, &h.pos, &raw); err != nil {
			rows.Close()
			return nil, nil, err
		}
		var ok bool
		if vec, ok = semantic.Decode(vec, raw); !ok || len(vec) != len(f.Vector) {
			continue
		}
		h.score = semantic.Dot(f.Vector, vec)
		sims[h.seq] = h.score
		all = append(all, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(all, func(a, b hit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq)) })
	all = all[:min(len(all), f.Limit)]
	near := make(map[int64]int, len(all))
	for i, h := range all {
		near[h.seq] = i + 1
	}
	view := &threadViews{db: db, tenant: tenant, user: f.UserID, hidden: map[string][]int64{}}
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
