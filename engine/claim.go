package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/reconcile"
)

// claim writes a new claim to a reconciled layer.
func (w *writer) claim(ctx context.Context, o tenure.Object) (tenure.WriteResult, error) {
	var targets []tenure.Object
	if o.Supersedes != "" {
		var err error
		if targets, err = w.resolveSupersedes(ctx, &o); err != nil {
			return tenure.WriteResult{}, err
		}
	} else {
		slot, err := w.slot(ctx, &o, nil)
		if err != nil {
			return tenure.WriteResult{}, err
		}
		// A repeated claim confirms the one already held; how often a
		// claim is repeated never changes the outcome of reconciliation.
		for i := range slot {
			x := &slot[i]
			if tenure.SameValue(&o, x) && w.p.CanRead(x) && !tenure.Relate(o.ValidInterval(), x.ValidInterval()).Disjoint() {
				return w.confirm(ctx, *x)
			}
		}
	}
	o.Version = 1
	res, err := w.reconcileAndInsert(ctx, o, targets)
	if err != nil {
		return res, err
	}
	refs := []string{}
	for _, c := range res.Changes {
		if c.To != tenure.StatusActive {
			refs = append(refs, c.Key, c.ObjectID)
		}
	}
	repaired, err := w.repair(ctx, o.ObjectID, refs)
	res.Changes = append(res.Changes, repaired...)
	return res, err
}

// slot returns the active claims competing with o for its slot, other than
// o itself and the explicit targets.
func (w *writer) slot(ctx context.Context, o *tenure.Object, skip []tenure.Object) ([]tenure.Object, error) {
	all, err := w.tx.LatestByKey(ctx, o.TenantID, o.Key, tenure.StatusActive)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, x := range all {
		if x.ObjectID == o.ObjectID || !tenure.SameSlot(o, &x) ||
			slices.ContainsFunc(skip, func(t tenure.Object) bool { return t.ObjectID == x.ObjectID }) {
			continue
		}
		out = append(out, x)
	}
	return out, nil
}

// displacement is a pending status change of an existing claim.
type displacement struct {
	old    tenure.Object
	reason tenure.Reason
}

// reconcileAndInsert runs the reconciliation protocol for o against its
// slot, stores o (version already set) and applies the displacements.
func (w *writer) reconcileAndInsert(ctx context.Context, o tenure.Object, targets []tenure.Object) (tenure.WriteResult, error) {
	slot, err := w.slot(ctx, &o, targets)
	if err != nil {
		return tenure.WriteResult{}, err
	}
	var displace []displacement
	for _, t := range targets {
		displace = append(displace, displacement{t, tenure.ReasonExplicit})
	}
	var (
		wins, ties   []displacement
		strong       *tenure.Object
		strongReason tenure.Reason
		earlier      *tenure.Object
	)
	for i := range slot {
		x := &slot[i]
		v := reconcile.Compare(w.h(), &o, x)
		switch v.Winner {
		case reconcile.NewWins:
			wins = append(wins, displacement{*x, v.Reason})
		case reconcile.Tie:
			ties = append(ties, displacement{*x, v.Reason})
		case reconcile.OldWins:
			if v.Reason == tenure.ReasonValidTime {
				if earlier == nil || x.ValidFrom.Before(earlier.ValidFrom) {
					earlier = x
				}
			} else if strong == nil || reconcile.Prefer(w.h(), x, strong) < 0 {
				strong, strongReason = x, v.Reason
			}
		}
	}
	res := tenure.WriteResult{Outcome: tenure.OutcomeCreated}
	switch {
	case strong != nil:
		o.Status, o.ContradictionStatus = reconcile.Displaced(strongReason)
		o.SupersessionLink = strong.ObjectID
		res.Outcome, res.Reason = tenure.OutcomeOverridden, strongReason
	case len(ties) > 0:
		o.Status, o.ContradictionStatus = reconcile.Displaced(tenure.ReasonUnresolved)
		res.Outcome, res.Reason = tenure.OutcomeQuarantined, tenure.ReasonUnresolved
		displace = append(displace, ties...)
	default:
		displace = append(displace, wins...)
		if earlier != nil {
			// A late-arriving older claim becomes history: it holds until
			// the newer claim took over.
			o.Status, o.ContradictionStatus = reconcile.Displaced(tenure.ReasonValidTime)
			o.SupersessionLink = earlier.ObjectID
			o.ValidUntil = minEnd(o.ValidUntil, earlier.ValidFrom)
			res.Outcome, res.Reason = tenure.OutcomeSuperseded, tenure.ReasonValidTime
		}
	}
	o.IsValid = o.Status == tenure.StatusActive
	if err := w.tx.Insert(ctx, &o); err != nil {
		return res, err
	}
	for _, d := range displace {
		c, err := w.displace(ctx, d, &o)
		if err != nil {
			return res, err
		}
		res.Changes = append(res.Changes, c)
	}
	switch {
	case res.Outcome == tenure.OutcomeQuarantined:
		ids := []string{o.ObjectID}
		for _, t := range ties {
			ids = append(ids, t.old.ObjectID)
		}
		r := tenure.Resolution{ID: w.e.opt.NewID(), TenantID: o.TenantID, Kind: tenure.ResolveConflict, Key: o.Key,
			Slot: o.SlotKey(), ObjectIDs: ids, Reason: tenure.ReasonUnresolved, CreatedAt: w.now}
		if err := w.tx.AddResolution(ctx, r); err != nil {
			return res, err
		}
		res.ResolutionID = r.ID
	case o.Status == tenure.StatusActive:
		if err := w.tx.ResolveSlot(ctx, o.TenantID, o.SlotKey(), o.ObjectID, w.now); err != nil {
			return res, err
		}
		for _, t := range targets {
			if t.SlotKey() != o.SlotKey() {
				if err := w.tx.ResolveSlot(ctx, t.TenantID, t.SlotKey(), o.ObjectID, w.now); err != nil {
					return res, err
				}
			}
		}
	}
	res.Object = o
	return res, nil
}

