package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
	"github.com/tenure-dev/tenure/snapshot"
)

// Workflow snapshots (docs/snapshots.md): the engine resolves workflows
// as principals see them, checks and stores deltas, and closes rounds with
// package snapshot's aggregation.

var _ snapshot.Store = (*Engine)(nil)

// MaxDeltasPerSubmit bounds one submission.
const MaxDeltasPerSubmit = 1000

// stateKey names a closed round's state in the cache.
type stateKey struct {
	workflow int64
	round    int
}

// StartWorkflow implements snapshot.Store.
func (e *Engine) StartWorkflow(ctx context.Context, p tenure.Principal, w snapshot.Workflow) (snapshot.Snapshot, error) {
	snap, err := e.startWorkflow(ctx, p, w)
	if err != nil {
		return snapshot.Snapshot{}, fmt.Errorf("start workflow: %w", err)
	}
	return snap, nil
}

func (e *Engine) startWorkflow(ctx context.Context, p tenure.Principal, w snapshot.Workflow) (snapshot.Snapshot, error) {
	p, err := e.principal(p)
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	if w.CreatedBy != "" || !w.CreatedAt.IsZero() {
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeInvalid, "createdBy", "set by the store")
	}
	if p.UserID == "" {
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeForbidden, "", "a principal that acts as no user cannot start a workflow: its creator closes its rounds")
	}
	w = w.WithDefaults()
	if err := w.Validate(); err != nil {
		return snapshot.Snapshot{}, err
	}
	if w.UserID != "" && w.UserID != p.UserID && !p.HasPermission(tenure.PermAnyUser) {
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeForbidden, "userId", "principal %q may not act for user %q", p.UserID, w.UserID)
	}
	if !p.CanSee(w.Audience(p.TenantID)) {
		field := "allowRoles"
		if w.SecurityClassification.Rank() > p.Clearance.Rank() {
			field = "securityClassification"
		}
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeForbidden, field, "you could not see this workflow: its classification or roles exclude you")
	}
	now := e.opt.Now().UTC()
	w.CreatedBy, w.CreatedAt = p.UserID, now
	rec := WorkflowRecord{UID: e.opt.NewID(), TenantID: p.TenantID, Workflow: w, OpenRound: 1, UpdatedAt: now}
	state := snapshot.InitialState(w.Query)
	body, err := snapshot.Canonical(state)
	if err != nil {
		return snapshot.Snapshot{}, tenure.Internal("encode state", err)
	}
	round := RoundRecord{Round: 0, State: body, ClosedAt: now}
	err = e.withTx(ctx, "", func(tx Tx) error {
		if _, ok, err := e.visibleWorkflow(ctx, tx, p, w.WorkflowID); err != nil || ok {
			if err == nil {
				err = tenure.Errorf(tenure.CodeConflict, "workflowId", "a workflow named %q exists", w.WorkflowID)
			}
			return err
		}
		if err := tx.InsertWorkflow(ctx, &rec); err != nil {
			return err
		}
		return tx.InsertRound(ctx, rec.Key, round)
	})
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	e.opt.Logger.Debug("workflow.started", "workflow", w.WorkflowID, "tenant", p.TenantID)
	return e.snapshotOf(rec, round, state, nil), nil
}

// visibleWorkflow returns the first workflow named id that p can see.
func (e *Engine) visibleWorkflow(ctx context.Context, r WorkflowReader, p tenure.Principal, id string) (WorkflowRecord, bool, error) {
	recs, err := r.Workflows(ctx, p.TenantID, id)
	if err != nil {
		return WorkflowRecord{}, false, err
	}
	for _, rec := range recs {
		if p.CanSee(rec.Workflow.Audience(rec.TenantID)) {
			return rec, true, nil
		}
	}
	return WorkflowRecord{}, false, nil
}

// workflow resolves the workflow named id for p: a workflow p cannot see
// answers exactly like a missing one.
func (e *Engine) workflow(ctx context.Context, r WorkflowReader, p tenure.Principal, id string) (WorkflowRecord, error) {
	if err := tenure.CheckID("workflowId", id, true); err != nil {
		return WorkflowRecord{}, err
	}
	rec, ok, err := e.visibleWorkflow(ctx, r, p, id)
	if err != nil {
		return rec, err
	}
	if !ok {
		return rec, tenure.Errorf(tenure.CodeNotFound, "workflowId", "no workflow %q", id)
	}
	return rec, nil
}

