package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/reconcile"
)

// maxChainHops bounds how far CurrentValue follows supersession links.
const maxChainHops = 64

// readPoint resolves the principal, the scope and the valid time of r.
func (e *Engine) readPoint(p tenure.Principal, r tenure.Read) (tenure.Principal, tenure.Scope, time.Time, error) {
	p, err := e.principal(p)
	if err != nil {
		return p, tenure.Scope{}, time.Time{}, err
	}
	s, err := r.Scope.Resolve(p)
	if err != nil {
		return p, s, time.Time{}, err
	}
	at := e.now()
	switch {
	case r.AsOfValid != nil:
		at = *r.AsOfValid
	case r.AsOfTx != nil:
		at = *r.AsOfTx
	}
	return p, s, at, nil
}

// Get implements tenure.Reader.
func (e *Engine) Get(ctx context.Context, p tenure.Principal, id string, r tenure.Read) (tenure.Object, error) {
	p, s, at, err := e.readPoint(p, r)
	if err != nil {
		return tenure.Object{}, fmt.Errorf("get object: %w", err)
	}
	vs, err := e.b.ObjectVersions(ctx, p.TenantID, id, r.AsOfTx)
	if err != nil {
		return tenure.Object{}, wrap("get object", err)
	}
	for i := len(vs) - 1; i >= 0; i-- {
		o := vs[i]
		if tenure.Visible(p, s, &o) && (r.AsOfValid == nil || o.ValidAt(at)) {
			return o, wrapIf("get object", e.readRedactor(p).object(ctx, &o))
		}
	}
	return tenure.Object{}, fmt.Errorf("get object: %w", tenure.Errorf(tenure.CodeNotFound, "object_id", "no object %q", id))
}

// CurrentValue implements tenure.Reader.
func (e *Engine) CurrentValue(ctx context.Context, p tenure.Principal, key string, r tenure.Read) (tenure.Object, error) {
	p, s, at, err := e.readPoint(p, r)
	if err != nil {
		return tenure.Object{}, fmt.Errorf("current value: %w", err)
	}
	holding, err := e.b.KeyVersions(ctx, p.TenantID, key, VersionQuery{TxAt: r.AsOfTx, ValidAt: &at, Holding: true})
	if err != nil {
		return tenure.Object{}, wrap("current value", err)
	}
	holding = slices.DeleteFunc(holding, func(o tenure.Object) bool { return !tenure.Visible(p, s, &o) })
	if best, ok := e.best(holding, at); ok {
		return best, wrapIf("current value", e.readRedactor(p).object(ctx, &best))
	}
	vs, err := e.b.KeyVersions(ctx, p.TenantID, key, VersionQuery{TxAt: r.AsOfTx})
	if err != nil {
		return tenure.Object{}, wrap("current value", err)
	}
	visible := slices.DeleteFunc(vs, func(o tenure.Object) bool { return !tenure.Visible(p, s, &o) })
	// Follow supersession links from the newest displaced claim.
	slices.SortFunc(visible, func(a, b tenure.Object) int { return b.TxStart.Compare(a.TxStart) })
	for _, o := range visible {
		seen := map[string]bool{}
		for hop := 0; o.SupersessionLink != "" && hop < maxChainHops && !seen[o.ObjectID]; hop++ {
			seen[o.ObjectID] = true
			next, err := e.b.ObjectVersions(ctx, p.TenantID, o.SupersessionLink, r.AsOfTx)
			if err != nil {
				return tenure.Object{}, wrap("current value", err)
			}
			if len(next) == 0 || !tenure.Visible(p, s, &next[len(next)-1]) {
				break
			}
			o = next[len(next)-1]
			if o.Holds() && o.ValidAt(at) {
				return o, wrapIf("current value", e.readRedactor(p).object(ctx, &o))
			}
		}
	}
	return tenure.Object{}, fmt.Errorf("current value: %w", tenure.Errorf(tenure.CodeNotFound, "key", "no current value for %q", key))
}

// best picks the preferred claim holding at valid time at.
func (e *Engine) best(vs []tenure.Object, at time.Time) (tenure.Object, bool) {
	var best *tenure.Object
	for i := range vs {
		o := &vs[i]
		if !o.Holds() || !o.ValidAt(at) {
			continue
		}
		if best == nil || reconcile.Prefer(e.opt.Hierarchy, o, best) < 0 {
			best = o
		}
	}
	if best == nil {
		return tenure.Object{}, false
	}
	return *best, true
}

