package engine

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure"
)

// Retire implements tenure.Retirer.
func (e *Engine) Retire(ctx context.Context, p tenure.Principal, opt tenure.RetireOptions) (tenure.RetireReport, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{Scope: opt.Scope})
	if err != nil {
		return tenure.RetireReport{}, fmt.Errorf("retire: %w", err)
	}
	if opt.Rule != "" {
		if _, err := tenure.ParseVocab("rule", string(opt.Rule), tenure.RetirementRules); err != nil {
			return tenure.RetireReport{}, fmt.Errorf("retire: %w", err)
		}
		if len(opt.ObjectIDs) == 0 {
			return tenure.RetireReport{}, fmt.Errorf("retire: %w", tenure.Errorf(tenure.CodeInvalid, "rule",
				"applies only with object_ids; the sweep uses each object's own retirement_rule"))
		}
	} else if len(opt.ObjectIDs) > 0 {
		opt.Rule = tenure.RetireArchive
	}
	var report tenure.RetireReport
	err = e.inTx(ctx, "retire", func(tx Tx, clk *txClock) error {
		w := &writer{e: e, tx: tx, p: p, clk: clk}
		w.now = clk.next(e.opt.Now())
		report = tenure.RetireReport{At: w.now, DryRun: opt.DryRun, Actions: []tenure.RetireAction{}}
		plan, scanned, err := w.retirePlan(ctx, s, opt)
		if err != nil {
			return err
		}
		report.Scanned = scanned
		for _, a := range plan {
			if !opt.DryRun {
				if err := w.retireOne(ctx, &a); err != nil {
					return err
				}
			}
			report.Actions = append(report.Actions, a.action)
		}
		return nil
	})
	if err != nil {
		return tenure.RetireReport{}, err
	}
	return report, nil
}

type retirement struct {
	obj    tenure.Object
	action tenure.RetireAction
}

// retirePlan decides what to retire: the named objects, or every visible
// decayed or expired object.
func (w *writer) retirePlan(ctx context.Context, s tenure.Scope, opt tenure.RetireOptions) ([]retirement, int, error) {
	var plan []retirement
	if len(opt.ObjectIDs) > 0 {
		for i, id := range opt.ObjectIDs {
			x, ok, err := w.tx.Latest(ctx, w.p.TenantID, id)
			if err != nil {
				return nil, 0, err
			}
			field := fmt.Sprintf("object_ids[%d]", i)
			if !ok || !tenure.Visible(w.p, s, &x) {
				return nil, 0, tenure.Errorf(tenure.CodeNotFound, field, "no object %q", id)
			}
			if w.h().Rank(x.AuthorAuthority) > w.h().Rank(w.p.Authority) {
				return nil, 0, tenure.Errorf(tenure.CodeForbidden, field, "%q was written by a higher authority (%s)", id, x.AuthorAuthority)
			}
			plan = append(plan, retirement{x, tenure.RetireAction{ObjectID: id, Key: x.Key, Rule: opt.Rule,
				Reason: tenure.ReasonRequested, Weight: x.DecayWeight(w.now)}})
		}
		return plan, len(opt.ObjectIDs), nil
	}
	scanned := 0
	q := ListQuery{RetireDue: true, RetireDueAt: w.now}
	err := w.e.scan(ctx, w.p.TenantID, q, func(x tenure.Object) bool {
		if !tenure.Visible(w.p, s, &x) {
			return true
		}
		scanned++
		a := tenure.RetireAction{ObjectID: x.ObjectID, Key: x.Key, Rule: x.RetirementRule, Weight: x.DecayWeight(w.now)}
		switch {
		case x.Layer == tenure.LayerWorkingSet && x.ValidUntil != nil && !w.now.Before(*x.ValidUntil):
			a.Reason, a.Rule = tenure.ReasonExpired, ""
		case x.Decayed(w.now):
			a.Reason = tenure.ReasonDecayed
			if a.Rule == "" {
				a.Rule = tenure.RetireArchive
			}
		case x.ValidUntil != nil && !w.now.Before(*x.ValidUntil) && x.RetirementRule != "":
			a.Reason = tenure.ReasonExpired
		default:
			return true
		}
		if a.Rule == tenure.RetireDemoteToArchival && x.Tier == tenure.TierArchival {
			return true
		}
		plan = append(plan, retirement{x, a})
		return true
	})
	return plan, scanned, err
}