// state returns a closed round's state, decoded once and cached: a
// closed round never changes. Callers must not modify it.
func (e *Engine) state(ctx context.Context, r WorkflowReader, rec WorkflowRecord, round int) (map[string]any, RoundRecord, error) {
	rr, ok, err := r.WorkflowRound(ctx, rec.Key, RoundQuery{Round: round})
	if err != nil {
		return nil, rr, err
	}
	if !ok {
		return nil, rr, tenure.Errorf(tenure.CodeInternal, "", "workflow %s has no round %d", rec.Workflow.WorkflowID, round)
	}
	st, err := e.decodeState(rec, rr)
	return st, rr, err
}

func (e *Engine) decodeState(rec WorkflowRecord, rr RoundRecord) (map[string]any, error) {
	key := stateKey{rec.Key, rr.Round}
	if st, ok := e.states.Get(key); ok {
		return st, nil
	}
	v, err := snapshot.Decode(rr.State)
	st, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, tenure.Internal(fmt.Sprintf("decode state of workflow %s round %d", rec.Workflow.WorkflowID, rr.Round), err)
	}
	e.states.Add(key, st)
	return st, nil
}

// SubmitDeltas implements snapshot.Store.
func (e *Engine) SubmitDeltas(ctx context.Context, p tenure.Principal, workflowID string, ds []snapshot.Delta) (snapshot.SubmitResult, error) {
	res, err := e.submitDeltas(ctx, p, workflowID, ds)
	if err != nil {
		return snapshot.SubmitResult{}, fmt.Errorf("submit deltas: %w", err)
	}
	return res, nil
}

func (e *Engine) submitDeltas(ctx context.Context, p tenure.Principal, workflowID string, ds []snapshot.Delta) (snapshot.SubmitResult, error) {
	p, err := e.principal(p)
	if err != nil {
		return snapshot.SubmitResult{}, err
	}
	switch {
	case len(ds) == 0:
		return snapshot.SubmitResult{}, tenure.Errorf(tenure.CodeInvalid, "", "no deltas")
	case len(ds) > MaxDeltasPerSubmit:
		return snapshot.SubmitResult{}, tenure.Errorf(tenure.CodeTooLarge, "", "%d deltas: at most %d per submission", len(ds), MaxDeltasPerSubmit)
	}
	rec, err := e.workflow(ctx, e.b, p, workflowID)
	if err != nil {
		return snapshot.SubmitResult{}, err
	}
	base, _, err := e.state(ctx, e.b, rec, rec.OpenRound-1)
	if err != nil {
		return snapshot.SubmitResult{}, err
	}
	out := make([]snapshot.Delta, len(ds))
	for i, d := range ds {
		if err := e.checkDelta(p, rec, base, &d); err != nil {
			return snapshot.SubmitResult{}, jsonx.Under("["+strconv.Itoa(i)+"]", err)
		}
		d.ID = snapshot.DeltaID(rec.UID, d)
		out[i] = d
	}
	res := snapshot.SubmitResult{WorkflowID: workflowID, Round: rec.OpenRound, Deltas: out}
	err = e.withTx(ctx, "", func(tx Tx) error {
		open, ok, err := tx.OpenRound(ctx, rec.Key)
		if err != nil {
			return err
		}
		if !ok {
			return tenure.Errorf(tenure.CodeNotFound, "workflowId", "no workflow %q", workflowID)
		}
		if open != rec.OpenRound {
			return jsonx.Under("[0]", roundError(rec.OpenRound, open))
		}
		inserted, err := tx.InsertDeltas(ctx, rec.Key, out)
		if err != nil {
			return err
		}
		for _, in := range inserted {
			if in {
				res.Accepted++
			} else {
				res.Duplicates++
			}
		}
		return nil
	})
	if err != nil {
		return snapshot.SubmitResult{}, err
	}
	return res, nil
}

// checkDelta validates one delta for the workflow's open round and fills
// what the store sets.
func (e *Engine) checkDelta(p tenure.Principal, rec WorkflowRecord, base map[string]any, d *snapshot.Delta) error {
	switch {
	case d.ID != "" || d.Status != "" || d.Reason != "" || len(d.Targets) > 0 || len(d.AgentRoles) > 0 || !d.SubmittedAt.IsZero():
		return tenure.Errorf(tenure.CodeInvalid, "id", "id, agentRoles, submittedAt, targets, status and reason are set by the store")
	case p.UserID == "":
		return tenure.Errorf(tenure.CodeInvalid, "agentId", "required: a delta's agent is its caller, and this principal acts as no user")
	case d.AgentID == "":
		d.AgentID = p.UserID
	case d.AgentID != p.UserID:
		return tenure.Errorf(tenure.CodeForbidden, "agentId", "a delta's agent is the calling principal (%q): it cannot write as %q", p.UserID, d.AgentID)
	}
	if err := d.Check(); err != nil {
		return err
	}
	if d.Round != rec.OpenRound {
		return roundError(d.Round, rec.OpenRound)
	}
	targets, err := snapshot.Expand(base, d, rec.Workflow.MaxStateSize)
	if err != nil {
		return err
	}
	d.Targets, d.AgentRoles, d.Status = targets, slices.Clone(p.Roles), snapshot.StatusPending
	d.SubmittedAt = e.opt.Now().UTC()
	return nil
}

