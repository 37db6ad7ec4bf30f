package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// backend adapts a Store to engine.Backend.
type backend Store

var _ engine.Backend = (*backend)(nil)

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

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
func scanObjects(rows *sql.Rows) ([]tenure.Object, int64, error) {
	out, seqs, err := scanObjectSeqs(rows)
	var last int64
	if len(seqs) > 0 {
		last = seqs[len(seqs)-1]
	}
	return out, last, err
}

// scanObjectSeqs decodes rows of objectCols with each row's seq.
func scanObjectSeqs(rows *sql.Rows) ([]tenure.Object, []int64, error) {
	defer rows.Close()
	var (
		out  []tenure.Object
		seqs []int64
	)
	for rows.Next() {
		var (
			seq   int64
			body  string
			txEnd sql.NullInt64
		)
		if err := rows.Scan(&seq, &body, &txEnd); err != nil {
			return nil, nil, err
		}
		var o tenure.Object
		if err := json.Unmarshal([]byte(body), &o); err != nil {
			return nil, nil, fmt.Errorf("decode object row %d: %w", seq, err)
		}
		o.TxEnd = nil
		if txEnd.Valid {
			t := fromNanos(txEnd.Int64)
			o.TxEnd = &t
		}
		out = append(out, o)
		seqs = append(seqs, seq)
	}
	return out, seqs, rows.Err()
}

func queryObjects(ctx context.Context, q querier, query string, args ...any) ([]tenure.Object, error) {
	rows, err := q.QueryContext(ctx, query, args...)
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

func (b *backend) reader() (reads, error) {
	if b.r == nil {
		return reads{}, errClosed
	}
	return b.readsOn(b.r, nil), nil
}

func (b *backend) KeyVersions(ctx context.Context, tenant, key string, q engine.VersionQuery) ([]tenure.Object, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	f, args := txFilter(q.TxAt)
	where := `tenant_id = ? AND key = ? AND ` + f
	args = append([]any{tenant, key}, args...)
	if q.Holding {
		where += ` AND status IN ('active', 'superseded')`
	}
	if q.ValidAt == nil {
		return queryObjects(ctx, db, `SELECT `+objectCols+` FROM objects WHERE `+where+` ORDER BY tx_start, seq`, args...)
	}
	// Two index range scans instead of an OR, so that a hot key's long
	// tail of closed valid-time windows is never read.
	n := q.ValidAt.UnixNano()
	return queryObjects(ctx, db, `SELECT `+objectCols+` FROM (
		SELECT seq, body, tx_end, tx_start FROM objects WHERE `+where+` AND valid_until IS NULL AND valid_from <= ?
		UNION ALL
		SELECT seq, body, tx_end, tx_start FROM objects WHERE `+where+` AND valid_until > ? AND valid_from <= ?
	) ORDER BY tx_start, seq`, append(append(append(args, n), args...), n, n)...)
}

func (b *backend) ObjectVersions(ctx context.Context, tenant, id string, at *time.Time) ([]tenure.Object, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	f, args := txFilter(at)
	return queryObjects(ctx, db, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND object_id = ? AND `+f+` ORDER BY version`,
		append([]any{tenant, id}, args...)...)
}

func (b *backend) History(ctx context.Context, tenant, key string) ([]tenure.Object, []tenure.Tombstone, error) {
	db, err := b.reader()
	if err != nil {
		return nil, nil, err
	}
	objs, err := queryObjects(ctx, db, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND key = ? ORDER BY tx_start, seq`, tenant, key)
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT object_id, key, versions, deleted_at, deleted_by, reason, audience
		FROM tombstones WHERE tenant_id = ? AND key = ? ORDER BY deleted_at`, tenant, key)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var tombs []tenure.Tombstone
	for rows.Next() {
		var (
			t        tenure.Tombstone
			at       int64
			audience sql.NullString
		)
		if err := rows.Scan(&t.ObjectID, &t.Key, &t.Versions, &at, &t.DeletedBy, &t.Reason, &audience); err != nil {
			return nil, nil, err
		}
		t.DeletedAt = fromNanos(at)
		if audience.Valid {
			var a tombstoneAudience
			if err := json.Unmarshal([]byte(audience.String), &a); err != nil {
				return nil, nil, fmt.Errorf("decode tombstone %s audience: %w", t.ObjectID, err)
			}
			t.Audience = &tenure.Object{TenantID: tenant, UserID: a.UserID, PersonaID: a.PersonaID, SecurityClassification: a.Classification,
				PermissionScope: a.PermissionScope}
		}
		tombs = append(tombs, t)
	}
	return objs, tombs, rows.Err()
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
func (b *backend) ListSeqs(ctx context.Context, tenant string, q engine.ListQuery, cursor int64, n int) ([]tenure.Object, []int64, error) {
	db, err := b.reader()
	if err != nil {
		return nil, nil, err
	}
	where := []string{"tenant_id = ?", "tx_end IS NULL", "seq > ?"}
	args := []any{tenant, cursor}
	order := "seq"
	if q.Desc {
		// Newest first: the cursor is an upper bound (the largest seq on
		// the first page), so that SQLite walks the rows backwards from it.
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
		add("layer = ?", q.Layer)
	}
	if q.ScopeKind != "" {
		add("scope = ?", q.ScopeKind)
	}
	if q.Status != "" {
		add("status = ?", q.Status)
	}
	if q.ObjectType != "" {
		add("object_type = ?", q.ObjectType)
	}
	if q.SessionID != "" {
		add("session_id = ?", q.SessionID)
	}
	if q.KeyPrefix != "" {
		add("substr(key, 1, ?) = ?", len(q.KeyPrefix))
		args = append(args, q.KeyPrefix)
	}
	if q.Author != "" {
		// Indexed by objects_open_author (migration 0021).
		add("json_extract(body, '$.written_by') = ?", q.Author)
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
		add("status = 'active' AND (has_decay = 1 OR (valid_until IS NOT NULL AND valid_until <= ?))", q.RetireDueAt.UnixNano())
	}
	from := "objects"
	if q.Desc {
		// Newest first walks an index in seq order and stops at the page's
		// end; left to itself the planner may pick an index on a filtered
		// column and sort every match (the web inspector's listing).
		from = "objects INDEXED BY objects_open_seq"
		if q.Author != "" {
			from = "objects INDEXED BY objects_open_author"
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT `+objectCols+` FROM `+from+` WHERE `+strings.Join(where, " AND ")+` ORDER BY `+order+` LIMIT ?`,
		append(args, n)...)
	if err != nil {
		return nil, nil, err
	}
	return scanObjectSeqs(rows)
}