// History implements tenure.Reader.
func (e *Engine) History(ctx context.Context, p tenure.Principal, key string, scope tenure.Scope) (tenure.History, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{Scope: scope})
	if err != nil {
		return tenure.History{}, fmt.Errorf("history: %w", err)
	}
	all, tombs, err := e.b.History(ctx, p.TenantID, key)
	if err != nil {
		return tenure.History{}, wrap("history", err)
	}
	h := tenure.History{Key: key, Versions: []tenure.Object{}, Chain: []tenure.ChainLink{}}
	// A tombstone is shown to those who could read what it buries.
	for _, t := range tombs {
		if t.Audience != nil && p.CanSee(t.Audience) {
			h.Deletions = append(h.Deletions, t)
		}
	}
	red := e.readRedactor(p)
	latest := map[string]tenure.Object{}
	for _, o := range all {
		if tenure.Visible(p, s, &o) {
			if err := red.object(ctx, &o); err != nil {
				return h, wrap("history", err)
			}
			h.Versions = append(h.Versions, o)
			latest[o.ObjectID] = o
		}
	}
	if len(h.Versions) == 0 && len(h.Deletions) == 0 {
		return h, fmt.Errorf("history: %w", tenure.Errorf(tenure.CodeNotFound, "key", "no history for %q", key))
	}
	// Extend the chain across keys through supersession links.
	queue := make([]string, 0, len(latest))
	for id := range latest {
		queue = append(queue, id)
	}
	slices.Sort(queue)
	for len(queue) > 0 && len(latest) < 10*maxChainHops {
		o := latest[queue[0]]
		queue = queue[1:]
		for _, ref := range []string{o.SupersessionLink, o.Supersedes} {
			if _, ok := latest[ref]; ref == "" || ok {
				continue
			}
			vs, err := e.b.ObjectVersions(ctx, p.TenantID, ref, nil)
			if err != nil {
				return h, wrap("history", err)
			}
			if len(vs) > 0 && tenure.Visible(p, s, &vs[len(vs)-1]) {
				o := vs[len(vs)-1]
				if err := red.object(ctx, &o); err != nil {
					return h, wrap("history", err)
				}
				latest[ref] = o
				queue = append(queue, ref)
			}
		}
	}
	for _, o := range latest {
		if o.SupersessionLink == "" && o.Supersedes == "" && !linkedTo(latest, o.ObjectID) {
			continue
		}
		h.Chain = append(h.Chain, tenure.ChainLink{ObjectID: o.ObjectID, Key: o.Key, Value: o.Value, Status: o.Status,
			ValidFrom: o.ValidFrom, ValidUntil: o.ValidUntil, TxStart: firstTx(h.Versions, o), TxEnd: o.TxEnd, SupersededBy: o.SupersessionLink})
	}
	slices.SortFunc(h.Chain, func(a, b tenure.ChainLink) int {
		if c := a.TxStart.Compare(b.TxStart); c != 0 {
			return c
		}
		return a.ValidFrom.Compare(b.ValidFrom)
	})
	return h, nil
}

func linkedTo(objs map[string]tenure.Object, id string) bool {
	for _, o := range objs {
		if o.SupersessionLink == id || o.Supersedes == id {
			return true
		}
	}
	return false
}

// firstTx returns when the object was first recorded as far as the reader
// can see (its first visible version's tx_start when known, else the given
// version's).
func firstTx(all []tenure.Object, o tenure.Object) time.Time {
	for _, v := range all {
		if v.ObjectID == o.ObjectID {
			return v.TxStart
		}
	}
	return o.TxStart
}

// List implements tenure.Reader.
func (e *Engine) List(ctx context.Context, p tenure.Principal, f tenure.Filter) ([]tenure.Object, error) {
	pg, err := e.listPage(ctx, p, f, 0)
	if err != nil {
		return nil, wrap("list", err)
	}
	return pg.Objects, nil
}

// maxPageScan bounds the stored objects one page scans: past it a page
// holding fewer objects than asked for ends with a cursor to continue
// from, so that a reader who sees few of many objects still gets pages
// at a bounded cost.
const maxPageScan = 5000

// ListPage returns one page of the latest versions matching f visible to
// p, from f.Cursor on; Next continues it. A page may hold fewer objects
// than f.Limit and still have a next one (see maxPageScan). Errors:
// CodeInvalid.
func (e *Engine) ListPage(ctx context.Context, p tenure.Principal, f tenure.Filter) (tenure.Page, error) {
	pg, err := e.listPage(ctx, p, f, maxPageScan)
	if err != nil {
		return tenure.Page{}, wrap("list page", err)
	}
	return pg, nil
}

