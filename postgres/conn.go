package postgres

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenure-dev/tenure"
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