func (b *backend) Resolutions(ctx context.Context, tenant string, open bool) ([]tenure.Resolution, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	q := `SELECT id, tenant_id, kind, key, slot, object_ids, reason, created_at, resolved_at, resolved_by
		FROM resolutions WHERE tenant_id = ?`
	if open {
		q += ` AND resolved_at IS NULL`
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY created_at, id`, tenant)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tenure.Resolution
	for rows.Next() {
		var (
			r          tenure.Resolution
			ids        string
			created    int64
			resolvedAt sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &r.TenantID, &r.Kind, &r.Key, &r.Slot, &ids, &r.Reason, &created, &resolvedAt, &r.ResolvedBy); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(ids), &r.ObjectIDs); err != nil {
			return nil, fmt.Errorf("decode resolution %s: %w", r.ID, err)
		}
		r.CreatedAt = fromNanos(created)
		if resolvedAt.Valid {
			t := fromNanos(resolvedAt.Int64)
			r.ResolvedAt = &t
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (b *backend) Begin(ctx context.Context) (engine.Tx, error) {
	if b.w == nil {
		return nil, errClosed
	}
	b.learnWrites(ctx)
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &writeTx{tx: tx, db: b.writesOn(tx), index: b.index, b: b}, nil
}

// writeTx implements engine.Tx.
type writeTx struct {
	tx *sql.Tx
	// db runs the transaction's queries through the writer's statements.
	db writes
	// index is woken when a commit appended messages, or when the
	// write-ahead log wants a checkpoint (see index.go).
	index *messageIndex
	// appended counts the messages the transaction inserted.
	appended int
	// insertMessages writes insertRows messages (see InsertMessages).
	insertMessages *sql.Stmt
	// b prepares the statements the transaction runs often (see
	// writePrepared).
	b *backend
}

// stmt returns query for this transaction: the writer's statement (see
// writes), else prepared now.
func (t *writeTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := t.db.stmt(ctx, query); st != nil {
		return st, nil
	}
	return t.tx.PrepareContext(ctx, query)
}

// queryRow runs a query of one row through stmt.
func (t *writeTx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return t.db.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

func (t *writeTx) Commit() error {
	if err := t.tx.Commit(); err != nil {
		return err
	}
	if t.index.wrote(t.appended) || t.appended > 0 {
		t.index.wake()
	}
	return nil
}

func (t *writeTx) Rollback() error { return t.tx.Rollback() }

func (t *writeTx) LastTxTime(ctx context.Context) (time.Time, error) {
	var n sql.NullInt64
	err := t.db.QueryRowContext(ctx, `SELECT max(m) FROM (
		SELECT max(tx_start) AS m FROM objects
		UNION ALL SELECT max(deleted_at) FROM tombstones
		UNION ALL SELECT max(created_at) FROM resolutions
		UNION ALL SELECT max(resolved_at) FROM resolutions
		UNION ALL SELECT max(tx_start) FROM entities
		UNION ALL SELECT max(undone_at) FROM entity_ops)`).Scan(&n)
	if err != nil || !n.Valid {
		return time.Time{}, err
	}
	return fromNanos(n.Int64), nil
}

func (t *writeTx) Latest(ctx context.Context, tenant, id string) (tenure.Object, bool, error) {
	objs, err := queryObjects(ctx, t.db, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND object_id = ? AND tx_end IS NULL`, tenant, id)
	if err != nil || len(objs) == 0 {
		return tenure.Object{}, false, err
	}
	return objs[0], true, nil
}