// listPage lists as ListPage, scanning at most maxScan stored objects
// (0: no bound).
func (e *Engine) listPage(ctx context.Context, p tenure.Principal, f tenure.Filter, maxScan int) (tenure.Page, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{Scope: f.Scope})
	if err != nil {
		return tenure.Page{}, err
	}
	if err := f.Validate(); err != nil {
		return tenure.Page{}, err
	}
	limit := f.Limit
	if limit == 0 {
		limit = 100
	}
	var cursor int64
	if f.Cursor != "" {
		cursor, _ = strconv.ParseInt(f.Cursor, 10, 64) // Validate checked it
	}
	q := ListQuery{Layer: f.Layer, ScopeKind: f.ScopeKind, Status: f.Status, ObjectType: f.ObjectType, KeyPrefix: f.KeyPrefix,
		Author: f.Author, ValidAt: f.ValidAt, TxFrom: f.TxFrom, TxUntil: f.TxUntil, Desc: f.Newest}
	out := []tenure.Object{}
	scanned := 0
	sl, seqs := e.b.(SeqLister)
	grow := 0 // the next batch's size after rows the reader cannot see
	for done := false; !done; {
		// Without seqs, asking for exactly what is missing makes the
		// batch's last object the page's last when the batch fills the
		// page; with them, a batch after invisible rows may be larger (up
		// to 500) and the page ends at its last object's seq. The first
		// batch asks for what is missing only: a larger LIMIT would make a
		// selective filter scan further than the page needs.
		n := max(limit-len(out), grow)
		var (
			objs []tenure.Object
			at   []int64
			next int64
			err  error
		)
		if seqs {
			objs, at, err = sl.ListSeqs(ctx, p.TenantID, q, cursor, n)
			if len(objs) == n {
				next = at[len(at)-1]
			}
		} else {
			objs, next, err = e.b.List(ctx, p.TenantID, q, cursor, n)
		}
		if err != nil {
			return tenure.Page{}, err
		}
		before := len(out)
		for i, o := range objs {
			scanned++
			if tenure.Visible(p, s, &o) {
				out = append(out, o)
			}
			if len(out) >= limit && seqs && i < len(objs)-1 {
				next = at[i] // more rows follow this page's last object
				break
			}
		}
		if seqs && len(out)-before < len(objs) {
			grow = min(2*n, 500)
		}
		cursor = next
		done = next == 0 || len(out) >= limit || (maxScan > 0 && scanned >= maxScan)
	}
	if err := e.readRedactor(p).objects(ctx, out); err != nil {
		return tenure.Page{}, err
	}
	pg := tenure.Page{Objects: out}
	if cursor != 0 {
		pg.Next = strconv.FormatInt(cursor, 10)
	}
	return pg, nil
}

// Dependants returns the current objects visible to p that depend on the
// object id (by its id or its key), the oldest first. Errors:
// CodeNotFound (no object id visible to p).
func (e *Engine) Dependants(ctx context.Context, p tenure.Principal, id string) ([]tenure.Object, error) {
	o, err := e.Get(ctx, p, id, tenure.Read{})
	if err != nil {
		return nil, fmt.Errorf("dependants: %w", err)
	}
	p, s, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return nil, fmt.Errorf("dependants: %w", err)
	}
	out := []tenure.Object{}
	seen := map[string]bool{}
	for _, ref := range []string{o.ObjectID, o.Key} {
		deps, err := e.b.Dependents(ctx, p.TenantID, ref)
		if err != nil {
			return nil, wrap("dependants", err)
		}
		for _, d := range deps {
			if !seen[d.ObjectID] && tenure.Visible(p, s, &d) {
				seen[d.ObjectID] = true
				out = append(out, d)
			}
		}
	}
	if err := e.readRedactor(p).objects(ctx, out); err != nil {
		return nil, wrap("dependants", err)
	}
	return out, nil
}

// Threads lists the conversation threads with messages p can see, the
// latest first. Errors: CodeInvalid.
func (e *Engine) Threads(ctx context.Context, p tenure.Principal, f tenure.ThreadFilter) ([]tenure.Thread, error) {
	p, s, _, err := e.readPoint(p, tenure.Read{Scope: f.Scope})
	if err != nil {
		return nil, fmt.Errorf("threads: %w", err)
	}
	if f.Limit < 0 || f.Limit > 10000 {
		return nil, fmt.Errorf("threads: %w", tenure.Errorf(tenure.CodeInvalid, "limit", "must be between 0 and 10000"))
	}
	if f.Limit == 0 {
		f.Limit = 100
	}
	ts, err := e.b.Threads(ctx, p.TenantID, MessageList{UserID: s.UserID, PersonaID: p.PersonaID, ProjectID: s.ProjectID, Limit: f.Limit})
	if err != nil {
		return nil, wrap("threads", err)
	}
	if ts == nil {
		ts = []tenure.Thread{}
	}
	return ts, nil
}

// scan pages through the backend's List until fn returns false.
func (e *Engine) scan(ctx context.Context, tenant string, q ListQuery, fn func(tenure.Object) bool) error {
	var cursor int64
	for {
		objs, next, err := e.b.List(ctx, tenant, q, cursor, 500)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if !fn(o) {
				return nil
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

func wrapIf(op string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(op, err)
}
