package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

// MaxBatch caps the objects of one PutBatch.
const MaxBatch = 10000

// Put implements tenure.Writer.
func (e *Engine) Put(ctx context.Context, p tenure.Principal, o tenure.Object) (tenure.WriteResult, error) {
	res, err := e.putAll(ctx, "put object", p, []tenure.Object{o}, false)
	if err != nil {
		return tenure.WriteResult{}, err
	}
	return res[0], nil
}

// PutBatch implements tenure.Writer.
func (e *Engine) PutBatch(ctx context.Context, p tenure.Principal, objs []tenure.Object) ([]tenure.WriteResult, error) {
	if len(objs) > MaxBatch {
		return nil, fmt.Errorf("put batch: %w", tenure.Errorf(tenure.CodeTooLarge, "objects", "more than %d objects in one batch", MaxBatch))
	}
	if len(objs) == 0 {
		return []tenure.WriteResult{}, nil
	}
	return e.putAll(ctx, "put batch", p, objs, true)
}

func (e *Engine) putAll(ctx context.Context, op string, p tenure.Principal, objs []tenure.Object, batch bool) ([]tenure.WriteResult, error) {
	p, err := e.principal(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	results := make([]tenure.WriteResult, len(objs))
	err = e.inTx(ctx, op, func(tx Tx, clk *txClock) error {
		w := &writer{e: e, tx: tx, p: p, clk: clk}
		for i := range objs {
			r, err := w.put(ctx, objs[i].Clone())
			if err != nil {
				if batch {
					return indexed(i, err)
				}
				return err
			}
			results[i] = r
		}
		r := w.redactor()
		for i := range results {
			if err := r.result(ctx, &results[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		e.opt.Logger.Debug("put", "object_id", r.Object.ObjectID, "key", r.Object.Key, "outcome", r.Outcome, "changes", len(r.Changes))
	}
	return results, nil
}

// indexed prefixes an error's field with the batch index.
func indexed(i int, err error) error {
	te := *tenure.AsError(err)
	if te.Field != "" {
		te.Field = fmt.Sprintf("[%d].%s", i, te.Field)
	} else {
		te.Field = fmt.Sprintf("[%d]", i)
	}
	return &te
}

// writer holds one write transaction's state.
type writer struct {
	e   *Engine
	tx  Tx
	p   tenure.Principal
	clk *txClock
	now time.Time
	// entities caches the open versions of the entity registries the
	// transaction resolved mentions in (see entity.go).
	entities map[string][]entity.Entity
	// seeAll lets every claim decide outcomes (a merge's
	// re-reconciliation, which tells no writer; see sees).
	seeAll bool
}

func (w *writer) h() tenure.Hierarchy { return w.e.opt.Hierarchy }

func (w *writer) put(ctx context.Context, o tenure.Object) (tenure.WriteResult, error) {
	var res tenure.WriteResult
	if err := o.CheckInput(); err != nil {
		return res, err
	}
	w.now = w.clk.next(w.e.opt.Now())
	if o.TenantID == "" {
		o.TenantID = w.p.TenantID
	} else if o.TenantID != w.p.TenantID {
		return res, tenure.Errorf(tenure.CodeForbidden, "tenant_id", "the principal belongs to tenant %q", w.p.TenantID)
	}
	if o.Version > 0 && o.ObjectID == "" {
		return res, tenure.Errorf(tenure.CodeInvalid, "object_id", "required when version is given")
	}
	prev, err := w.previous(ctx, &o)
	if err != nil {
		return res, err
	}
	// A memory's key is its memory key, derived before the store's own
	// default (the object id) could apply.
	importanceGiven := o.Memory != nil && (o.Memory.Importance != nil || o.Memory.Pinned)
	o.ApplyMemoryDefaults()
	if o.Key == "" {
		o.Key = o.ObjectID
		if prev != nil {
			o.Key = prev.Key
		}
	}
	validFromGiven := !o.ValidFrom.IsZero()
	o.ApplyDefaults(w.now)
	if o.Attribute != "" {
		if a := entity.Slug(o.Attribute); a != "" {
			o.Attribute = a
		} else {
			return res, tenure.Errorf(tenure.CodeInvalid, "attribute", "%q has no letter or digit", o.Attribute)
		}
	}
	if o.Retrieved() {
		// Authority follows the origin: fetched content is data whatever
		// the request says, so it can never be promoted to a rule.
		o.AuthorityLevel = tenure.Ptr(tenure.LevelRetrieved)
	}
	if err := o.ValidateWithin(w.e.opt.MaxContentBytes); err != nil {
		return res, err
	}
	if err := w.authorize(&o); err != nil {
		return res, err
	}
	// Entity resolution happens before the write (context-architecture.md).
	if err := w.resolveEntities(ctx, &o); err != nil {
		return res, err
	}
	o.WrittenBy, o.AuthorAuthority = w.p.UserID, w.p.Authority
	o.Binding = w.p.HasPermission(tenure.PermRulesWrite) && !o.Retrieved()
	o.TxStart, o.TxEnd = w.now, nil
	o.Status, o.ContradictionStatus, o.IsValid, o.SupersessionLink = tenure.StatusActive, tenure.Clean, true, ""
	if prev == nil && o.Memory != nil {
		if prev, err = w.memoryMatch(ctx, &o, importanceGiven); err != nil {
			return res, err
		}
		if prev != nil && !tenure.SameValue(&o, prev) {
			// A new value is a new claim for the memory's slot: reconciled
			// (by valid time, trust …) so that one memory stays active and
			// the old value is its history. The new claim inherits what
			// the memory was given and its counters.
			keepMemoryBookkeeping(o.Memory, prev.Memory)
			o.ObjectID, prev = w.e.opt.NewID(), nil
		}
	}
	if prev != nil && o.Memory != nil && prev.Memory != nil {
		keepMemoryBookkeeping(o.Memory, prev.Memory)
	}
	if prev != nil && !validFromGiven && tenure.SameValue(&o, prev) {
		o.ValidFrom = prev.ValidFrom
	}
	switch o.Layer {
	case tenure.LayerIdentity:
		return w.putIdentity(ctx, o, prev)
	case tenure.LayerWorkingSet, tenure.LayerEnvironment:
		return w.putReplace(ctx, o, prev)
	}
	if prev != nil {
		return w.update(ctx, o, *prev)
	}
	return w.claim(ctx, o)
}

// previous finds the object a write with an object_id edits, or assigns a
// fresh id. Ids are the store's: an object_id naming no object the
// principal can see is not found, whether it is unused or names an object
// the principal may not read, so that an id never reveals an object.
func (w *writer) previous(ctx context.Context, o *tenure.Object) (*tenure.Object, error) {
	if o.ObjectID == "" {
		o.ObjectID = w.e.opt.NewID()
		return nil, nil
	}
	latest, ok, err := w.tx.Latest(ctx, o.TenantID, o.ObjectID)
	if err != nil {
		return nil, err
	}
	if !ok || !w.p.CanSee(&latest) {
		return nil, tenure.Errorf(tenure.CodeNotFound, "object_id", "no object %q (object ids are assigned by the store; leave it out to write a new object)", o.ObjectID)
	}
	return &latest, nil
}

// authorize checks what the principal may write.
func (w *writer) authorize(o *tenure.Object) error {
	p := w.p
	if o.UserID != "" && o.UserID != p.UserID && !p.HasPermission(tenure.PermAnyUser) {
		return tenure.Errorf(tenure.CodeForbidden, "user_id", "principal %q may not write for user %q", p.UserID, o.UserID)
	}
	if o.PersonaID != "" && o.PersonaID != p.PersonaID {
		return tenure.Errorf(tenure.CodeForbidden, "persona_id", "a principal writes persona-scoped objects only for its own persona")
	}
	if o.SecurityClassification.Rank() > p.Clearance.Rank() {
		return tenure.Errorf(tenure.CodeForbidden, "security_classification", "%s is above the principal's clearance (%s)", o.SecurityClassification, p.Clearance)
	}
	return w.h().CheckWrite(p, o, w.e.opt.WritePolicy)
}

// putIdentity writes the session's identity once; it is read-only after.
func (w *writer) putIdentity(ctx context.Context, o tenure.Object, prev *tenure.Object) (tenure.WriteResult, error) {
	if prev != nil {
		return tenure.WriteResult{}, tenure.Errorf(tenure.CodeConflict, "layer", "identity objects are read-only once written")
	}
	existing, err := w.tx.LatestInSession(ctx, o.TenantID, o.SessionID, tenure.LayerIdentity)
	if err != nil {
		return tenure.WriteResult{}, err
	}
	// An identity the principal cannot see does not exist for it: the new
	// one coexists with it, and each reader sees the one it can read.
	existing = slices.DeleteFunc(existing, func(x tenure.Object) bool { return !w.p.CanSee(&x) })
	if len(existing) > 0 {
		return tenure.WriteResult{}, tenure.Errorf(tenure.CodeConflict, "layer", "the identity of session %q is already set and read-only", o.SessionID)
	}
	o.Version = 1
	if err := w.tx.Insert(ctx, &o); err != nil {
		return tenure.WriteResult{}, err
	}
	return tenure.WriteResult{Object: o, Outcome: tenure.OutcomeCreated}, nil
}

// putReplace writes working-set and environment objects: the latest value
// for the slot simply replaces the previous one as a new version.
func (w *writer) putReplace(ctx context.Context, o tenure.Object, prev *tenure.Object) (tenure.WriteResult, error) {
	if prev == nil {
		all, err := w.tx.LatestByKey(ctx, o.TenantID, o.Key, tenure.StatusActive)
		if err != nil {
			return tenure.WriteResult{}, err
		}
		// Only a holder the principal can see is replaced; one it cannot
		// see does not exist for it, and the two coexist.
		for i := range all {
			if tenure.SameSlot(&o, &all[i]) && all[i].Layer == o.Layer && w.p.CanSee(&all[i]) {
				prev = &all[i]
				o.ObjectID = prev.ObjectID
				break
			}
		}
	}
	if prev == nil {
		o.Version = 1
		if err := w.tx.Insert(ctx, &o); err != nil {
			return tenure.WriteResult{}, err
		}
		return tenure.WriteResult{Object: o, Outcome: tenure.OutcomeCreated}, nil
	}
	if err := w.checkEdit(&o, prev); err != nil {
		return tenure.WriteResult{}, err
	}
	if unchanged(&o, prev) {
		return w.confirm(ctx, *prev)
	}
	o.Version = prev.Version + 1
	if err := w.tx.Close(ctx, prev.TenantID, prev.ObjectID, prev.Version, w.now); err != nil {
		return tenure.WriteResult{}, err
	}
	if err := w.tx.Insert(ctx, &o); err != nil {
		return tenure.WriteResult{}, err
	}
	return tenure.WriteResult{Object: o, Outcome: tenure.OutcomeUpdated}, nil
}

// checkEdit validates an edit of prev by o.
func (w *writer) checkEdit(o, prev *tenure.Object) error {
	switch {
	case o.Version > 0 && o.Version != prev.Version:
		return tenure.Errorf(tenure.CodeConflict, "version", "stale: object %q is at version %d", prev.ObjectID, prev.Version)
	case o.Key != prev.Key:
		return tenure.Errorf(tenure.CodeInvalid, "key", "an object's key cannot change (%q); write a new object that supersedes it", prev.Key)
	case o.SlotKey() != prev.SlotKey() || o.Scope != prev.Scope:
		return tenure.Errorf(tenure.CodeInvalid, "scope", "an object's scope cannot change; write a new object that supersedes it")
	case o.Layer != prev.Layer:
		return tenure.Errorf(tenure.CodeInvalid, "layer", "an object's layer cannot change (%s)", prev.Layer)
	case w.h().Rank(prev.AuthorAuthority) > w.h().Rank(w.p.Authority):
		return tenure.Errorf(tenure.CodeForbidden, "object_id", "%q was written by a higher authority (%s)", prev.ObjectID, prev.AuthorAuthority)
	case prev.Status != tenure.StatusActive && prev.Status != tenure.StatusQuarantined:
		return tenure.Errorf(tenure.CodeConflict, "object_id", "%q is %s; write a new claim instead", prev.ObjectID, prev.Status)
	case o.Supersedes != "" && o.Supersedes != prev.Supersedes:
		return tenure.Errorf(tenure.CodeInvalid, "supersedes", "only a new claim can supersede another; leave object_id empty")
	}
	return nil
}

// update writes a new version of an existing reconciled object.
func (w *writer) update(ctx context.Context, o tenure.Object, prev tenure.Object) (tenure.WriteResult, error) {
	if err := w.checkEdit(&o, &prev); err != nil {
		return tenure.WriteResult{}, err
	}
	if unchanged(&o, &prev) {
		return w.confirm(ctx, prev)
	}
	o.Supersedes = prev.Supersedes
	o.Version = prev.Version + 1
	if err := w.tx.Close(ctx, prev.TenantID, prev.ObjectID, prev.Version, w.now); err != nil {
		return tenure.WriteResult{}, err
	}
	if tenure.SameValue(&o, &prev) {
		o.Status, o.ContradictionStatus, o.IsValid = prev.Status, prev.ContradictionStatus, prev.IsValid
		if err := w.tx.Insert(ctx, &o); err != nil {
			return tenure.WriteResult{}, err
		}
		return tenure.WriteResult{Object: o, Outcome: tenure.OutcomeUpdated}, nil
	}
	// A new value is a new claim for the slot: reconcile it and repair
	// whatever was derived from the old value.
	res, _, err := w.reconcileAndInsert(ctx, o, nil)
	if err != nil {
		return res, err
	}
	if res.Outcome == tenure.OutcomeCreated {
		res.Outcome = tenure.OutcomeUpdated
	}
	repaired, err := w.repair(ctx, o.ObjectID, []tenure.Object{res.Object})
	res.Changes = append(res.Changes, repaired...)
	return res, err
}

// memoryMatch finds the active memory a new memory o restates: the one
// under the same memory key in the same slot that the writer can see and
// may edit (o.ObjectID is set to its id, and o keeps its pin and, unless
// o sets one, its importance). The same value confirms it or, with new
// metadata, becomes its next version; a new value is reconciled against
// it as a new claim for the key. Either way one memory per key stays
// active — also when writers race, since write transactions are
// serialized and the lookup runs inside o's. Nil when there is none (o
// is a new memory) or when o names what it supersedes.
func (w *writer) memoryMatch(ctx context.Context, o *tenure.Object, importanceGiven bool) (*tenure.Object, error) {
	if o.Supersedes != "" || !o.Layer.Reconciled() {
		return nil, nil
	}
	all, err := w.tx.LatestByKey(ctx, o.TenantID, o.Key, tenure.StatusActive)
	if err != nil {
		return nil, err
	}
	for i := range all {
		x := &all[i]
		if x.Memory == nil || !tenure.SameSlot(o, x) || x.Layer != o.Layer || !w.p.CanSee(x) {
			continue
		}
		c := *o
		c.ObjectID = x.ObjectID
		if w.checkEdit(&c, x) != nil {
			continue // e.g. written by a higher authority: reconciled as a new claim
		}
		o.ObjectID = x.ObjectID
		// A restatement keeps what the stored memory was given: its pin,
		// and its importance unless the new statement sets one.
		o.Memory.Pinned = o.Memory.Pinned || x.Memory.Pinned
		if o.Memory.Pinned {
			o.Memory.Importance = tenure.Ptr(tenure.ImportanceCritical)
		} else if !importanceGiven {
			o.Memory.Importance = tenure.Ptr(x.Memory.Level())
		}
		return x, nil
	}
	return nil, nil
}

// keepMemoryBookkeeping carries a memory's counters into its new version.
func keepMemoryBookkeeping(m, prev *tenure.Memory) {
	m.Confirmations, m.Uses = prev.Confirmations, prev.Uses
}

// confirm records that a claim was repeated: bookkeeping only.
func (w *writer) confirm(ctx context.Context, x tenure.Object) (tenure.WriteResult, error) {
	x.LastConfirmed = w.now
	if x.Memory != nil {
		m := *x.Memory
		m.Confirmations++
		x.Memory = &m
	}
	if err := w.tx.Touch(ctx, &x); err != nil {
		return tenure.WriteResult{}, err
	}
	return tenure.WriteResult{Object: x, Outcome: tenure.OutcomeConfirmed}, nil
}

// unchanged reports whether o restates prev without any change beyond
// store-managed and bookkeeping fields.
func unchanged(o, prev *tenure.Object) bool {
	a, b := o.Clone(), prev.Clone()
	for _, x := range []*tenure.Object{&a, &b} {
		x.Version, x.TxStart, x.TxEnd, x.LastConfirmed, x.LastUsed = 0, time.Time{}, nil, time.Time{}, nil
		x.WrittenBy, x.AuthorAuthority, x.Status, x.ContradictionStatus, x.IsValid = "", "", "", "", false
		x.SupersessionLink, x.Supersedes, x.Tier = "", "", ""
		if x.Memory != nil {
			x.Memory.Confirmations, x.Memory.Uses = 0, 0
		}
	}
	return equalJSON(&a, &b)
}