func (t *writeTx) LatestByKey(ctx context.Context, tenant, key string, statuses ...tenure.Status) ([]tenure.Object, error) {
	q := `SELECT ` + objectCols + ` FROM objects WHERE tenant_id = ? AND key = ? AND tx_end IS NULL`
	args := []any{tenant, key}
	if len(statuses) > 0 {
		q += ` AND status IN (?` + strings.Repeat(`, ?`, len(statuses)-1) + `)`
		for _, st := range statuses {
			args = append(args, st)
		}
	}
	return queryObjects(ctx, t.db, q+` ORDER BY seq`, args...)
}

func (b *backend) Dependents(ctx context.Context, tenant, ref string) ([]tenure.Object, error) {
	db, err := b.reader()
	if err != nil {
		return nil, err
	}
	return queryObjects(ctx, db, `SELECT o.seq, o.body, o.tx_end FROM object_deps d
		CROSS JOIN objects o ON o.tenant_id = d.tenant_id AND o.object_id = d.object_id AND o.tx_end IS NULL
		WHERE d.tenant_id = ? AND d.ref = ? ORDER BY o.seq LIMIT 1000`, tenant, ref)
}

func (t *writeTx) Dependents(ctx context.Context, tenant, ref string) ([]tenure.Object, error) {
	// CROSS JOIN keeps SQLite from scanning every open object of the tenant.
	return queryObjects(ctx, t.db, `SELECT o.seq, o.body, o.tx_end FROM object_deps d
		CROSS JOIN objects o ON o.tenant_id = d.tenant_id AND o.object_id = d.object_id AND o.tx_end IS NULL
		WHERE d.tenant_id = ? AND d.ref = ? ORDER BY o.seq`, tenant, ref)
}

