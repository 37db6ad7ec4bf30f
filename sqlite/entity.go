package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/entity"
)

// The entity registry (migration 0011): engine.EntityReader on the read
// pool, engine.EntityWriter in write transactions.

var (
	_ engine.EntityReader       = (*backend)(nil)
	_ engine.EntityWriter       = (*writeTx)(nil)
	_ engine.EntityMemoryReader = (*backend)(nil)
)

func scanEntities(rows *sql.Rows, err error) ([]entity.Entity, error) {
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

func scanOps(rows *sql.Rows, err error) ([]entity.Op, error) {
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
	entityVersionsQuery = `SELECT body FROM entities WHERE tenant_id = ? AND registry = ? AND entity_id = ? ORDER BY version`
	entityOpsQuery      = `SELECT body FROM entity_ops WHERE tenant_id = ? AND registry = ? AND (from_id = ? OR into_id = ?) ORDER BY at, id`
)

func (b *backend) EntityList(ctx context.Context, tenant string, f engine.EntityFilter) ([]entity.Entity, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	if len(f.Registries) == 0 {
		return nil, nil
	}
	q := `SELECT body FROM entities WHERE tenant_id = ? AND tx_end IS NULL AND registry IN (?` + strings.Repeat(`, ?`, len(f.Registries)-1) + `)`
	args := []any{tenant}
	for _, r := range f.Registries {
		args = append(args, r)
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, f.Status)
	}
	if f.Type != "" {
		q += ` AND type = ?`
		args = append(args, f.Type)
	}
	if len(f.Slugs) > 0 {
		q += ` AND entity_id IN (SELECT n.entity_id FROM entity_names n WHERE n.tenant_id = entities.tenant_id AND n.registry = entities.registry
			AND n.slug IN (?` + strings.Repeat(`, ?`, len(f.Slugs)-1) + `))`
		for _, sl := range f.Slugs {
			args = append(args, sl)
		}
	}
	q += ` ORDER BY registry DESC, entity_id`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	return scanEntities(db.QueryContext(ctx, q, args...))
}

func (b *backend) EntityVersions(ctx context.Context, tenant, registry, id string) ([]entity.Entity, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	return scanEntities(db.QueryContext(ctx, entityVersionsQuery, tenant, registry, id))
}

func (b *backend) EntityOps(ctx context.Context, tenant, registry, id string) ([]entity.Op, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	return scanOps(db.QueryContext(ctx, entityOpsQuery, tenant, registry, id, id))
}

func (t *writeTx) Registry(ctx context.Context, tenant, registry string) ([]entity.Entity, error) {
	return scanEntities(t.db.QueryContext(ctx, `SELECT body FROM entities WHERE tenant_id = ? AND registry = ? AND tx_end IS NULL ORDER BY entity_id`,
		tenant, registry))
}

func (t *writeTx) EntityVersions(ctx context.Context, tenant, registry, id string) ([]entity.Entity, error) {
	return scanEntities(t.db.QueryContext(ctx, entityVersionsQuery, tenant, registry, id))
}

func (t *writeTx) InsertEntity(ctx context.Context, e *entity.Entity) error {
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `INSERT INTO entities (tenant_id, registry, entity_id, version, type, status, tx_start, tx_end, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)`, e.TenantID, e.UserID, e.ID, e.Version, e.Type, e.Status, nanos(e.TxStart), string(body))
	if err != nil {
		return fmt.Errorf("insert entity %s v%d: %w", e.ID, e.Version, err)
	}
	// The open version's names (entity_names); the closed one's went
	// with CloseEntity.
	for _, a := range e.Aliases {
		if _, err := t.db.ExecContext(ctx, `INSERT OR IGNORE INTO entity_names (tenant_id, registry, slug, entity_id) VALUES (?, ?, ?, ?)`,
			e.TenantID, e.UserID, entity.KeySlug(a), e.ID); err != nil {
			return err
		}
	}
	return nil
}

func (t *writeTx) CloseEntity(ctx context.Context, tenant, registry, id string, version int, at time.Time) error {
	var body string
	err := t.db.QueryRowContext(ctx, `SELECT body FROM entities WHERE tenant_id = ? AND registry = ? AND entity_id = ? AND version = ? AND tx_end IS NULL`,
		tenant, registry, id, version).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
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
	if _, err = t.db.ExecContext(ctx, `UPDATE entities SET tx_end = ?, body = ? WHERE tenant_id = ? AND registry = ? AND entity_id = ? AND version = ?`,
		nanos(at), string(b), tenant, registry, id, version); err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `DELETE FROM entity_names WHERE tenant_id = ? AND registry = ? AND entity_id = ?`, tenant, registry, id)
	return err
}

