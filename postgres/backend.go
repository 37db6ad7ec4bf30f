package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// backend adapts a Store to engine.Backend.
type backend Store

var (
	_ engine.Backend   = (*backend)(nil)
	_ engine.SeqLister = (*backend)(nil)
)

// querier is what a pooled connection and a transaction offer.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// rebinds caches queries written with ? placeholders as PostgreSQL's $n.
var rebinds sync.Map

// rebind numbers the ? placeholders of q ($1, $2, …). The store's queries
// use ? nowhere else.
func rebind(q string) string {
	if r, ok := rebinds.Load(q); ok {
		return r.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	rebinds.Store(q, b.String())
	return b.String()
}

// quote returns s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// system is the tenant name of operations that concern no one tenant
// (see migration 0002).
const system = "\x00system"

// setTenant is the statement that names a transaction's tenant.
func setTenant(tenant string) string {
	if tenant == system {
		return `SELECT set_config('tenure.tenant', '', true), set_config('tenure.system', 'on', true)`
	}
	return `SELECT set_config('tenure.tenant', ` + quote(tenant) + `, true), set_config('tenure.system', '', true)`
}

// read runs fn's queries as tenant's (system: every tenant's rows). Each
// query goes out in one batch behind the statement that names the
// tenant: a batch is one implicit transaction, so the setting holds for
// the query and ends with it, and a read costs one round trip per query
// (no BEGIN, no COMMIT). Reads run at READ COMMITTED, statement by
// statement, as they would in a transaction.
func (b *backend) read(ctx context.Context, tenant string, fn func(q querier) error) error {
	if b.pool == nil {
		return errClosed
	}
	if strings.ContainsRune(tenant, 0) && tenant != system {
		return tenure.Errorf(tenure.CodeInvalid, "tenant_id", "tenant id holds a NUL byte")
	}
	tc := &tenantConn{tenant: tenant}
	if tenant == system {
		tc.tenant, tc.system = "", "on"
	}
	for attempt := 0; ; attempt++ {
		c, err := b.pool.Acquire(ctx)
		if err != nil {
			return (*Store)(b).fail(err)
		}
		tc.c, tc.queries = c, 0
		err = fn(tc)
		c.Release() // a broken connection leaves the pool
		if err == nil {
			return nil
		}
		err = (*Store)(b).fail(err)
		// A connection that broke while idle (the server restarted, an
		// administrator terminated it) fails the first query, before fn
		// has anything: once, the read runs again on a new one.
		if attempt > 0 || tc.queries > 1 || tenure.ErrorCode(err) != tenure.CodeUnavailable || ctx.Err() != nil {
			return err
		}
		(*Store)(b).retries.Add(1)
	}
}

// tenantConn runs each query in a batch behind the tenant's settings.
type tenantConn struct {
	c              *pgxpool.Conn
	tenant, system string
	// queries counts the queries sent.
	queries int
}

const setSettings = `SELECT set_config('tenure.tenant', $1, true), set_config('tenure.system', $2, true)`

func (t *tenantConn) batch(sql string, args []any) *pgx.Batch {
	b := &pgx.Batch{}
	b.Queue(setSettings, t.tenant, t.system)
	b.Queue(sql, args...)
	return b
}

func (t *tenantConn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	t.queries++
	br := t.c.SendBatch(ctx, t.batch(sql, args))
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

func (t *tenantConn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := t.Query(ctx, sql, args...)
	return batchRow{rows: rows, err: err}
}

func (t *tenantConn) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t.queries++
	br := t.c.SendBatch(ctx, t.batch(sql, args))
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return pgconn.CommandTag{}, err
	}
	return br.Exec()
}

// batchRows closes its batch with its rows.
type batchRows struct {
	pgx.Rows
	br     pgx.BatchResults
	closed bool
	err    error
}

func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	r.err = r.br.Close()
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// batchRow is QueryRow's answer over batchRows.
type batchRow struct {
	rows pgx.Rows
	err  error
}

