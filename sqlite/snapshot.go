package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/snapshot"
)

// Workflow snapshots (migration 0010): engine.WorkflowReader on the read
// pool and in write transactions, engine.WorkflowWriter in them.

// prepare returns a statement prepared once: on the read pool, or on the
// writer for a write transaction.
type prepare func(ctx context.Context, query string) (*sql.Stmt, error)

// The statements of workflow snapshots. Write transactions run them
// prepared once (writeStatements, see prepareWrites).
const (
	workflowsQuery = `SELECT seq, uid, tenant_id, config, open_round, converged, updated_at FROM workflows
	WHERE tenant_id = ? AND workflow_id = ? ORDER BY seq`
	roundQuery     = `SELECT round, state, report, closed_at FROM workflow_rounds WHERE workflow_seq = ? AND round = ?`
	roundAsOfQuery = `SELECT round, state, report, closed_at FROM workflow_rounds
	WHERE workflow_seq = ? AND closed_at <= ? ORDER BY round DESC LIMIT 1`
	roundDeltasQuery = `SELECT body, status, reason FROM workflow_deltas WHERE workflow_seq = ? AND round = ? ORDER BY seq`
	allDeltasQuery   = `SELECT body, status, reason FROM workflow_deltas WHERE workflow_seq = ? ORDER BY round, seq`
	insertDelta      = `INSERT INTO workflow_deltas (workflow_seq, round, id, body, status) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (workflow_seq, id) DO NOTHING`
	setDeltaStatus = `UPDATE workflow_deltas SET status = ?, reason = ? WHERE workflow_seq = ? AND id = ?`
	openRoundQuery = `SELECT open_round FROM workflows WHERE seq = ?`
)

// writeStatements are prepared on the writer when the store opens.
var writeStatements = []string{workflowsQuery, roundQuery, roundAsOfQuery, roundDeltasQuery, insertDelta, setDeltaStatus, openRoundQuery}

func queryWorkflows(ctx context.Context, prep prepare, tenant, id string) ([]engine.WorkflowRecord, error) {
	st, err := prep(ctx, workflowsQuery)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []engine.WorkflowRecord
	for rows.Next() {
		var (
			w         engine.WorkflowRecord
			config    string
			converged int
			updated   int64
		)
		if err := rows.Scan(&w.Key, &w.UID, &w.TenantID, &config, &w.OpenRound, &converged, &updated); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(config), &w.Workflow); err != nil {
			return nil, fmt.Errorf("decode workflow %d: %w", w.Key, err)
		}
		w.Converged, w.UpdatedAt = converged == 1, fromNanos(updated)
		out = append(out, w)
	}
	return out, rows.Err()
}

func queryRound(ctx context.Context, prep prepare, key int64, rq engine.RoundQuery) (engine.RoundRecord, bool, error) {
	query, arg := roundQuery, any(rq.Round)
	if rq.AsOf != nil {
		query, arg = roundAsOfQuery, nanos(*rq.AsOf)
	}
	st, err := prep(ctx, query)
	if err != nil {
		return engine.RoundRecord{}, false, err
	}
	row := st.QueryRowContext(ctx, key, arg)
	var (
		r      engine.RoundRecord
		state  string
		report sql.NullString
		closed int64
	)
	err = row.Scan(&r.Round, &state, &report, &closed)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	r.State, r.ClosedAt = []byte(state), fromNanos(closed)
	if report.Valid {
		r.Report = new(snapshot.Report)
		if err := json.Unmarshal([]byte(report.String), r.Report); err != nil {
			return r, false, fmt.Errorf("decode report of workflow %d round %d: %w", key, r.Round, err)
		}
	}
	return r, true, nil
}

func queryDeltas(ctx context.Context, prep prepare, key int64, round int) ([]snapshot.Delta, error) {
	query, args := roundDeltasQuery, []any{key, round}
	if round < 0 {
		query, args = allDeltasQuery, args[:1]
	}
	st, err := prep(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []snapshot.Delta
	for rows.Next() {
		var (
			body   string
			d      snapshot.Delta
			status string
		)
		if err := rows.Scan(&body, &status, &d.Reason); err != nil {
			return nil, err
		}
		reason := d.Reason
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			return nil, fmt.Errorf("decode delta of workflow %d: %w", key, err)
		}
		d.Status, d.Reason = snapshot.Status(status), reason
		out = append(out, d)
	}
	return out, rows.Err()
}