// displace writes the new version of a claim that lost to o.
func (w *writer) displace(ctx context.Context, d displacement, o *tenure.Object) (tenure.Change, error) {
	from := d.old.Status
	n, err := w.replace(ctx, d.old, func(x *tenure.Object) {
		x.Status, x.ContradictionStatus = reconcile.Displaced(d.reason)
		if from == tenure.StatusQuarantined {
			// A disputed claim never becomes history: it was never settled.
			x.Status = tenure.StatusOverridden
		}
		x.IsValid = false
		if d.reason == tenure.ReasonUnresolved {
			return
		}
		x.SupersessionLink = o.ObjectID
		if d.reason == tenure.ReasonValidTime || d.reason == tenure.ReasonExplicit {
			cut := o.ValidFrom
			if cut.Before(x.ValidFrom) {
				cut = x.ValidFrom
			}
			x.ValidUntil = minEnd(x.ValidUntil, cut)
		}
	})
	return tenure.Change{ObjectID: n.ObjectID, Key: n.Key, Version: n.Version, From: from, To: n.Status, Reason: d.reason}, err
}

// replace closes x's open version and inserts a mutated copy as the next
// version.
func (w *writer) replace(ctx context.Context, x tenure.Object, mutate func(*tenure.Object)) (tenure.Object, error) {
	if err := w.tx.Close(ctx, x.TenantID, x.ObjectID, x.Version, w.now); err != nil {
		return x, err
	}
	n := x.Clone()
	mutate(&n)
	n.Version, n.TxStart, n.TxEnd = x.Version+1, w.now, nil
	return n, w.tx.Insert(ctx, &n)
}

