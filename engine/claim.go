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
		// (Only under its own key: the same value under another key is
		// another object that agrees with it.)
		for i := range slot {
			x := &slot[i]
			if x.Key == o.Key && tenure.SameValue(&o, x) && w.p.CanRead(x) && !tenure.Relate(o.ValidInterval(), x.ValidInterval()).Disjoint() {
				return w.confirm(ctx, *x)
			}
		}
	}
	o.Version = 1
	res, displaced, err := w.reconcileAndInsert(ctx, o, targets)
	if err != nil {
		return res, err
	}
	repaired, err := w.repair(ctx, o.ObjectID, displaced)
	res.Changes = append(res.Changes, repaired...)
	return res, err
}

// slot returns the active claims competing with o for its slot, other than
// o itself and the explicit targets: those for its key in its scope and,
// when o names an attribute of an entity, those about the same resolved
// entity's same attribute in its scope, whatever their keys.
func (w *writer) slot(ctx context.Context, o *tenure.Object, skip []tenure.Object) ([]tenure.Object, error) {
	all, err := w.tx.LatestByKey(ctx, o.TenantID, o.Key, tenure.StatusActive)
	if err != nil {
		return nil, err
	}
	byAttr, err := w.attributeClaims(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, x := range byAttr {
		if x.Key != o.Key {
			all = append(all, x)
		}
	}
	out := all[:0]
	for _, x := range all {
		if x.ObjectID == o.ObjectID || (x.Key == o.Key && !tenure.SameSlot(o, &x)) ||
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
// slot, stores o (version already set) and applies the displacements; it
// returns the new versions of the claims o displaced.
//
// A claim decides another's outcome only when it covers it (see covers):
// o displaces, quarantines or becomes history behind a claim only if
// everyone who reads the one that changes can read the one that caused
// it; and o's own outcome, which its writer is told, is decided only by
// claims the writer can see (a principal may write a claim it cannot
// read). Claims not every reader can see never displace each other; they
// coexist, and each reader sees the preferred claim among those it can
// read (Engine.best, and the compiler's one claim per key). So no outcome,
// and no link, ever reveals a claim to someone who cannot read it.
func (w *writer) reconcileAndInsert(ctx context.Context, o tenure.Object, targets []tenure.Object) (tenure.WriteResult, []tenure.Object, error) {
	slot, err := w.slot(ctx, &o, targets)
	if err != nil {
		return tenure.WriteResult{}, nil, err
	}
	var displace []displacement
	for _, t := range targets {
		displace = append(displace, displacement{t, tenure.ReasonExplicit})
	}
	res, more, ties := w.decide(&o, slot)
	displace = append(displace, more...)
	if err := w.tx.Insert(ctx, &o); err != nil {
		return res, nil, err
	}
	return w.settle(ctx, &o, res, displace, ties, targets)
}

// decide runs the reconciliation protocol for o against the claims of its
// slot: it sets o's outcome (status, contradiction status, supersession
// link, valid-until) and returns the claims o displaces and those it ties
// with (both quarantined).
func (w *writer) decide(o *tenure.Object, slot []tenure.Object) (tenure.WriteResult, []displacement, []displacement) {
	var (
		displace, wins, ties []displacement
		strong               *tenure.Object
		strongReason         tenure.Reason
		earlier              *tenure.Object
	)
	for i := range slot {
		x := &slot[i]
		v := reconcile.Compare(w.h(), o, x)
		switch v.Winner {
		case reconcile.NewWins:
			if covers(o, x) {
				wins = append(wins, displacement{*x, v.Reason})
			}
		case reconcile.Tie:
			if covers(o, x) && covers(x, o) && w.sees(x) {
				ties = append(ties, displacement{*x, v.Reason})
			}
		case reconcile.OldWins:
			if !covers(x, o) || !w.sees(x) {
				continue
			}
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
		ties = nil
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
	return res, displace, ties
}

// sees reports whether o's outcome may depend on x: only claims the
// writer can see decide what it is told (see reconcileAndInsert). A
// merge's re-reconciliation tells no writer and sees every claim.
func (w *writer) sees(x *tenure.Object) bool { return w.seeAll || w.p.CanSee(x) }

// settle applies the displacements of o (stored already) and files or
// closes its slot's conflicts; it returns the new versions of the claims
// o displaced.
func (w *writer) settle(ctx context.Context, o *tenure.Object, res tenure.WriteResult, displace, ties []displacement, targets []tenure.Object) (tenure.WriteResult, []tenure.Object, error) {
	var displaced []tenure.Object
	for _, d := range displace {
		n, err := w.displace(ctx, d, o)
		if err != nil {
			return res, nil, err
		}
		res.Changes = append(res.Changes, tenure.Change{ObjectID: n.ObjectID, Key: n.Key, Version: n.Version,
			From: d.old.Status, To: n.Status, Reason: d.reason})
		if n.Status != tenure.StatusActive {
			displaced = append(displaced, n)
		}
	}
	slotKeys, err := w.slotKeys(ctx, o)
	if err != nil {
		return res, nil, err
	}
	switch {
	case res.Outcome == tenure.OutcomeQuarantined:
		ids, slot := []string{o.ObjectID}, o.SlotKey()
		for _, t := range ties {
			ids = append(ids, t.old.ObjectID)
			if t.old.Key != o.Key {
				// A conflict across keys is filed under the entity slot.
				slot = slotKeys[0]
			}
		}
		r := tenure.Resolution{ID: w.e.opt.NewID(), TenantID: o.TenantID, Kind: tenure.ResolveConflict, Key: o.Key,
			Slot: slot, ObjectIDs: ids, Reason: tenure.ReasonUnresolved, CreatedAt: w.now}
		if err := w.tx.AddResolution(ctx, r); err != nil {
			return res, nil, err
		}
		res.ResolutionID = r.ID
	case o.Status == tenure.StatusActive:
		for _, slot := range slotKeys {
			if err := w.tx.ResolveSlot(ctx, o.TenantID, slot, o.ObjectID, w.now); err != nil {
				return res, nil, err
			}
		}
		for _, t := range targets {
			if t.SlotKey() != o.SlotKey() {
				if err := w.tx.ResolveSlot(ctx, t.TenantID, t.SlotKey(), o.ObjectID, w.now); err != nil {
					return res, nil, err
				}
			}
		}
	}
	res.Object = *o
	return res, displaced, nil
}

// displace writes the new version of a claim that lost to o.
func (w *writer) displace(ctx context.Context, d displacement, o *tenure.Object) (tenure.Object, error) {
	from := d.old.Status
	return w.replace(ctx, d.old, func(x *tenure.Object) {
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
	byID := ok && w.p.CanSee(&x)
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
			if w.p.CanSee(&x) && sameScope(o, &x) {
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
		// The writer can read the target, so saying why reveals nothing.
		if !covers(o, &targets[i]) {
			return nil, tenure.Errorf(tenure.CodeInvalid, "supersedes", "%q can be read by principals who could not read this object; "+
				"a claim supersedes only what it is at least as readable as (classification, roles, user)", ref)
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
			if w.p.CanSee(&y) {
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
	return a.UserID == b.UserID && a.PersonaID == b.PersonaID && a.ProjectID == b.ProjectID && a.SessionID == b.SessionID &&
		a.TaskID == b.TaskID && a.Scope.Sandboxed() == b.Scope.Sandboxed() &&
		(!a.Scope.Sandboxed() || a.ScopeID == b.ScopeID)
}

// repair flags with needs_review every object that (transitively)
// depends on the causes, by key or id: claims that were displaced or whose
// value changed. A dependent is flagged, and its own dependents looked at,
// only when its cause covers it, so that whoever sees the flag can see
// what raised it.
func (w *writer) repair(ctx context.Context, self string, causes []tenure.Object) ([]tenure.Change, error) {
	type pending struct {
		ref   string
		cause tenure.Object
	}
	var queue []pending
	for _, c := range causes {
		queue = append(queue, pending{c.Key, c}, pending{c.ObjectID, c})
	}
	var changes []tenure.Change
	seen := map[[2]string]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		k := [2]string{p.ref, p.cause.ObjectID}
		if seen[k] {
			continue
		}
		seen[k] = true
		deps, err := w.tx.Dependents(ctx, w.p.TenantID, p.ref)
		if err != nil {
			return changes, err
		}
		for _, d := range deps {
			if d.ObjectID == self || !covers(&p.cause, &d) {
				continue
			}
			queue = append(queue, pending{d.Key, d}, pending{d.ObjectID, d})
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

// redactor hides from write results what the principal may not see.
func (w *writer) redactor() *linkRedactor {
	return newLinkRedactor(w.p, func(ctx context.Context, id string) (tenure.Object, bool, error) {
		return w.tx.Latest(ctx, w.p.TenantID, id)
	})
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
