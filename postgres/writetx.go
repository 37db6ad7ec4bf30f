package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

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
