package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/snapshot"
)

// Workflow snapshots: engine.WorkflowReader outside and inside write
// transactions, engine.WorkflowWriter inside them. The reads by workflow
// key name no tenant: outside a transaction they read as the system (the
// key was found by a read of the tenant's workflows); inside one, the
// transaction takes the workflow's tenant.

func queryWorkflows(ctx context.Context, c querier, tenant, id string) ([]engine.WorkflowRecord, error) {
	rows, err := c.Query(ctx, `SELECT seq, uid, tenant_id, config, open_round, converged, updated_at FROM workflows
		WHERE tenant_id = $1 AND workflow_id = $2 ORDER BY seq`, tenant, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []engine.WorkflowRecord
	for rows.Next() {
		var (
			w       engine.WorkflowRecord
			config  string
			updated int64
		)
		if err := rows.Scan(&w.Key, &w.UID, &w.TenantID, &config, &w.OpenRound, &w.Converged, &updated); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(config), &w.Workflow); err != nil {
			return nil, fmt.Errorf("decode workflow %d: %w", w.Key, err)
		}
		w.UpdatedAt = fromNanos(updated)
		out = append(out, w)
	}
	return out, rows.Err()
}

func queryRound(ctx context.Context, c querier, key int64, rq engine.RoundQuery) (engine.RoundRecord, bool, error) {
	query, arg := `SELECT round, state, report, closed_at FROM workflow_rounds WHERE workflow_seq = $1 AND round = $2`, any(rq.Round)
	if rq.AsOf != nil {
		query, arg = `SELECT round, state, report, closed_at FROM workflow_rounds
			WHERE workflow_seq = $1 AND closed_at <= $2 ORDER BY round DESC LIMIT 1`, nanos(*rq.AsOf)
	}
	var (
		r      engine.RoundRecord
		state  string
		report *string
		closed int64
	)
	err := c.QueryRow(ctx, query, key, arg).Scan(&r.Round, &state, &report, &closed)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	r.State, r.ClosedAt = []byte(state), fromNanos(closed)
	if report != nil {
		r.Report = new(snapshot.Report)
		if err := json.Unmarshal([]byte(*report), r.Report); err != nil {
			return r, false, fmt.Errorf("decode report of workflow %d round %d: %w", key, r.Round, err)
		}
	}
	return r, true, nil
}

func queryDeltas(ctx context.Context, c querier, key int64, round int) ([]snapshot.Delta, error) {
	query, args := `SELECT body, status, reason FROM workflow_deltas WHERE workflow_seq = $1 AND round = $2 ORDER BY seq`, []any{key, round}
	if round < 0 {
		query, args = `SELECT body, status, reason FROM workflow_deltas WHERE workflow_seq = $1 ORDER BY round, seq`, args[:1]
	}
	rows, err := c.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []snapshot.Delta
	for rows.Next() {
		var (
			body, status, reason string
			d                    snapshot.Delta
		)
		if err := rows.Scan(&body, &status, &reason); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			return nil, fmt.Errorf("decode delta of workflow %d: %w", key, err)
		}
		d.Status, d.Reason = snapshot.Status(status), reason
		out = append(out, d)
	}
	return out, rows.Err()
}

func (b *backend) Workflows(ctx context.Context, tenant, id string) (out []engine.WorkflowRecord, err error) {
	err = b.read(ctx, tenant, func(c querier) error {
		out, err = queryWorkflows(ctx, c, tenant, id)
		return err
	})
	return out, err
}

func (b *backend) WorkflowRound(ctx context.Context, key int64, q engine.RoundQuery) (r engine.RoundRecord, ok bool, err error) {
	err = b.read(ctx, system, func(c querier) error {
		r, ok, err = queryRound(ctx, c, key, q)
		return err
	})
	return r, ok, err
}

func (b *backend) WorkflowDeltas(ctx context.Context, key int64, round int) (out []snapshot.Delta, err error) {
	err = b.read(ctx, system, func(c querier) error {
		out, err = queryDeltas(ctx, c, key, round)
		return err
	})
	return out, err
}