func (r batchRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
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

// Begin starts a write transaction: it takes the store's write lock, an
// advisory lock held until the transaction ends, so that write
// transactions are serialized across every process on the database.
func (b *backend) Begin(ctx context.Context) (engine.Tx, error) {
	if b.pool == nil {
		return nil, errClosed
	}
	c, err := b.begin(ctx, "BEGIN; SELECT pg_advisory_xact_lock("+strconv.FormatInt(b.writeLock, 10)+")")
	if err != nil {
		return nil, err
	}
	return &writeTx{c: c, b: b, tenant: "\x00none"}, nil
}

// begin acquires a connection and starts a transaction with sql. A
// pooled connection that broke while idle (the server restarted, or an
// administrator terminated it) is dropped and the transaction started
// once more on a new one: nothing ran yet, so repeating is safe. When the
// database is down, that fails fast with CodeUnavailable.
func (b *backend) begin(ctx context.Context, sql string) (*pgxpool.Conn, error) {
	for attempt := 0; ; attempt++ {
		c, err := b.pool.Acquire(ctx)
		if err != nil {
			return nil, (*Store)(b).fail(err)
		}
		_, err = c.Exec(ctx, sql)
		if err == nil {
			return c, nil
		}
		c.Release() // a broken connection leaves the pool
		err = (*Store)(b).fail(err)
		if attempt > 0 || tenure.ErrorCode(err) != tenure.CodeUnavailable || ctx.Err() != nil {
			return nil, err
		}
		(*Store)(b).retries.Add(1)
	}
}

// writeTx implements engine.Tx.
type writeTx struct {
	c      *pgxpool.Conn
	b      *backend
	tenant string
	// workflows remembers the tenants of workflows by key.
	workflows map[int64]string
	done      bool
	// inserted counts the messages the transaction appended; stats, per
	// tenant, their BM25 statistics (written as the transaction commits,
	// once however many appends it made).
	inserted int64
	stats    map[string]map[viewClass]*classStats
}

// viewClass is the (user, persona, project) a message belongs to, each
// ” when shared: a reader reads the classes of its own or ”.
type viewClass struct{ user, persona, project string }

// classStats are BM25 statistics of messages: how many, their lexemes
// and how many hold each lexeme.
type classStats struct {
	docs, lexemes int64
	terms         map[string]int64
}

// addStats adds the statistics of messages appended to tenant.
func (t *writeTx) addStats(tenant string, stats map[viewClass]*classStats) {
	if t.stats == nil {
		t.stats = map[string]map[viewClass]*classStats{}
	}
	if t.stats[tenant] == nil {
		t.stats[tenant] = map[viewClass]*classStats{}
	}
	for k, s := range stats {
		t.inserted += s.docs
		into := t.stats[tenant][k]
		if into == nil {
			t.stats[tenant][k] = s
			continue
		}
		into.docs += s.docs
		into.lexemes += s.lexemes
		for l, n := range s.terms {
			into.terms[l] += n
		}
	}
}

// writeStats adds the transaction's statistics to fts_stats and
// fts_terms, in key order, so that concurrent appends would lock the rows
// in the same order.
func (t *writeTx) writeStats(ctx context.Context) error {
	for tenant, classes := range t.stats {
		if err := t.as(ctx, tenant); err != nil {
			return err
		}
		var users, personas, projects, lexemes []string
		var docs, lexCounts, termDocs []int64
		var tUsers, tPersonas, tProjects []string
		for k, s := range classes {
			users, personas, projects = append(users, k.user), append(personas, k.persona), append(projects, k.project)
			docs, lexCounts = append(docs, s.docs), append(lexCounts, s.lexemes)
			for l, n := range s.terms {
				lexemes, termDocs = append(lexemes, l), append(termDocs, n)
				tUsers, tPersonas, tProjects = append(tUsers, k.user), append(tPersonas, k.persona), append(tProjects, k.project)
			}
		}
		if _, err := t.c.Exec(ctx, `INSERT INTO fts_stats (tenant_id, user_id, persona_id, project_id, docs, lexemes)
			SELECT $1, u, pe, pr, d, l FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) x(u, pe, pr, d, l) ORDER BY u, pe, pr
			ON CONFLICT (tenant_id, user_id, persona_id, project_id) DO UPDATE SET docs = fts_stats.docs + excluded.docs,
				lexemes = fts_stats.lexemes + excluded.lexemes`, tenant, users, personas, projects, docs, lexCounts); err != nil {
			return fmt.Errorf("count messages: %w", err)
		}
		if _, err := t.c.Exec(ctx, `INSERT INTO fts_terms (tenant_id, lexeme, user_id, persona_id, project_id, docs)
			SELECT $1, l, u, pe, pr, n FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) x(l, u, pe, pr, n)
			ORDER BY l, u, pe, pr
			ON CONFLICT (tenant_id, lexeme, user_id, persona_id, project_id) DO UPDATE SET docs = fts_terms.docs + excluded.docs`,
			tenant, lexemes, tUsers, tPersonas, tProjects, termDocs); err != nil {
			return fmt.Errorf("count terms: %w", err)
		}
	}
	return nil
}

// as names the transaction's tenant, unless it is named already.
func (t *writeTx) as(ctx context.Context, tenant string) error {
	if t.tenant == tenant {
		return nil
	}
	if strings.ContainsRune(tenant, 0) && tenant != system {
		return tenure.Errorf(tenure.CodeInvalid, "tenant_id", "tenant id holds a NUL byte")
	}
	if _, err := t.c.Exec(ctx, setTenant(tenant)); err != nil {
		return err
	}
	t.tenant = tenant
	return nil
}

func (t *writeTx) end(sql string) error {
	if t.done {
		return nil
	}
	t.done = true
	defer t.c.Release()
	_, err := t.c.Exec(context.Background(), sql)
	return (*Store)(t.b).fail(err)
}

func (t *writeTx) Commit() error {
	if t.done || t.inserted == 0 {
		return t.end("COMMIT")
	}
	if err := t.writeStats(context.Background()); err != nil {
		return errors.Join((*Store)(t.b).fail(err), t.Rollback())
	}
	t.done = true
	defer t.c.Release()
	if _, err := t.c.Exec(context.Background(), "COMMIT"); err != nil {
		return (*Store)(t.b).fail(err)
	}
	(*Store)(t.b).analyzeDue(t.c, t.inserted)
	return nil
}
func (t *writeTx) Rollback() error { return t.end("ROLLBACK") }

// analyzeDue refreshes the planner's statistics (tenure_analyze, see
// migration 0003) when the messages this process appended since it last
// did reach the count then (at least 1,000): a load of n messages
// analyzes about log2(n/1000) times.
func (s *Store) analyzeDue(c *pgxpool.Conn, inserted int64) {
	s.analyzeMu.Lock()
	s.sinceAnalyze += inserted
	due := s.sinceAnalyze >= max(1000, s.atAnalyze)
	if due {
		s.atAnalyze += s.sinceAnalyze
		s.sinceAnalyze = 0
	}
	s.analyzeMu.Unlock()
	if !due {
		return
	}
	if _, err := c.Exec(context.Background(), "SELECT tenure_analyze()"); err != nil {
		s.opt.Logger.Warn("analyze", "err", err)
	}
}

func (t *writeTx) LastTxTime(ctx context.Context) (time.Time, error) {
	if err := t.as(ctx, system); err != nil {
		return time.Time{}, err
	}
	var n *int64
	err := t.c.QueryRow(ctx, `SELECT greatest((SELECT max(tx_start) FROM objects), (SELECT max(tx_end) FROM objects),
		(SELECT max(deleted_at) FROM tombstones), (SELECT max(created_at) FROM resolutions), (SELECT max(resolved_at) FROM resolutions),
		(SELECT max(tx_start) FROM entities), (SELECT max(undone_at) FROM entity_ops))`).Scan(&n)
	if err != nil || n == nil {
		return time.Time{}, err
	}
	return fromNanos(*n), nil
}

func (t *writeTx) objects(ctx context.Context, tenant, query string, args ...any) ([]tenure.Object, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, err
	}
	return queryObjects(ctx, t.c, query, args...)
}