// roundError refuses a delta for a round that is not open: rounds only
// increase.
func roundError(round, open int) error {
	if round < open {
		return tenure.Errorf(tenure.CodeConflict, "round", "round %d is closed: the open round is %d (rounds only increase)", round, open)
	}
	return tenure.Errorf(tenure.CodeConflict, "round", "round %d is not open yet: the open round is %d", round, open)
}

// CloseRound implements snapshot.Store.
func (e *Engine) CloseRound(ctx context.Context, p tenure.Principal, workflowID string, round int) (snapshot.Snapshot, error) {
	snap, err := e.closeRound(ctx, p, workflowID, round)
	if err != nil {
		return snapshot.Snapshot{}, fmt.Errorf("close round: %w", err)
	}
	return snap, nil
}

func (e *Engine) closeRound(ctx context.Context, p tenure.Principal, workflowID string, want int) (snapshot.Snapshot, error) {
	p, err := e.principal(p)
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	if want < 0 {
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeInvalid, "round", "must be the open round, or 0 for whichever is open; got %d", want)
	}
	if _, err := e.workflow(ctx, e.b, p, workflowID); err != nil {
		return snapshot.Snapshot{}, err
	}
	var (
		rec   WorkflowRecord
		round RoundRecord
		res   snapshot.Result
	)
	err = e.withTx(ctx, "", func(tx Tx) error {
		var err error
		if rec, err = e.workflow(ctx, tx, p, workflowID); err != nil {
			return err
		}
		if w := rec.Workflow; (p.UserID == "" || w.CreatedBy != p.UserID) && !p.HasPermission(tenure.PermAnyUser) {
			return tenure.Errorf(tenure.CodeForbidden, "workflowId", "only the workflow's creator (%q) or a principal holding %s closes its rounds",
				w.CreatedBy, tenure.PermAnyUser)
		}
		if want > 0 && want != rec.OpenRound {
			return tenure.Errorf(tenure.CodeConflict, "round", "round %d is not open (round %d is): nothing was closed", want, rec.OpenRound)
		}
		base, _, err := e.state(ctx, tx, rec, rec.OpenRound-1)
		if err != nil {
			return err
		}
		deltas, err := tx.WorkflowDeltas(ctx, rec.Key, rec.OpenRound)
		if err != nil {
			return err
		}
		if res, err = snapshot.Aggregate(base, deltas, rec.Workflow); err != nil {
			return err
		}
		body, err := snapshot.Canonical(res.State)
		if err != nil {
			return tenure.Internal("encode state", err)
		}
		now := e.opt.Now().UTC()
		round = RoundRecord{Round: rec.OpenRound, State: body, Report: &res.Report, ClosedAt: now}
		if err := tx.InsertRound(ctx, rec.Key, round); err != nil {
			return err
		}
		if err := tx.SetDeltaStatuses(ctx, rec.Key, res.Deltas); err != nil {
			return err
		}
		rec.OpenRound, rec.Converged = rec.OpenRound+1, res.Report.Converged
		return tx.SetOpenRound(ctx, rec.Key, rec.OpenRound, rec.Converged, now)
	})
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	rep := res.Report
	e.opt.Logger.Info("workflow.round.closed", "workflow", workflowID, "round", round.Round, "deltas", rep.Deltas,
		"applied", rep.Applied, "lost", rep.Lost, "clipped", rep.Clipped+rep.Rejected, "changes", len(rep.Changes), "converged", rep.Converged)
	return e.snapshotOf(rec, round, res.State, res.Deltas), nil
}

// snapshotOf assembles a snapshot.
func (e *Engine) snapshotOf(rec WorkflowRecord, rr RoundRecord, state map[string]any, deltas []snapshot.Delta) snapshot.Snapshot {
	w := rec.Workflow
	if deltas == nil {
		deltas = []snapshot.Delta{}
	}
	converged := rr.Report != nil && rr.Report.Converged
	return snapshot.Snapshot{Meta: snapshot.Meta{ID: rec.UID + "-r" + strconv.Itoa(rr.Round), WorkflowID: w.WorkflowID,
		Round: rr.Round, OpenRound: rec.OpenRound, Timestamp: rr.ClosedAt, StateSize: len(rr.State), MaxStateSize: w.MaxStateSize,
		Converged: converged, Workflow: &w, Report: rr.Report, Deltas: deltas}, State: state}
}