// workflow names the transaction's tenant as the workflow's (false: no
// such workflow).
func (t *writeTx) workflow(ctx context.Context, key int64) (bool, error) {
	tenant, ok := t.workflows[key]
	if !ok {
		if err := t.as(ctx, system); err != nil {
			return false, err
		}
		err := t.c.QueryRow(ctx, `SELECT tenant_id FROM workflows WHERE seq = $1`, key).Scan(&tenant)
		if errors.Is(err, pgx.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		t.remember(key, tenant)
	}
	return true, t.as(ctx, tenant)
}

func (t *writeTx) remember(key int64, tenant string) {
	if t.workflows == nil {
		t.workflows = map[int64]string{}
	}
	t.workflows[key] = tenant
}

func (t *writeTx) Workflows(ctx context.Context, tenant, id string) ([]engine.WorkflowRecord, error) {
	if err := t.as(ctx, tenant); err != nil {
		return nil, err
	}
	ws, err := queryWorkflows(ctx, t.c, tenant, id)
	for _, w := range ws {
		t.remember(w.Key, tenant)
	}
	return ws, err
}

func (t *writeTx) WorkflowRound(ctx context.Context, key int64, q engine.RoundQuery) (engine.RoundRecord, bool, error) {
	if ok, err := t.workflow(ctx, key); !ok || err != nil {
		return engine.RoundRecord{}, false, err
	}
	return queryRound(ctx, t.c, key, q)
}

func (t *writeTx) WorkflowDeltas(ctx context.Context, key int64, round int) ([]snapshot.Delta, error) {
	if ok, err := t.workflow(ctx, key); !ok || err != nil {
		return nil, err
	}
	return queryDeltas(ctx, t.c, key, round)
}

func (t *writeTx) OpenRound(ctx context.Context, key int64) (int, bool, error) {
	if ok, err := t.workflow(ctx, key); !ok || err != nil {
		return 0, false, err
	}
	var open int
	err := t.c.QueryRow(ctx, `SELECT open_round FROM workflows WHERE seq = $1`, key).Scan(&open)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return open, err == nil, err
}

func (t *writeTx) InsertWorkflow(ctx context.Context, w *engine.WorkflowRecord) error {
	if err := t.as(ctx, w.TenantID); err != nil {
		return err
	}
	config, err := json.Marshal(w.Workflow)
	if err != nil {
		return err
	}
	if err := t.c.QueryRow(ctx, `INSERT INTO workflows (uid, tenant_id, workflow_id, config, open_round, converged, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq`, w.UID, w.TenantID, w.Workflow.WorkflowID, string(config), w.OpenRound,
		w.Converged, nanos(w.Workflow.CreatedAt), nanos(w.UpdatedAt)).Scan(&w.Key); err != nil {
		return err
	}
	t.remember(w.Key, w.TenantID)
	return nil
}

func (t *writeTx) InsertRound(ctx context.Context, key int64, r engine.RoundRecord) error {
	if ok, err := t.workflow(ctx, key); err != nil || !ok {
		return cmpErr(err, fmt.Errorf("insert round: no workflow %d", key))
	}
	var report any
	if r.Report != nil {
		b, err := json.Marshal(r.Report)
		if err != nil {
			return err
		}
		report = string(b)
	}
	_, err := t.c.Exec(ctx, `INSERT INTO workflow_rounds (tenant_id, workflow_seq, round, state, report, closed_at)
		VALUES (current_setting('tenure.tenant'), $1, $2, $3, $4, $5)`, key, r.Round, string(r.State), report, nanos(r.ClosedAt))
	return err
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

func (t *writeTx) SetOpenRound(ctx context.Context, key int64, open int, converged bool, at time.Time) error {
	if ok, err := t.workflow(ctx, key); err != nil || !ok {
		return cmpErr(err, fmt.Errorf("set open round: no workflow %d", key))
	}
	_, err := t.c.Exec(ctx, `UPDATE workflows SET open_round = $1, converged = $2, updated_at = $3 WHERE seq = $4`,
		open, converged, nanos(at), key)
	return err
}

func (t *writeTx) InsertDeltas(ctx context.Context, key int64, ds []snapshot.Delta) ([]bool, error) {
	if ok, err := t.workflow(ctx, key); err != nil || !ok {
		return nil, cmpErr(err, fmt.Errorf("insert deltas: no workflow %d", key))
	}
	inserted := make([]bool, len(ds))
	if len(ds) == 0 {
		return inserted, nil
	}
	rounds := make([]int32, len(ds))
	ids := make([]string, len(ds))
	bodies := make([]string, len(ds))
	for i, d := range ds {
		d.Status, d.Reason = "", ""
		body, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		rounds[i], ids[i], bodies[i] = int32(d.Round), d.ID, string(body)
	}
	// One statement for the batch, in order; a delta whose id the
	// workflow holds (or that repeats one earlier in ds) is left out.
	rows, err := t.c.Query(ctx, `INSERT INTO workflow_deltas (tenant_id, workflow_seq, round, id, body, status)
		SELECT current_setting('tenure.tenant'), $1, r, i, b, $5 FROM unnest($2::int[], $3::text[], $4::text[]) WITH ORDINALITY x(r, i, b, n)
		ORDER BY n ON CONFLICT (workflow_seq, id) DO NOTHING RETURNING id`, key, rounds, ids, bodies, string(snapshot.StatusPending))
	if err != nil {
		return nil, err
	}
	got := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		got[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, id := range ids {
		if got[id] {
			inserted[i] = true
			delete(got, id) // a repeat in ds is not inserted twice
		}
	}
	return inserted, nil
}

func (t *writeTx) SetDeltaStatuses(ctx context.Context, key int64, ds []snapshot.Delta) error {
	if len(ds) == 0 {
		return nil
	}
	if ok, err := t.workflow(ctx, key); err != nil || !ok {
		return cmpErr(err, fmt.Errorf("set delta statuses: no workflow %d", key))
	}
	// What the round's deltas became, as the SQLite store records it: the
	// most common outcome for every delta of the round, then each other
	// one by id.
	type outcome struct {
		status snapshot.Status
		reason string
	}
	counts := map[outcome]int{}
	var common outcome
	for _, d := range ds {
		o := outcome{d.Status, d.Reason}
		counts[o]++
		if counts[o] > counts[common] || (counts[o] == counts[common] && o.status < common.status) {
			common = o
		}
	}
	if _, err := t.c.Exec(ctx, `UPDATE workflow_deltas SET status = $1, reason = $2 WHERE workflow_seq = $3 AND round = $4`,
		string(common.status), common.reason, key, ds[0].Round); err != nil {
		return err
	}
	ids := make([]string, len(ds))
	statuses := make([]string, len(ds))
	reasons := make([]string, len(ds))
	for i, d := range ds {
		ids[i], statuses[i], reasons[i] = d.ID, string(d.Status), d.Reason
	}
	_, err := t.c.Exec(ctx, `UPDATE workflow_deltas d SET status = x.s, reason = x.r
		FROM unnest($2::text[], $3::text[], $4::text[]) x(i, s, r) WHERE d.workflow_seq = $1 AND d.id = x.i`, key, ids, statuses, reasons)
	return err
}