// retireOne applies one retirement.
func (w *writer) retireOne(ctx context.Context, r *retirement) error {
	x := r.obj
	displaced := true
	switch {
	case r.action.Rule == "": // an expired working-set item
		if _, err := w.replace(ctx, x, func(n *tenure.Object) { n.Status, n.IsValid = tenure.StatusCleared, false }); err != nil {
			return err
		}
	case r.action.Rule == tenure.RetireArchive:
		if _, err := w.replace(ctx, x, func(n *tenure.Object) { n.Status, n.IsValid = tenure.StatusArchived, false }); err != nil {
			return err
		}
	case r.action.Rule == tenure.RetireDemoteToArchival:
		displaced = false
		if _, err := w.replace(ctx, x, func(n *tenure.Object) { n.Tier = tenure.TierArchival }); err != nil {
			return err
		}
	case r.action.Rule == tenure.RetireHardDelete:
		t := tenure.Tombstone{ObjectID: x.ObjectID, Key: x.Key, Versions: x.Version, DeletedAt: w.now,
			DeletedBy: w.p.UserID, Reason: r.action.Reason, Audience: &tenure.Object{TenantID: x.TenantID, UserID: x.UserID, PersonaID: x.PersonaID,
				SecurityClassification: x.SecurityClassification, PermissionScope: x.PermissionScope}}
		if err := w.tx.Delete(ctx, x.TenantID, t); err != nil {
			return err
		}
	case r.action.Rule == tenure.RetireConfirm:
		displaced = false
		id, open, err := w.tx.OpenResolution(ctx, x.TenantID, tenure.ResolveConfirmation, x.ObjectID)
		if err != nil {
			return err
		}
		if !open {
			id = w.e.opt.NewID()
			res := tenure.Resolution{ID: id, TenantID: x.TenantID, Kind: tenure.ResolveConfirmation, Key: x.Key,
				Slot: x.SlotKey(), ObjectIDs: []string{x.ObjectID}, Reason: r.action.Reason, CreatedAt: w.now}
			if err := w.tx.AddResolution(ctx, res); err != nil {
				return err
			}
			if !x.NeedsReview {
				if _, err := w.replace(ctx, x, func(n *tenure.Object) { n.NeedsReview = true }); err != nil {
					return err
				}
			}
		}
		r.action.ResolutionID = id
	}
	if displaced {
		_, err := w.repair(ctx, x.ObjectID, []tenure.Object{x})
		return err
	}
	return nil
}

// EndSession implements tenure.Retirer.
func (e *Engine) EndSession(ctx context.Context, p tenure.Principal, sessionID string) (int, error) {
	p, err := e.principal(p)
	if err != nil {
		return 0, fmt.Errorf("end session: %w", err)
	}
	if sessionID == "" {
		return 0, fmt.Errorf("end session: %w", tenure.Errorf(tenure.CodeInvalid, "session_id", "required"))
	}
	s, err := tenure.Scope{SessionID: sessionID}.Resolve(p)
	if err != nil {
		return 0, fmt.Errorf("end session: %w", err)
	}
	n := 0
	err = e.inTx(ctx, "end session", func(tx Tx, clk *txClock) error {
		w := &writer{e: e, tx: tx, p: p, clk: clk}
		w.now = clk.next(e.opt.Now())
		items, err := tx.LatestInSession(ctx, p.TenantID, sessionID, tenure.LayerWorkingSet)
		if err != nil {
			return err
		}
		for _, x := range items {
			if x.Status != tenure.StatusActive || !tenure.Visible(p, s, &x) {
				continue
			}
			if _, err := w.replace(ctx, x, func(n *tenure.Object) { n.Status, n.IsValid = tenure.StatusCleared, false }); err != nil {
				return err
			}
			n++
		}
		// The session's records end now, whichever thread they are in.
		recs, err := tx.Sessions(ctx, p.TenantID, SessionFilter{Users: usersOf(s), Personas: []string{p.PersonaID}, SessionID: sessionID, Open: true})
		if err != nil {
			return err
		}
		for _, r := range recs {
			r.EndedAt = &w.now
			if err := tx.PutSession(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// Resolutions implements tenure.Retirer. Only requests all of whose
// objects the principal can see are listed (a deleted object is seen by
// no one).
func (e *Engine) Resolutions(ctx context.Context, p tenure.Principal, open bool) ([]tenure.Resolution, error) {
	p, err := e.principal(p)
	if err != nil {
		return nil, fmt.Errorf("resolutions: %w", err)
	}
	all, err := e.b.Resolutions(ctx, p.TenantID, open)
	if err != nil {
		return nil, wrap("resolutions", err)
	}
	out := []tenure.Resolution{}
	for _, r := range all {
		ok := true
		for _, id := range r.ObjectIDs {
			vs, err := e.b.ObjectVersions(ctx, p.TenantID, id, nil)
			if err != nil {
				return nil, wrap("resolutions", err)
			}
			if len(vs) == 0 || !p.CanSee(&vs[len(vs)-1]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}
