package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// backend adapts a Store to engine.Backend.
type backend Store

var (
	_ engine.Backend   = (*backend)(nil)
	_ engine.SeqLister = (*backend)(nil)
)

const objectCols = `seq, body, tx_end`

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func nullNanos(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixNano()
}

// scanObjects decodes rows of objectCols.
func scanObjects(rows pgx.Rows) ([]tenure.Object, int64, error) {
	defer rows.Close()
	var out []tenure.Object
	var last int64
	for rows.Next() {
		var (
			seq   int64
			body  string
			txEnd *int64
		)
		if err := rows.Scan(&seq, &body, &txEnd); err != nil {
			return nil, 0, err
		}
		var o tenure.Object
		if err := json.Unmarshal([]byte(body), &o); err != nil {
			return nil, 0, fmt.Errorf("decode object row %d: %w", seq, err)
		}
		o.TxEnd = nil
		if txEnd != nil {
			t := fromNanos(*txEnd)
			o.TxEnd = &t
		}
		out = append(out, o)
		last = seq
	}
	return out, last, rows.Err()
}

func queryObjects(ctx context.Context, q querier, query string, args ...any) ([]tenure.Object, error) {
	rows, err := q.Query(ctx, rebind(query), args...)
	if err != nil {
		return nil, err
	}
	objs, _, err := scanObjects(rows)
	return objs, err
}

// txFilter selects versions open (at nil) or covering at.
func txFilter(at *time.Time) (string, []any) {
	if at == nil {
		return `tx_end IS NULL`, nil
	}
	n := at.UnixNano()
	return `tx_start <= ? AND (tx_end IS NULL OR tx_end > ?)`, []any{n, n}
}

func (b *backend) KeyVersions(ctx context.Context, tenant, key string, q engine.VersionQuery) (objs []tenure.Object, err error) {
	f, args := txFilter(q.TxAt)
	where := `tenant_id = ? AND key = ? AND ` + f
	args = append([]any{tenant, key}, args...)
	if q.Holding {
		where += ` AND status IN ('active', 'superseded')`
	}
	query := `SELECT ` + objectCols + ` FROM objects WHERE ` + where
	if q.ValidAt != nil {
		n := q.ValidAt.UnixNano()
		query += ` AND valid_from <= ? AND (valid_until IS NULL OR valid_until > ?)`
		args = append(args, n, n)
	}
	err = b.read(ctx, tenant, func(c querier) error {
		objs, err = queryObjects(ctx, c, query+` ORDER BY tx_start, seq`, args...)
		return err
	})
	return objs, err
}

func (b *backend) ObjectVersions(ctx context.Context, tenant, id string, at *time.Time) (objs []tenure.Object, err error) {
	f, args := txFilter(at)
	err = b.read(ctx, tenant, func(c querier) error {
		objs, err = queryObjects(ctx, c, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND object_id = ? AND `+f+` ORDER BY version`,
			append([]any{tenant, id}, args...)...)
		return err
	})
	return objs, err
}

// tombstoneAudience is what tombstones.audience holds.
type tombstoneAudience struct {
	UserID          string                 `json:"user_id,omitempty"`
	PersonaID       string                 `json:"persona_id,omitempty"`
	Classification  tenure.Classification  `json:"security_classification"`
	PermissionScope tenure.PermissionScope `json:"permission_scope"`
}

func (b *backend) History(ctx context.Context, tenant, key string) (objs []tenure.Object, tombs []tenure.Tombstone, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		if objs, err = queryObjects(ctx, c, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND key = ? ORDER BY tx_start, seq`, tenant, key); err != nil {
			return err
		}
		rows, err := c.Query(ctx, `SELECT object_id, key, versions, deleted_at, deleted_by, reason, audience
			FROM tombstones WHERE tenant_id = $1 AND key = $2 ORDER BY deleted_at`, tenant, key)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				t        tenure.Tombstone
				at       int64
				audience *string
			)
			if err := rows.Scan(&t.ObjectID, &t.Key, &t.Versions, &at, &t.DeletedBy, &t.Reason, &audience); err != nil {
				return err
			}
			t.DeletedAt = fromNanos(at)
			if audience != nil {
				var a tombstoneAudience
				if err := json.Unmarshal([]byte(*audience), &a); err != nil {
					return fmt.Errorf("decode tombstone %s audience: %w", t.ObjectID, err)
				}
				t.Audience = &tenure.Object{TenantID: tenant, UserID: a.UserID, PersonaID: a.PersonaID, SecurityClassification: a.Classification,
					PermissionScope: a.PermissionScope}
			}
			tombs = append(tombs, t)
		}
		return rows.Err()
	})
	return objs, tombs, err
}