func (t *writeTx) Latest(ctx context.Context, tenant, id string) (tenure.Object, bool, error) {
	objs, err := t.objects(ctx, tenant, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND object_id = ? AND tx_end IS NULL`, tenant, id)
	if err != nil || len(objs) == 0 {
		return tenure.Object{}, false, err
	}
	return objs[0], true, nil
}

func (t *writeTx) LatestByKey(ctx context.Context, tenant, key string, statuses ...tenure.Status) ([]tenure.Object, error) {
	q := `SELECT ` + objectCols + ` FROM objects WHERE tenant_id = ? AND key = ? AND tx_end IS NULL`
	args := []any{tenant, key}
	if len(statuses) > 0 {
		ss := make([]string, len(statuses))
		for i, s := range statuses {
			ss[i] = string(s)
		}
		q += ` AND status = ANY(?)`
		args = append(args, ss)
	}
	return t.objects(ctx, tenant, q+` ORDER BY seq`, args...)
}

func (t *writeTx) Dependents(ctx context.Context, tenant, ref string) ([]tenure.Object, error) {
	return t.objects(ctx, tenant, `SELECT o.seq, o.body, o.tx_end FROM object_deps d
		JOIN objects o ON o.tenant_id = d.tenant_id AND o.object_id = d.object_id AND o.tx_end IS NULL
		WHERE d.tenant_id = ? AND d.ref = ? ORDER BY o.seq`, tenant, ref)
}

func (t *writeTx) LatestInSession(ctx context.Context, tenant, session string, layer tenure.Layer) ([]tenure.Object, error) {
	return t.objects(ctx, tenant, `SELECT `+objectCols+` FROM objects WHERE tenant_id = ? AND session_id = ? AND layer = ? AND tx_end IS NULL ORDER BY seq`,
		tenant, session, string(layer))
}

func (t *writeTx) Insert(ctx context.Context, o *tenure.Object) error {
	if err := t.as(ctx, o.TenantID); err != nil {
		return err
	}
	body, err := json.Marshal(o)
	if err != nil {
		return err
	}
	sandbox := ""
	if o.Scope.Sandboxed() {
		sandbox = o.ScopeID
	}
	var seq, lexemes int64
	if err := t.c.QueryRow(ctx, `INSERT INTO objects (tenant_id, object_id, version, key, layer, object_type, scope, status,
		session_id, user_id, project_id, task_id, sandbox_id, class_rank, always, memory_rank,
		valid_from, valid_until, has_decay, tx_start, tx_end, body, search)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, NULL, $21, $22)
		RETURNING seq, length(tsv)`,
		o.TenantID, o.ObjectID, o.Version, o.Key, string(o.Layer), string(o.ObjectType), string(o.Scope), string(o.Status),
		o.SessionID, o.UserID, o.ProjectID, o.TaskID, sandbox, o.SecurityClassification.Rank(), o.AlwaysCandidate(), o.FoundationRank(),
		nanos(o.ValidFrom), nullNanos(o.ValidUntil), o.DecayRule != nil, nanos(o.TxStart), string(body), noNUL(o.SearchText())).Scan(&seq, &lexemes); err != nil {
		return fmt.Errorf("insert object %s v%d: %w", o.ObjectID, o.Version, err)
	}
	// The object's audience class (migration 0009) counts it.
	if _, err := t.c.Exec(ctx, `WITH c AS (INSERT INTO object_classes (tenant_id, audience, user_id, project_id, session_id, task_id,
		sandbox_id, class_rank, docs, lexemes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9)
		ON CONFLICT (tenant_id, audience) DO UPDATE SET docs = object_classes.docs + 1, lexemes = object_classes.lexemes + excluded.lexemes
		RETURNING id)
		UPDATE objects SET fts_class = (SELECT id FROM c) WHERE seq = $10`,
		o.TenantID, engine.Audience(o), o.UserID, o.ProjectID, o.SessionID, o.TaskID, sandbox, o.SecurityClassification.Rank(), lexemes, seq); err != nil {
		return fmt.Errorf("count object %s v%d: %w", o.ObjectID, o.Version, err)
	}
	if len(o.DependsOn) > 0 {
		if _, err := t.c.Exec(ctx, `INSERT INTO object_deps (tenant_id, ref, object_id) SELECT $1, r, $3 FROM unnest($2::text[]) r
			ON CONFLICT DO NOTHING`, o.TenantID, o.DependsOn, o.ObjectID); err != nil {
			return err
		}
	}
	return t.indexEntities(ctx, o)
}

// noNUL drops NUL bytes, which PostgreSQL's text cannot hold, from text
// that is only searched.
func noNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}

func (t *writeTx) Close(ctx context.Context, tenant, id string, version int, at time.Time) error {
	if err := t.as(ctx, tenant); err != nil {
		return err
	}
	var class, lexemes int64
	err := t.c.QueryRow(ctx, `UPDATE objects SET tx_end = $1 WHERE tenant_id = $2 AND object_id = $3 AND version = $4 AND tx_end IS NULL
		RETURNING fts_class, length(tsv)`, nanos(at), tenant, id, version).Scan(&class, &lexemes)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("close object %s v%d: no open version", id, version)
	}
	if err != nil {
		return err
	}
	if err := t.uncount(ctx, tenant, class, lexemes); err != nil {
		return err
	}
	if _, err = t.c.Exec(ctx, `DELETE FROM object_deps WHERE tenant_id = $1 AND object_id = $2`, tenant, id); err != nil {
		return err
	}
	return t.unindexEntities(ctx, tenant, id)
}

// uncount takes an open object of class, of lexemes lexemes, out of its
// audience class's statistics as it leaves the index, and deletes the
// class once empty.
func (t *writeTx) uncount(ctx context.Context, tenant string, class, lexemes int64) error {
	var docs int64
	err := t.c.QueryRow(ctx, `UPDATE object_classes SET docs = docs - 1, lexemes = lexemes - $3 WHERE tenant_id = $1 AND id = $2
		RETURNING docs`, tenant, class, lexemes).Scan(&docs)
	if err != nil {
		return fmt.Errorf("uncount object: class %d: %w", class, err)
	}
	if docs <= 0 {
		_, err = t.c.Exec(ctx, `DELETE FROM object_classes WHERE tenant_id = $1 AND id = $2`, tenant, class)
	}
	return err
}

func (t *writeTx) Touch(ctx context.Context, o *tenure.Object) error {
	if err := t.as(ctx, o.TenantID); err != nil {
		return err
	}
	body, err := json.Marshal(o)
	if err != nil {
		return err
	}
	tag, err := t.c.Exec(ctx, `UPDATE objects SET body = $1 WHERE tenant_id = $2 AND object_id = $3 AND version = $4 AND tx_end IS NULL`,
		string(body), o.TenantID, o.ObjectID, o.Version)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return errors.New("touch: no open version")
	}
	return nil
}

func (t *writeTx) Delete(ctx context.Context, tenant string, tb tenure.Tombstone) error {
	if err := t.as(ctx, tenant); err != nil {
		return err
	}
	var audience any
	if a := tb.Audience; a != nil {
		b, err := json.Marshal(tombstoneAudience{UserID: a.UserID, PersonaID: a.PersonaID, Classification: a.SecurityClassification, PermissionScope: a.PermissionScope})
		if err != nil {
			return err
		}
		audience = string(b)
	}
	var class, lexemes int64
	switch err := t.c.QueryRow(ctx, `SELECT fts_class, length(tsv) FROM objects WHERE tenant_id = $1 AND object_id = $2 AND tx_end IS NULL`,
		tenant, tb.ObjectID).Scan(&class, &lexemes); {
	case err == nil:
		if err := t.uncount(ctx, tenant, class, lexemes); err != nil {
			return err
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	for _, q := range []string{`DELETE FROM objects WHERE tenant_id = $1 AND object_id = $2`,
		`DELETE FROM object_deps WHERE tenant_id = $1 AND object_id = $2`} {
		if _, err := t.c.Exec(ctx, q, tenant, tb.ObjectID); err != nil {
			return err
		}
	}
	if err := t.unindexEntities(ctx, tenant, tb.ObjectID); err != nil {
		return err
	}
	_, err := t.c.Exec(ctx, `INSERT INTO tombstones (tenant_id, object_id, key, versions, deleted_at, deleted_by, reason, audience)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, tenant, tb.ObjectID, tb.Key, tb.Versions, nanos(tb.DeletedAt), tb.DeletedBy, tb.Reason, audience)
	return err
}

