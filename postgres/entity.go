package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/entity"
)

// The entity registry (migration 0004): engine.EntityReader outside
// transactions, engine.EntityWriter in write transactions.

var (
	_ engine.EntityReader       = (*backend)(nil)
	_ engine.EntityWriter       = (*writeTx)(nil)
	_ engine.EntityMemoryReader = (*backend)(nil)
)

func scanEntities(rows pgx.Rows, err error) ([]entity.Entity, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entity.Entity
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var e entity.Entity
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			return nil, fmt.Errorf("decode entity: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanOps(rows pgx.Rows, err error) ([]entity.Op, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entity.Op
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		op, err := entity.DecodeOp([]byte(body))
		if err != nil {
			return nil, fmt.Errorf("decode entity operation: %w", err)
		}
		out = append(out, op)
	}
	return out, rows.Err()
}

const (
	entityVersionsQuery = `SELECT body FROM entities WHERE tenant_id = $1 AND registry = $2 AND entity_id = $3 ORDER BY version`
	entityOpsQuery      = `SELECT body FROM entity_ops WHERE tenant_id = $1 AND registry = $2 AND (from_id = $3 OR into_id = $3) ORDER BY at, id`
)

func (b *backend) EntityList(ctx context.Context, tenant string, f engine.EntityFilter) (out []entity.Entity, err error) {
	if len(f.Registries) == 0 {
		return nil, nil
	}
	q := `SELECT body FROM entities WHERE tenant_id = $1 AND tx_end IS NULL AND registry = ANY($2)`
	args := []any{tenant, f.Registries}
	if f.Status != "" {
		args = append(args, string(f.Status))
		q += ` AND status = $` + strconv.Itoa(len(args))
	}
	if f.Type != "" {
		args = append(args, string(f.Type))
		q += ` AND type = $` + strconv.Itoa(len(args))
	}
	if len(f.Slugs) > 0 {
		args = append(args, f.Slugs)
		q += ` AND entity_id IN (SELECT n.entity_id FROM entity_names n WHERE n.tenant_id = entities.tenant_id AND n.registry = entities.registry
			AND n.slug = ANY($` + strconv.Itoa(len(args)) + `))`
	}
	// The byte order of SQLite's TEXT comparisons.
	q += ` ORDER BY registry COLLATE "C" DESC, entity_id COLLATE "C"`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = scanEntities(c.Query(ctx, q, args...))
		return err
	})
	return out, err
}

func (b *backend) EntityVersions(ctx context.Context, tenant, registry, id string) (out []entity.Entity, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = scanEntities(c.Query(ctx, entityVersionsQuery, tenant, registry, id))
		return err
	})
	return out, err
}

func (b *backend) EntityOps(ctx context.Context, tenant, registry, id string) (out []entity.Op, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = scanOps(c.Query(ctx, entityOpsQuery, tenant, registry, id))
		return err
	})
	return out, err
}

func (t *writeTx) Registry(ctx context.Context, tenant, registry string) ([]entity.Entity, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, err
	}
	return scanEntities(t.c.Query(ctx, `SELECT body FROM entities WHERE tenant_id = $1 AND registry = $2 AND tx_end IS NULL
		ORDER BY entity_id COLLATE "C"`, tenant, registry))
}

func (t *writeTx) EntityVersions(ctx context.Context, tenant, registry, id string) ([]entity.Entity, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, err
	}
	return scanEntities(t.c.Query(ctx, entityVersionsQuery, tenant, registry, id))
}