func (b *backend) List(ctx context.Context, tenant string, q engine.ListQuery, cursor int64, n int) ([]tenure.Object, int64, error) {
	objs, seqs, err := b.ListSeqs(ctx, tenant, q, cursor, n)
	if err != nil || len(objs) < n {
		return objs, 0, err
	}
	return objs, seqs[len(seqs)-1], nil
}

// ListSeqs is List with each object's cursor (its seq) (see
// engine.SeqLister).
func (b *backend) ListSeqs(ctx context.Context, tenant string, q engine.ListQuery, cursor int64, n int) (objs []tenure.Object, seqs []int64, err error) {
	where := []string{"tenant_id = ?", "tx_end IS NULL", "seq > ?"}
	args := []any{tenant, cursor}
	order := "seq"
	if q.Desc {
		where[2], order = "seq < ?", "seq DESC"
		if cursor == 0 {
			args[1] = int64(math.MaxInt64)
		}
	}
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if q.Layer != "" {
		add("layer = ?", string(q.Layer))
	}
	if q.ScopeKind != "" {
		add("scope = ?", string(q.ScopeKind))
	}
	if q.Status != "" {
		add("status = ?", string(q.Status))
	}
	if q.ObjectType != "" {
		add("object_type = ?", string(q.ObjectType))
	}
	if q.SessionID != "" {
		add("session_id = ?", q.SessionID)
	}
	if q.KeyPrefix != "" {
		add("starts_with(key, ?)", q.KeyPrefix)
	}
	if q.Author != "" {
		add("(body::jsonb ->> 'written_by') = ?", q.Author)
	}
	if q.ValidAt != nil {
		add("valid_from <= ?", q.ValidAt.UnixNano())
		add("(valid_until IS NULL OR valid_until > ?)", q.ValidAt.UnixNano())
	}
	if q.TxFrom != nil {
		add("tx_start >= ?", q.TxFrom.UnixNano())
	}
	if q.TxUntil != nil {
		add("tx_start < ?", q.TxUntil.UnixNano())
	}
	if q.RetireDue {
		add("status = 'active' AND (has_decay OR (valid_until IS NOT NULL AND valid_until <= ?))", q.RetireDueAt.UnixNano())
	}
	err = b.read(ctx, tenant, func(c querier) error {
		rows, err := c.Query(ctx, rebind(`SELECT `+objectCols+` FROM objects WHERE `+strings.Join(where, " AND ")+` ORDER BY `+order+` LIMIT ?`),
			append(args, n)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				seq   int64
				body  string
				txEnd *int64
			)
			if err := rows.Scan(&seq, &body, &txEnd); err != nil {
				return err
			}
			var o tenure.Object
			if err := json.Unmarshal([]byte(body), &o); err != nil {
				return fmt.Errorf("decode object row %d: %w", seq, err)
			}
			o.TxEnd = nil
			if txEnd != nil {
				t := fromNanos(*txEnd)
				o.TxEnd = &t
			}
			objs, seqs = append(objs, o), append(seqs, seq)
		}
		return rows.Err()
	})
	return objs, seqs, err
}

func (b *backend) Dependents(ctx context.Context, tenant, ref string) (objs []tenure.Object, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		objs, err = queryObjects(ctx, c, `SELECT o.seq, o.body, o.tx_end FROM object_deps d
			JOIN objects o ON o.tenant_id = d.tenant_id AND o.object_id = d.object_id AND o.tx_end IS NULL
			WHERE d.tenant_id = ? AND d.ref = ? ORDER BY o.seq LIMIT 1000`, tenant, ref)
		return err
	})
	return objs, err
}

func (b *backend) Resolutions(ctx context.Context, tenant string, open bool) (out []tenure.Resolution, err error) {
	q := `SELECT id, tenant_id, kind, key, slot, object_ids::text, reason, created_at, resolved_at, resolved_by
		FROM resolutions WHERE tenant_id = $1`
	if open {
		q += ` AND resolved_at IS NULL`
	}
	err = b.read(ctx, tenant, func(c querier) error {
		rows, err := c.Query(ctx, q+` ORDER BY created_at, id`, tenant)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				r          tenure.Resolution
				kind, ids  string
				created    int64
				resolvedAt *int64
			)
			if err := rows.Scan(&r.ID, &r.TenantID, &kind, &r.Key, &r.Slot, &ids, &r.Reason, &created, &resolvedAt, &r.ResolvedBy); err != nil {
				return err
			}
			r.Kind = tenure.ResolutionKind(kind)
			if err := json.Unmarshal([]byte(ids), &r.ObjectIDs); err != nil {
				return fmt.Errorf("decode resolution %s: %w", r.ID, err)
			}
			r.CreatedAt = fromNanos(created)
			if resolvedAt != nil {
				t := fromNanos(*resolvedAt)
				r.ResolvedAt = &t
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}