// resolveSupersedes finds the objects o explicitly supersedes: the object
// with that id, or every active or quarantined claim under that key, in o's
// own scope.
func (w *writer) resolveSupersedes(ctx context.Context, o *tenure.Object) ([]tenure.Object, error) {
	ref := o.Supersedes
	var targets []tenure.Object
	x, ok, err := w.tx.Latest(ctx, o.TenantID, ref)
	if err != nil {
		return nil, err
	}
	byID := ok && w.p.CanRead(&x)
	if byID {
		if (x.Status == tenure.StatusActive || x.Status == tenure.StatusQuarantined) && sameScope(o, &x) {
			targets = append(targets, x)
		}
	} else {
		live, err := w.tx.LatestByKey(ctx, o.TenantID, ref, tenure.StatusActive, tenure.StatusQuarantined)
		if err != nil {
			return nil, err
		}
		for _, x := range live {
			if w.p.CanRead(&x) && sameScope(o, &x) {
				targets = append(targets, x)
			}
		}
	}
	if len(targets) == 0 {
		return nil, w.noTarget(ctx, o, ref, byID, x)
	}
	for i := range targets {
		if targets[i].ObjectID == o.ObjectID {
			return nil, tenure.Errorf(tenure.CodeInvalid, "supersedes", "an object cannot supersede itself")
		}
		if ok, why := reconcile.MayDisplace(w.h(), w.p, o.Level(), &targets[i]); !ok {
			return nil, tenure.Errorf(tenure.CodeForbidden, "supersedes", "%q is held at a higher authority (%s: level %d, written by %s); a principal cannot supersede it",
				ref, why, targets[i].Level(), targets[i].AuthorAuthority)
		}
	}
	o.Supersedes = targets[0].ObjectID
	return targets, nil
}

// noTarget explains why supersedes names nothing that can be superseded.
func (w *writer) noTarget(ctx context.Context, o *tenure.Object, ref string, byID bool, x tenure.Object) error {
	if !byID {
		all, err := w.tx.LatestByKey(ctx, o.TenantID, ref)
		if err != nil {
			return err
		}
		found := false
		for _, y := range all {
			if w.p.CanRead(&y) {
				x, found = y, true
				if sameScope(o, &y) {
					break
				}
			}
		}
		if !found {
			return tenure.Errorf(tenure.CodeNotFound, "supersedes", "no object with id or key %q", ref)
		}
	}
	if !sameScope(o, &x) {
		return tenure.Errorf(tenure.CodeInvalid, "supersedes", "%q is in a different scope; an object supersedes only objects of its own scope (a hypothetical or draft object never supersedes global ones)", ref)
	}
	return tenure.Errorf(tenure.CodeConflict, "supersedes", "%q is already %s (by %q); supersede the current object instead", ref, x.Status, x.SupersessionLink)
}

func sameScope(a, b *tenure.Object) bool {
	return a.UserID == b.UserID && a.ProjectID == b.ProjectID && a.SessionID == b.SessionID &&
		a.TaskID == b.TaskID && a.Scope.Sandboxed() == b.Scope.Sandboxed() &&
		(!a.Scope.Sandboxed() || a.ScopeID == b.ScopeID)
}

// repair flags every object that (transitively) depends on refs with
// needs_review.
func (w *writer) repair(ctx context.Context, self string, refs []string) ([]tenure.Change, error) {
	var changes []tenure.Change
	seen := map[string]bool{}
	for len(refs) > 0 {
		ref := refs[0]
		refs = refs[1:]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		deps, err := w.tx.Dependents(ctx, w.p.TenantID, ref)
		if err != nil {
			return changes, err
		}
		for _, d := range deps {
			if d.ObjectID == self {
				continue
			}
			refs = append(refs, d.Key, d.ObjectID)
			if d.NeedsReview || !d.Holds() {
				continue
			}
			n, err := w.replace(ctx, d, func(x *tenure.Object) { x.NeedsReview = true })
			if err != nil {
				return changes, err
			}
			changes = append(changes, tenure.Change{ObjectID: n.ObjectID, Key: n.Key, Version: n.Version,
				From: d.Status, To: n.Status, Reason: tenure.ReasonDependency, NeedsReview: true})
		}
	}
	return changes, nil
}

// redact removes from a write result what the principal may not read.
func (w *writer) redact(ctx context.Context, r *tenure.WriteResult) {
	visible := func(id string) bool {
		x, ok, err := w.tx.Latest(ctx, r.Object.TenantID, id)
		return err == nil && ok && w.p.CanRead(&x)
	}
	if r.Object.SupersessionLink != "" && !visible(r.Object.SupersessionLink) {
		r.Object.SupersessionLink = ""
	}
	r.Changes = slices.DeleteFunc(r.Changes, func(c tenure.Change) bool { return !visible(c.ObjectID) })
}

func minEnd(until *time.Time, t time.Time) *time.Time {
	if until != nil && until.Before(t) {
		return until
	}
	return &t
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