// Snapshot implements snapshot.Store.
func (e *Engine) Snapshot(ctx context.Context, p tenure.Principal, workflowID string, q snapshot.Read) (snapshot.Snapshot, error) {
	snap, err := e.snapshot(ctx, p, workflowID, q)
	if err != nil {
		return snapshot.Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	return snap, nil
}

func (e *Engine) snapshot(ctx context.Context, p tenure.Principal, workflowID string, q snapshot.Read) (snapshot.Snapshot, error) {
	p, err := e.principal(p)
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	rec, err := e.workflow(ctx, e.b, p, workflowID)
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	rq := RoundQuery{Round: rec.OpenRound - 1, AsOf: q.AsOf}
	switch {
	case q.Round != nil && q.AsOf != nil:
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeInvalid, "round", "give a round or a time (asOf), not both")
	case q.Round != nil && *q.Round < 0:
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeInvalid, "round", "must be 0 or more, got %d", *q.Round)
	case q.Round != nil && *q.Round >= rec.OpenRound:
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeNotFound, "round", "round %d is not closed: the latest closed round is %d", *q.Round, rec.OpenRound-1)
	case q.Round != nil:
		rq.Round = *q.Round
	}
	rr, ok, err := e.b.WorkflowRound(ctx, rec.Key, rq)
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	if !ok {
		return snapshot.Snapshot{}, tenure.Errorf(tenure.CodeNotFound, "asOf", "no round of workflow %q had closed by then", workflowID)
	}
	state, err := e.decodeState(rec, rr)
	if err != nil {
		return snapshot.Snapshot{}, err
	}
	var deltas []snapshot.Delta
	if !q.OmitDeltas && rr.Round > 0 {
		if deltas, err = e.b.WorkflowDeltas(ctx, rec.Key, rr.Round); err != nil {
			return snapshot.Snapshot{}, err
		}
		snapshot.Sort(deltas)
	}
	return e.snapshotOf(rec, rr, snapshot.CloneState(state), deltas), nil
}

// Binding implements snapshot.Store.
func (e *Engine) Binding(ctx context.Context, p tenure.Principal, workflowID, term string) (snapshot.Binding, error) {
	snap, err := e.snapshot(ctx, p, workflowID, snapshot.Read{OmitDeltas: true})
	if err != nil {
		return snapshot.Binding{}, fmt.Errorf("binding: %w", err)
	}
	id, ok := snap.Bindings()[term]
	if !ok {
		return snapshot.Binding{}, fmt.Errorf("binding: %w", tenure.Errorf(tenure.CodeNotFound, "term", "no binding for %q in round %d", term, snap.Round))
	}
	return snapshot.Binding{WorkflowID: workflowID, Round: snap.Round, Term: term, ConceptID: id}, nil
}

// PathHistory implements snapshot.Store.
func (e *Engine) PathHistory(ctx context.Context, p tenure.Principal, workflowID, path string) (snapshot.PathHistory, error) {
	h, err := e.pathHistory(ctx, p, workflowID, path)
	if err != nil {
		return snapshot.PathHistory{}, fmt.Errorf("path history: %w", err)
	}
	return h, nil
}

func (e *Engine) pathHistory(ctx context.Context, p tenure.Principal, workflowID, path string) (snapshot.PathHistory, error) {
	p, err := e.principal(p)
	if err != nil {
		return snapshot.PathHistory{}, err
	}
	m, err := snapshot.NewMatcher(path)
	if err != nil {
		return snapshot.PathHistory{}, err
	}
	rec, err := e.workflow(ctx, e.b, p, workflowID)
	if err != nil {
		return snapshot.PathHistory{}, err
	}
	all, err := e.b.WorkflowDeltas(ctx, rec.Key, -1)
	if err != nil {
		return snapshot.PathHistory{}, err
	}
	h := snapshot.PathHistory{WorkflowID: workflowID, Path: path, Deltas: []snapshot.Delta{}}
	for len(all) > 0 {
		n := 1
		for n < len(all) && all[n].Round == all[0].Round {
			n++
		}
		round, rest := all[:n], all[n:]
		all = rest
		var base, after map[string]any
		if m.NeedsState() {
			if base, _, err = e.state(ctx, e.b, rec, round[0].Round-1); err != nil {
				return h, err
			}
			if round[0].Round < rec.OpenRound {
				if after, _, err = e.state(ctx, e.b, rec, round[0].Round); err != nil {
					return h, err
				}
			}
		}
		matched := m.Match(round, base, after)
		snapshot.Sort(matched)
		h.Deltas = append(h.Deltas, matched...)
	}
	return h, nil
}