func (b *backend) Workflows(ctx context.Context, tenant, id string) ([]engine.WorkflowRecord, error) {
	return queryWorkflows(ctx, b.prepared, tenant, id)
}

func (b *backend) WorkflowRound(ctx context.Context, key int64, q engine.RoundQuery) (engine.RoundRecord, bool, error) {
	return queryRound(ctx, b.prepared, key, q)
}

func (b *backend) WorkflowDeltas(ctx context.Context, key int64, round int) ([]snapshot.Delta, error) {
	return queryDeltas(ctx, b.prepared, key, round)
}

func (t *writeTx) Workflows(ctx context.Context, tenant, id string) ([]engine.WorkflowRecord, error) {
	return queryWorkflows(ctx, t.stmt, tenant, id)
}

func (t *writeTx) WorkflowRound(ctx context.Context, key int64, q engine.RoundQuery) (engine.RoundRecord, bool, error) {
	return queryRound(ctx, t.stmt, key, q)
}

func (t *writeTx) WorkflowDeltas(ctx context.Context, key int64, round int) ([]snapshot.Delta, error) {
	return queryDeltas(ctx, t.stmt, key, round)
}

func (t *writeTx) OpenRound(ctx context.Context, key int64) (int, bool, error) {
	st, err := t.stmt(ctx, openRoundQuery)
	if err != nil {
		return 0, false, err
	}
	var open int
	err = st.QueryRowContext(ctx, key).Scan(&open)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return open, err == nil, err
}

func (t *writeTx) InsertWorkflow(ctx context.Context, w *engine.WorkflowRecord) error {
	config, err := json.Marshal(w.Workflow)
	if err != nil {
		return err
	}
	return t.db.QueryRowContext(ctx, `INSERT INTO workflows (uid, tenant_id, workflow_id, config, open_round, converged, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`, w.UID, w.TenantID, w.Workflow.WorkflowID, string(config), w.OpenRound,
		boolInt(w.Converged), nanos(w.Workflow.CreatedAt), nanos(w.UpdatedAt)).Scan(&w.Key)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (t *writeTx) InsertRound(ctx context.Context, key int64, r engine.RoundRecord) error {
	var report any
	if r.Report != nil {
		b, err := json.Marshal(r.Report)
		if err != nil {
			return err
		}
		report = string(b)
	}
	_, err := t.db.ExecContext(ctx, `INSERT INTO workflow_rounds (workflow_seq, round, state, report, closed_at) VALUES (?, ?, ?, ?, ?)`,
		key, r.Round, string(r.State), report, nanos(r.ClosedAt))
	return err
}

func (t *writeTx) SetOpenRound(ctx context.Context, key int64, open int, converged bool, at time.Time) error {
	_, err := t.db.ExecContext(ctx, `UPDATE workflows SET open_round = ?, converged = ?, updated_at = ? WHERE seq = ?`,
		open, boolInt(converged), nanos(at), key)
	return err
}

func (t *writeTx) InsertDeltas(ctx context.Context, key int64, ds []snapshot.Delta) ([]bool, error) {
	st, err := t.stmt(ctx, insertDelta)
	if err != nil {
		return nil, err
	}
	inserted := make([]bool, len(ds))
	for i, d := range ds {
		d.Status, d.Reason = "", ""
		body, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		res, err := st.ExecContext(ctx, key, d.Round, d.ID, string(body), snapshot.StatusPending)
		if err != nil {
			return nil, fmt.Errorf("insert delta %s: %w", d.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		inserted[i] = n == 1
	}
	return inserted, nil
}

// SetDeltaStatuses sets the most common outcome of the round with one
// statement and the others one by one: a round of 10,000 deltas is mostly
// applied.
func (t *writeTx) SetDeltaStatuses(ctx context.Context, key int64, ds []snapshot.Delta) error {
	if len(ds) == 0 {
		return nil
	}
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
	if _, err := t.db.ExecContext(ctx, `UPDATE workflow_deltas SET status = ?, reason = ? WHERE workflow_seq = ? AND round = ?`,
		common.status, common.reason, key, ds[0].Round); err != nil {
		return err
	}
	st, err := t.stmt(ctx, setDeltaStatus)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if (outcome{d.Status, d.Reason}) == common {
			continue
		}
		if _, err := st.ExecContext(ctx, d.Status, d.Reason, key, d.ID); err != nil {
			return err
		}
	}
	return nil
}