func (t *writeTx) AddResolution(ctx context.Context, r tenure.Resolution) error {
	if err := t.as(ctx, r.TenantID); err != nil {
		return err
	}
	ids, err := json.Marshal(r.ObjectIDs)
	if err != nil {
		return err
	}
	_, err = t.c.Exec(ctx, `INSERT INTO resolutions (id, tenant_id, kind, key, slot, object_ids, reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8)`, r.ID, r.TenantID, string(r.Kind), r.Key, r.Slot, string(ids), r.Reason, nanos(r.CreatedAt))
	return err
}

func (t *writeTx) OpenResolution(ctx context.Context, tenant string, kind tenure.ResolutionKind, objectID string) (string, bool, error) {
	if err := t.as(ctx, tenant); err != nil {
		return "", false, err
	}
	var id string
	err := t.c.QueryRow(ctx, `SELECT id FROM resolutions WHERE tenant_id = $1 AND kind = $2 AND resolved_at IS NULL
		AND object_ids @> jsonb_build_array($3::text) ORDER BY created_at, id LIMIT 1`, tenant, string(kind), objectID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return id, err == nil, err
}

func (t *writeTx) ResolveSlot(ctx context.Context, tenant, slot, by string, at time.Time) error {
	if err := t.as(ctx, tenant); err != nil {
		return err
	}
	_, err := t.c.Exec(ctx, `UPDATE resolutions SET resolved_at = $1, resolved_by = $2
		WHERE tenant_id = $3 AND slot = $4 AND kind = 'conflict' AND resolved_at IS NULL`, nanos(at), by, tenant, slot)
	return err
}