func (t *writeTx) LatestInSession(ctx context.Context, tenant, session string, layer tenure.Layer) ([]tenure.Object, error) {
	return queryObjects(ctx, t.db, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND session_id = ? AND layer = ? AND tx_end IS NULL ORDER BY seq`,
		tenant, session, layer)
}

func (t *writeTx) Insert(ctx context.Context, o *tenure.Object) error {
	body, err := json.Marshal(o)
	if err != nil {
		return err
	}
	hasDecay := 0
	if o.DecayRule != nil {
		hasDecay = 1
	}
	sandbox, always := "", 0
	if o.Scope.Sandboxed() {
		sandbox = o.ScopeID
	}
	if o.AlwaysCandidate() {
		always = 1
	}
	res, err := t.db.ExecContext(ctx, `INSERT INTO objects (tenant_id, object_id, version, key, layer, object_type, scope, status,
		session_id, user_id, project_id, task_id, sandbox_id, class_rank, always, memory_rank,
		valid_from, valid_until, has_decay, tx_start, tx_end, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
		o.TenantID, o.ObjectID, o.Version, o.Key, o.Layer, o.ObjectType, o.Scope, o.Status,
		o.SessionID, o.UserID, o.ProjectID, o.TaskID, sandbox, o.SecurityClassification.Rank(), always, o.FoundationRank(),
		nanos(o.ValidFrom), nullNanos(o.ValidUntil), hasDecay, nanos(o.TxStart), string(body))
	if err != nil {
		return fmt.Errorf("insert object %s v%d: %w", o.ObjectID, o.Version, err)
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if _, err := t.db.ExecContext(ctx, `INSERT INTO objects_fts (rowid, text) VALUES (?, ?)`, seq, o.SearchText()); err != nil {
		return fmt.Errorf("index object %s: %w", o.ObjectID, err)
	}
	if err := t.countObject(ctx, o, seq, sandbox); err != nil {
		return fmt.Errorf("index object %s: %w", o.ObjectID, err)
	}
	for _, ref := range o.DependsOn {
		if _, err := t.db.ExecContext(ctx, `INSERT OR IGNORE INTO object_deps (tenant_id, ref, object_id) VALUES (?, ?, ?)`,
			o.TenantID, ref, o.ObjectID); err != nil {
			return err
		}
	}
	return t.indexEntities(ctx, o)
}

// countObject adds the object just indexed as seq to its audience class
// (engine.Audience; see object_rank.go) and names the class on its row.
func (t *writeTx) countObject(ctx context.Context, o *tenure.Object, seq int64, sandbox string) error {
	var sz []byte
	if err := t.db.QueryRowContext(ctx, `SELECT sz FROM objects_fts_docsize WHERE id = ?`, seq).Scan(&sz); err != nil {
		return err
	}
	var class int64
	err := t.db.QueryRowContext(ctx, `INSERT INTO object_classes (tenant_id, audience, user_id, project_id, session_id, task_id, sandbox_id,
		class_rank, docs, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
		ON CONFLICT (tenant_id, audience) DO UPDATE SET docs = docs + 1, tokens = tokens + excluded.tokens RETURNING id`,
		o.TenantID, engine.Audience(o), o.UserID, o.ProjectID, o.SessionID, o.TaskID, sandbox, o.SecurityClassification.Rank(),
		docSize(sz)).Scan(&class)
	if err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `UPDATE objects SET fts_class = ? WHERE seq = ?`, class, seq)
	return err
}

// uncountObjects takes the open objects whose seqs query returns out of
// their classes' statistics, before they leave the full-text index, and
// deletes the classes they empty.
func (t *writeTx) uncountObjects(ctx context.Context, query string, args ...any) error {
	rows, err := t.db.QueryContext(ctx, `SELECT o.fts_class, d.sz FROM objects o JOIN objects_fts_docsize d ON d.id = o.seq
		WHERE o.seq IN (`+query+`)`, args...)
	if err != nil {
		return err
	}
	type gone struct{ class, tokens int64 }
	var out []gone
	for rows.Next() {
		var g gone
		var sz []byte
		if err := rows.Scan(&g.class, &sz); err != nil {
			rows.Close()
			return err
		}
		g.tokens = docSize(sz)
		out = append(out, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range out {
		if _, err := t.db.ExecContext(ctx, `UPDATE object_classes SET docs = docs - 1, tokens = tokens - ? WHERE id = ?`, g.tokens, g.class); err != nil {
			return err
		}
		if _, err := t.db.ExecContext(ctx, `DELETE FROM object_classes WHERE id = ? AND docs <= 0`, g.class); err != nil {
			return err
		}
	}
	return nil
}

func (t *writeTx) Close(ctx context.Context, tenant, id string, version int, at time.Time) error {
	var seq int64
	err := t.db.QueryRowContext(ctx, `UPDATE objects SET tx_end = ? WHERE tenant_id = ? AND object_id = ? AND version = ? AND tx_end IS NULL
		RETURNING seq`, nanos(at), tenant, id, version).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("close object %s v%d: no open version", id, version)
	}
	if err != nil {
		return err
	}
	if err := t.uncountObjects(ctx, `SELECT ?`, seq); err != nil {
		return err
	}
	if _, err := t.db.ExecContext(ctx, `DELETE FROM objects_fts WHERE rowid = ?`, seq); err != nil {
		return err
	}
	if _, err = t.db.ExecContext(ctx, `DELETE FROM object_deps WHERE tenant_id = ? AND object_id = ?`, tenant, id); err != nil {
		return err
	}
	return t.unindexEntities(ctx, tenant, id)
}

func (t *writeTx) Touch(ctx context.Context, o *tenure.Object) error {
	body, err := json.Marshal(o)
	if err != nil {
		return err
	}
	res, err := t.db.ExecContext(ctx, `UPDATE objects SET body = ? WHERE tenant_id = ? AND object_id = ? AND version = ? AND tx_end IS NULL`,
		string(body), o.TenantID, o.ObjectID, o.Version)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errors.New("touch: no open version")
	}
	return nil
}

// tombstoneAudience is what tombstones.audience holds (see migration 0009).
type tombstoneAudience struct {
	UserID          string                 `json:"user_id,omitempty"`
	PersonaID       string                 `json:"persona_id,omitempty"`
	Classification  tenure.Classification  `json:"security_classification"`
	PermissionScope tenure.PermissionScope `json:"permission_scope"`
}

func (t *writeTx) Delete(ctx context.Context, tenant string, tb tenure.Tombstone) error {
	var audience any
	if a := tb.Audience; a != nil {
		b, err := json.Marshal(tombstoneAudience{UserID: a.UserID, PersonaID: a.PersonaID, Classification: a.SecurityClassification, PermissionScope: a.PermissionScope})
		if err != nil {
			return err
		}
		audience = string(b)
	}
	if err := t.uncountObjects(ctx, `SELECT seq FROM objects WHERE tenant_id = ? AND object_id = ? AND tx_end IS NULL`, tenant, tb.ObjectID); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM objects_fts WHERE rowid IN (SELECT seq FROM objects WHERE tenant_id = ? AND object_id = ?)`,
		`DELETE FROM objects WHERE tenant_id = ? AND object_id = ?`,
		`DELETE FROM object_deps WHERE tenant_id = ? AND object_id = ?`} {
		if _, err := t.db.ExecContext(ctx, q, tenant, tb.ObjectID); err != nil {
			return err
		}
	}
	if err := t.unindexEntities(ctx, tenant, tb.ObjectID); err != nil {
		return err
	}
	_, err := t.db.ExecContext(ctx, `INSERT INTO tombstones (tenant_id, object_id, key, versions, deleted_at, deleted_by, reason, audience)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, tenant, tb.ObjectID, tb.Key, tb.Versions, nanos(tb.DeletedAt), tb.DeletedBy, tb.Reason, audience)
	return err
}

