package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

// Re-reconciliation on merge (docs/entities.md): merging entity A into B
// makes the claims already stored about A's and B's same attribute claims
// about one entity, so they are reconciled as if they had been written
// about one: in the order they were written, each against the claims of
// the other side that still hold (the claims of one side competed when
// they were written). Nothing is overwritten — a claim that loses gets a
// new version (superseded, overridden or quarantined, with its link), in
// the merge's transaction — and the operation records each claim it
// changed with its state before, so that undoing the merge restores it.

// merge merges from into into, records the operation and re-reconciles
// the claims about their attributes.
func (c *curation) merge(ctx context.Context, from, into entity.Entity, reason string) error {
	f, t, op, err := entity.Merge(from, into, c.op(reason))
	if err != nil {
		return err
	}
	if err := c.apply(ctx, op, f, t); err != nil {
		return err
	}
	op.FromVersion = c.out.Op.FromVersion
	recs, slots, changes, err := c.reconcile(ctx, from.Aliases, into.Aliases)
	if err != nil || len(recs)+len(slots) == 0 {
		return err
	}
	op.Reconciled, op.Slots = recs, slots
	if err := c.ew.SetEntityOp(ctx, &op); err != nil {
		return err
	}
	c.out.Claims = changes
	return nil
}

// claimWriter is a writer of the curation's transaction that lets every
// claim decide outcomes (it tells no writer; see writer.sees).
func (c *curation) claimWriter() *writer {
	return &writer{e: c.e, tx: c.tx, p: c.p, clk: c.clk, now: c.now, seeAll: true}
}

// reconcile re-reconciles the active claims of the registry's user about
// an attribute of the two merged entities, group by group (attribute and
// scope), and returns the claims it changed with their prior state, the
// conflict slots it filed requests under and the changes the caller can
// read.
func (c *curation) reconcile(ctx context.Context, fromAliases, intoAliases []string) ([]entity.Reconciled, []string, []tenure.Change, error) {
	objs, err := c.ew.LatestByMentions(ctx, c.p.TenantID, append(slices.Clone(fromAliases), intoAliases...))
	if err != nil {
		return nil, nil, nil, err
	}
	side := map[string]int{} // object id → 0 (from) or 1 (into)
	groups := map[string][]tenure.Object{}
	var order []string
	for _, o := range objs {
		key, ok := entity.ObjectMention(&o)
		if !ok || o.Status != tenure.StatusActive || o.UserID != c.registry {
			continue
		}
		side[o.ObjectID] = 1
		if slices.Contains(fromAliases, key) {
			side[o.ObjectID] = 0
		}
		sandbox := ""
		if o.Scope.Sandboxed() {
			sandbox = o.ScopeID
		}
		g := strings.Join([]string{o.Attribute, o.UserID, o.PersonaID, o.ProjectID, o.SessionID, o.TaskID, sandbox}, "\x1f")
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], o)
	}
	w := c.claimWriter()
	rec := &reconciliation{byID: map[string]int{}}
	for _, g := range order {
		claims := groups[g]
		if !slices.ContainsFunc(claims, func(o tenure.Object) bool { return side[o.ObjectID] == 0 }) ||
			!slices.ContainsFunc(claims, func(o tenure.Object) bool { return side[o.ObjectID] == 1 }) {
			continue
		}
		// In the order they were written.
		slices.SortStableFunc(claims, func(a, b tenure.Object) int {
			return cmp.Or(a.TxStart.Compare(b.TxStart), cmp.Compare(a.ObjectID, b.ObjectID))
		})
		var live []tenure.Object
		for _, cl := range claims {
			var slot []tenure.Object
			for _, x := range live {
				if side[x.ObjectID] != side[cl.ObjectID] {
					slot = append(slot, x)
				}
			}
			o, displace, err := w.redecide(ctx, cl, slot, rec)
			if err != nil {
				return nil, nil, nil, err
			}
			live = slices.DeleteFunc(live, func(x tenure.Object) bool {
				return slices.ContainsFunc(displace, func(d displacement) bool { return d.old.ObjectID == x.ObjectID })
			})
			if o.Status == tenure.StatusActive {
				live = append(live, o)
			}
		}
	}
	changes, err := c.visible(ctx, rec.changes)
	return rec.recs, slices.Compact(rec.slots), changes, err
}