func (t *writeTx) InsertEntityOp(ctx context.Context, op *entity.Op) error {
	body, err := entity.EncodeOp(op)
	if err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `INSERT INTO entity_ops (id, tenant_id, registry, from_id, into_id, at, body) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		op.ID, op.TenantID, op.UserID, op.From, op.Into, nanos(op.At), string(body))
	return err
}

func (t *writeTx) SetEntityOp(ctx context.Context, op *entity.Op) error {
	body, err := entity.EncodeOp(op)
	if err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `UPDATE entity_ops SET undone_at = ?, body = ? WHERE tenant_id = ? AND id = ?`,
		nullNanos(op.UndoneAt), string(body), op.TenantID, op.ID)
	return err
}

func (t *writeTx) EntityOp(ctx context.Context, tenant, id string) (entity.Op, bool, error) {
	ops, err := scanOps(t.db.QueryContext(ctx, `SELECT body FROM entity_ops WHERE tenant_id = ? AND id = ?`, tenant, id))
	if err != nil || len(ops) == 0 {
		return entity.Op{}, false, err
	}
	return ops[0], true, nil
}

func (t *writeTx) LatestByAttribute(ctx context.Context, tenant, attribute string, mentions []string) ([]tenure.Object, error) {
	if len(mentions) == 0 {
		return nil, nil
	}
	args := []any{tenant, attribute}
	for _, m := range mentions {
		args = append(args, m)
	}
	return queryObjects(ctx, t.db, `SELECT o.seq, o.body, o.tx_end FROM object_attributes a
		CROSS JOIN objects o ON o.tenant_id = a.tenant_id AND o.object_id = a.object_id AND o.tx_end IS NULL
		WHERE a.tenant_id = ? AND a.attribute = ? AND a.mention IN (?`+strings.Repeat(`, ?`, len(mentions)-1)+`) ORDER BY o.seq`, args...)
}

func (t *writeTx) LatestByMentions(ctx context.Context, tenant string, mentions []string) ([]tenure.Object, error) {
	if len(mentions) == 0 {
		return nil, nil
	}
	args := []any{tenant}
	for _, m := range mentions {
		args = append(args, m)
	}
	return queryObjects(ctx, t.db, `SELECT o.seq, o.body, o.tx_end FROM objects o WHERE o.tenant_id = ? AND o.tx_end IS NULL AND o.object_id IN
		(SELECT a.object_id FROM object_attributes a WHERE a.tenant_id = o.tenant_id AND a.mention IN (?`+strings.Repeat(`, ?`, len(mentions)-1)+`))
		ORDER BY o.seq`, args...)
}

// indexEntities records the attribute of an open version (see
// object_attributes) and, for a memory, its entity refs (see
// memory_entities).
func (t *writeTx) indexEntities(ctx context.Context, o *tenure.Object) error {
	if o.Memory != nil {
		for _, ref := range o.Memory.EntityRefs {
			if _, err := t.db.ExecContext(ctx, `INSERT OR IGNORE INTO memory_entities (tenant_id, entity_ref, object_id) VALUES (?, ?, ?)`,
				o.TenantID, ref, o.ObjectID); err != nil {
				return err
			}
		}
	}
	key, ok := entity.ObjectMention(o)
	if !ok {
		return nil
	}
	_, err := t.db.ExecContext(ctx, `INSERT OR IGNORE INTO object_attributes (tenant_id, attribute, mention, object_id) VALUES (?, ?, ?, ?)`,
		o.TenantID, o.Attribute, key, o.ObjectID)
	return err
}

// unindexEntities forgets what indexEntities recorded of an object whose
// open version closed.
func (t *writeTx) unindexEntities(ctx context.Context, tenant, id string) error {
	for _, q := range []string{`DELETE FROM object_attributes WHERE tenant_id = ? AND object_id = ?`,
		`DELETE FROM memory_entities WHERE tenant_id = ? AND object_id = ?`} {
		if _, err := t.db.ExecContext(ctx, q, tenant, id); err != nil {
			return err
		}
	}
	return nil
}

// EntityMemories implements engine.EntityMemoryReader.
func (b *backend) EntityMemories(ctx context.Context, tenant, ref string, f engine.CandidateFilter, n int) ([]tenure.Object, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	scope, sargs := scopeFilter(f)
	objs, err := queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM memory_entities m
		CROSS JOIN objects o ON o.tenant_id = m.tenant_id AND o.object_id = m.object_id AND o.tx_end IS NULL
		WHERE m.tenant_id = ? AND m.entity_ref = ? AND o.status = 'active' AND `+scope+` ORDER BY o.memory_rank DESC, o.seq DESC LIMIT ?`,
		append(append([]any{tenant, ref}, sargs...), n)...)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(objs, func(o tenure.Object) bool { return f.Keep != nil && !f.Keep(&o) }), nil
}