func (t *writeTx) InsertEntity(ctx context.Context, e *entity.Entity) error {
	if err := t.as(ctx, e.TenantID); err != nil {
		return err
	}
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := t.c.Exec(ctx, `INSERT INTO entities (tenant_id, registry, entity_id, version, type, status, tx_start, tx_end, body)
		VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8)`, e.TenantID, e.UserID, e.ID, e.Version, string(e.Type), string(e.Status),
		nanos(e.TxStart), string(body)); err != nil {
		return fmt.Errorf("insert entity %s v%d: %w", e.ID, e.Version, err)
	}
	// The open version's names (entity_names); the closed one's went
	// with CloseEntity.
	for _, a := range e.Aliases {
		if _, err := t.c.Exec(ctx, `INSERT INTO entity_names (tenant_id, registry, slug, entity_id) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, e.TenantID, e.UserID, entity.KeySlug(a), e.ID); err != nil {
			return err
		}
	}
	return nil
}

func (t *writeTx) CloseEntity(ctx context.Context, tenant, registry, id string, version int, at time.Time) error {
	if err := t.as(ctx, tenant); err != nil {
		return err
	}
	var body string
	err := t.c.QueryRow(ctx, `SELECT body FROM entities WHERE tenant_id = $1 AND registry = $2 AND entity_id = $3 AND version = $4
		AND tx_end IS NULL`, tenant, registry, id, version).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("close entity %s v%d: no open version", id, version)
	}
	if err != nil {
		return err
	}
	var e entity.Entity
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return err
	}
	e.TxEnd = &at
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err = t.c.Exec(ctx, `UPDATE entities SET tx_end = $1, body = $2 WHERE tenant_id = $3 AND registry = $4 AND entity_id = $5 AND version = $6`,
		nanos(at), string(b), tenant, registry, id, version); err != nil {
		return err
	}
	_, err = t.c.Exec(ctx, `DELETE FROM entity_names WHERE tenant_id = $1 AND registry = $2 AND entity_id = $3`, tenant, registry, id)
	return err
}

func (t *writeTx) InsertEntityOp(ctx context.Context, op *entity.Op) error {
	if err := t.as(ctx, op.TenantID); err != nil {
		return err
	}
	body, err := entity.EncodeOp(op)
	if err != nil {
		return err
	}
	_, err = t.c.Exec(ctx, `INSERT INTO entity_ops (id, tenant_id, registry, from_id, into_id, at, body) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		op.ID, op.TenantID, op.UserID, op.From, op.Into, nanos(op.At), string(body))
	return err
}

func (t *writeTx) SetEntityOp(ctx context.Context, op *entity.Op) error {
	if err := t.as(ctx, op.TenantID); err != nil {
		return err
	}
	body, err := entity.EncodeOp(op)
	if err != nil {
		return err
	}
	_, err = t.c.Exec(ctx, `UPDATE entity_ops SET undone_at = $1, body = $2 WHERE tenant_id = $3 AND id = $4`,
		nullNanos(op.UndoneAt), string(body), op.TenantID, op.ID)
	return err
}

func (t *writeTx) EntityOp(ctx context.Context, tenant, id string) (entity.Op, bool, error) {
	if err := t.as(ctx, tenant); err != nil {
		return entity.Op{}, false, err
	}
	ops, err := scanOps(t.c.Query(ctx, `SELECT body FROM entity_ops WHERE tenant_id = $1 AND id = $2`, tenant, id))
	if err != nil || len(ops) == 0 {
		return entity.Op{}, false, err
	}
	return ops[0], true, nil
}

func (t *writeTx) LatestByAttribute(ctx context.Context, tenant, attribute string, mentions []string) ([]tenure.Object, error) {
	if len(mentions) == 0 {
		return nil, nil
	}
	return t.objects(ctx, tenant, `SELECT o.seq, o.body, o.tx_end FROM object_attributes a
		JOIN objects o ON o.tenant_id = a.tenant_id AND o.object_id = a.object_id AND o.tx_end IS NULL
		WHERE a.tenant_id = ? AND a.attribute = ? AND a.mention = ANY(?) ORDER BY o.seq`, tenant, attribute, mentions)
}

func (t *writeTx) LatestByMentions(ctx context.Context, tenant string, mentions []string) ([]tenure.Object, error) {
	if len(mentions) == 0 {
		return nil, nil
	}
	return t.objects(ctx, tenant, `SELECT o.seq, o.body, o.tx_end FROM objects o WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.object_id IN
		(SELECT a.object_id FROM object_attributes a WHERE a.tenant_id = ? AND a.mention = ANY(?))
		ORDER BY o.seq`, tenant, tenant, mentions)
}

// indexEntities records the attribute of an open version (see
// object_attributes) and, for a memory, its entity refs (see
// memory_entities).
func (t *writeTx) indexEntities(ctx context.Context, o *tenure.Object) error {
	if o.Memory != nil {
		for _, ref := range o.Memory.EntityRefs {
			if _, err := t.c.Exec(ctx, `INSERT INTO memory_entities (tenant_id, entity_ref, object_id) VALUES ($1, $2, $3)
				ON CONFLICT DO NOTHING`, o.TenantID, ref, o.ObjectID); err != nil {
				return err
			}
		}
	}
	key, ok := entity.ObjectMention(o)
	if !ok {
		return nil
	}
	_, err := t.c.Exec(ctx, `INSERT INTO object_attributes (tenant_id, attribute, mention, object_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, o.TenantID, o.Attribute, key, o.ObjectID)
	return err
}

// unindexEntities forgets what indexEntities recorded of an object whose
// open version closed.
func (t *writeTx) unindexEntities(ctx context.Context, tenant, id string) error {
	for _, q := range []string{`DELETE FROM object_attributes WHERE tenant_id = $1 AND object_id = $2`,
		`DELETE FROM memory_entities WHERE tenant_id = $1 AND object_id = $2`} {
		if _, err := t.c.Exec(ctx, q, tenant, id); err != nil {
			return err
		}
	}
	return nil
}

// EntityMemories implements engine.EntityMemoryReader.
func (b *backend) EntityMemories(ctx context.Context, tenant, ref string, f engine.CandidateFilter, n int) (out []tenure.Object, err error) {
	scope, sargs := scopeFilter(f)
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = queryObjects(ctx, c, `SELECT o.seq, o.body, o.tx_end FROM memory_entities m
			JOIN objects o ON o.tenant_id = m.tenant_id AND o.object_id = m.object_id AND o.tx_end IS NULL
			WHERE m.tenant_id = ? AND m.entity_ref = ? AND o.status = 'active' AND `+scope+` ORDER BY o.memory_rank DESC, o.seq DESC LIMIT ?`,
			append(append([]any{tenant, ref}, sargs...), n)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(o tenure.Object) bool { return f.Keep != nil && !f.Keep(&o) }), nil
}