// redecide reconciles a stored claim against slot as if it were written
// now over them: when it loses it gets a new version, the claims it
// displaces get theirs, conflicts are filed or closed and dependents
// flagged, as on a write; rec records every change. It returns the
// claim's latest version and what it displaced.
func (w *writer) redecide(ctx context.Context, cl tenure.Object, slot []tenure.Object, rec *reconciliation) (tenure.Object, []displacement, error) {
	o := cl.Clone()
	res, displace, ties := w.decide(&o, slot)
	if len(displace) == 0 && o.Status == cl.Status {
		return cl, nil, nil
	}
	if o.Status != cl.Status {
		n, err := w.replace(ctx, cl, func(x *tenure.Object) {
			x.Status, x.ContradictionStatus, x.SupersessionLink, x.ValidUntil, x.IsValid =
				o.Status, o.ContradictionStatus, o.SupersessionLink, o.ValidUntil, o.IsValid
		})
		if err != nil {
			return cl, nil, err
		}
		rec.add(cl, tenure.Change{ObjectID: n.ObjectID, Key: n.Key, Version: n.Version, From: cl.Status, To: n.Status, Reason: res.Reason})
		o = n
	}
	res, displaced, err := w.settle(ctx, &o, res, displace, ties, nil)
	if err != nil {
		return o, nil, err
	}
	if res.ResolutionID != "" {
		rs, err := w.slotKeys(ctx, &o)
		if err != nil {
			return o, nil, err
		}
		rec.slots = append(rec.slots, rs...)
	}
	for i, d := range displace {
		rec.add(d.old, res.Changes[i])
	}
	_, err = w.repair(ctx, o.ObjectID, displaced)
	return o, displace, err
}

// reconciliation collects what a merge's re-reconciliation changed.
type reconciliation struct {
	recs    []entity.Reconciled
	byID    map[string]int
	slots   []string
	changes []tenure.Change
}

// add records that the claim old got the version n: the first time, with
// old's state (the one undoing restores); after, the later version.
func (r *reconciliation) add(old tenure.Object, ch tenure.Change) {
	r.changes = append(r.changes, ch)
	if i, ok := r.byID[old.ObjectID]; ok {
		r.recs[i].Version = ch.Version
		return
	}
	r.byID[old.ObjectID] = len(r.recs)
	r.recs = append(r.recs, entity.Reconciled{ObjectID: old.ObjectID, Version: ch.Version, Status: old.Status,
		ContradictionStatus: old.ContradictionStatus, SupersessionLink: old.SupersessionLink, ValidUntil: old.ValidUntil, IsValid: old.IsValid})
}

// unreconcile restores the claims a merge or link re-reconciled to their
// state before it — those still at the version it wrote; a claim changed
// since keeps its later history — closes the conflict requests it filed,
// and has each restored claim compete with the claims of its slot written
// since the merge.
func (c *curation) unreconcile(ctx context.Context, op entity.Op) ([]tenure.Change, error) {
	if op.Kind != entity.OpMerge && op.Kind != entity.OpLink {
		return nil, nil
	}
	w := c.claimWriter()
	var changes []tenure.Change
	var restored []tenure.Object
	for _, r := range slices.Backward(op.Reconciled) {
		cur, ok, err := c.tx.Latest(ctx, c.p.TenantID, r.ObjectID)
		if err != nil {
			return nil, err
		}
		if !ok || cur.Version != r.Version || cur.TxEnd != nil {
			continue
		}
		n, err := w.replace(ctx, cur, func(x *tenure.Object) {
			x.Status, x.ContradictionStatus, x.SupersessionLink, x.ValidUntil, x.IsValid =
				r.Status, r.ContradictionStatus, r.SupersessionLink, r.ValidUntil, r.IsValid
		})
		if err != nil {
			return nil, err
		}
		changes = append(changes, tenure.Change{ObjectID: n.ObjectID, Key: n.Key, Version: n.Version, From: cur.Status, To: n.Status})
		restored = append(restored, n)
	}
	for _, slot := range op.Slots {
		if err := c.tx.ResolveSlot(ctx, c.p.TenantID, slot, "", c.now); err != nil {
			return nil, err
		}
	}
	// A restored claim competes with the claims of its slot written
	// since the merge (the restored ones coexisted before it), as if it
	// were written over them.
	rec := &reconciliation{byID: map[string]int{}}
	isRestored := func(x tenure.Object) bool {
		return slices.ContainsFunc(restored, func(r tenure.Object) bool { return r.ObjectID == x.ObjectID })
	}
	for _, n := range restored {
		if cur, ok, err := c.tx.Latest(ctx, c.p.TenantID, n.ObjectID); err != nil {
			return nil, err
		} else if !ok || cur.Version != n.Version || cur.Status != tenure.StatusActive {
			continue
		}
		slot, err := w.slot(ctx, &n, nil)
		if err != nil {
			return nil, err
		}
		if slot = slices.DeleteFunc(slot, isRestored); len(slot) == 0 {
			continue
		}
		if _, _, err := w.redecide(ctx, n, slot, rec); err != nil {
			return nil, err
		}
	}
	changes = append(changes, rec.changes...)
	return c.visible(ctx, changes)
}

// visible keeps the changes of claims the curating principal can read.
func (c *curation) visible(ctx context.Context, changes []tenure.Change) ([]tenure.Change, error) {
	var out []tenure.Change
	for _, ch := range changes {
		o, ok, err := c.tx.Latest(ctx, c.p.TenantID, ch.ObjectID)
		if err != nil {
			return nil, err
		}
		if ok && c.p.CanRead(&o) {
			out = append(out, ch)
		}
	}
	return out, nil
}