func (t *writeTx) AddResolution(ctx context.Context, r tenure.Resolution) error {
	ids, err := json.Marshal(r.ObjectIDs)
	if err != nil {
		return err
	}
	_, err = t.db.ExecContext(ctx, `INSERT INTO resolutions (id, tenant_id, kind, key, slot, object_ids, reason, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.TenantID, r.Kind, r.Key, r.Slot, string(ids), r.Reason, nanos(r.CreatedAt))
	return err
}

func (t *writeTx) OpenResolution(ctx context.Context, tenant string, kind tenure.ResolutionKind, objectID string) (string, bool, error) {
	var id string
	err := t.db.QueryRowContext(ctx, `SELECT r.id FROM resolutions r, json_each(r.object_ids) j
		WHERE r.tenant_id = ? AND r.kind = ? AND r.resolved_at IS NULL AND j.value = ? LIMIT 1`, tenant, kind, objectID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

func (t *writeTx) ResolveSlot(ctx context.Context, tenant, slot, by string, at time.Time) error {
	_, err := t.db.ExecContext(ctx, `UPDATE resolutions SET resolved_at = ?, resolved_by = ?
		WHERE tenant_id = ? AND slot = ? AND kind = 'conflict' AND resolved_at IS NULL`, nanos(at), by, tenant, slot)
	return err
}
