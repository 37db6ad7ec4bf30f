package engine

import (
	"context"
	"slices"

	"github.com/tenure-dev/tenure"
)

// covers reports whether every principal that can read y can also read x:
// the same tenant, x names no user or y's, no persona or y's, x is
// classified no higher, x
// denies no role y does not deny, and x allows every role y allows (or
// any). It is conservative: when the lists do not settle it, it is false.
//
// Reconciliation lets a claim decide another's outcome only when the
// deciding claim covers the decided one, so that everyone who sees an
// outcome can see its cause, and no response depends on a claim its
// reader cannot see.
func covers(x, y *tenure.Object) bool {
	if x.TenantID != y.TenantID || (x.UserID != "" && x.UserID != y.UserID) || (x.PersonaID != "" && x.PersonaID != y.PersonaID) ||
		x.SecurityClassification.Rank() > y.SecurityClassification.Rank() {
		return false
	}
	for _, r := range x.PermissionScope.DenyRoles {
		if !slices.Contains(y.PermissionScope.DenyRoles, r) {
			return false
		}
	}
	xa, ya := x.PermissionScope.AllowRoles, y.PermissionScope.AllowRoles
	if len(xa) == 0 {
		return true
	}
	if len(ya) == 0 {
		return false
	}
	for _, r := range ya {
		if !slices.Contains(xa, r) {
			return false
		}
	}
	return true
}

// linkRedactor blanks the links of objects (supersession_link, supersedes)
// that name an object the principal cannot see, so that a link reveals
// nothing a direct read of its target would not. latest returns an
// object's latest version.
type linkRedactor struct {
	p      tenure.Principal
	latest func(ctx context.Context, id string) (tenure.Object, bool, error)
	seen   map[string]bool
}

func newLinkRedactor(p tenure.Principal, latest func(ctx context.Context, id string) (tenure.Object, bool, error)) *linkRedactor {
	return &linkRedactor{p: p, latest: latest, seen: map[string]bool{}}
}

// readRedactor looks targets up outside a transaction.
func (e *Engine) readRedactor(p tenure.Principal) *linkRedactor {
	return newLinkRedactor(p, func(ctx context.Context, id string) (tenure.Object, bool, error) {
		vs, err := e.b.ObjectVersions(ctx, p.TenantID, id, nil)
		if err != nil || len(vs) == 0 {
			return tenure.Object{}, false, err
		}
		return vs[len(vs)-1], true, nil
	})
}

// visible reports whether id names an object the principal can see now
// (a deleted one is not).
func (r *linkRedactor) visible(ctx context.Context, id string) (bool, error) {
	if ok, done := r.seen[id]; done {
		return ok, nil
	}
	x, ok, err := r.latest(ctx, id)
	if err != nil {
		return false, err
	}
	ok = ok && r.p.CanSee(&x)
	r.seen[id] = ok
	return ok, nil
}

// object blanks o's links to objects the principal cannot see.
func (r *linkRedactor) object(ctx context.Context, o *tenure.Object) error {
	for _, link := range []*string{&o.SupersessionLink, &o.Supersedes} {
		if *link == "" {
			continue
		}
		ok, err := r.visible(ctx, *link)
		if err != nil {
			return err
		}
		if !ok {
			*link = ""
		}
	}
	return nil
}

// objects blanks the links of every object of objs.
func (r *linkRedactor) objects(ctx context.Context, objs []tenure.Object) error {
	for i := range objs {
		if err := r.object(ctx, &objs[i]); err != nil {
			return err
		}
	}
	return nil
}

// result blanks the links of a write result's object and leaves out the
// changes to objects the principal cannot see.
func (r *linkRedactor) result(ctx context.Context, res *tenure.WriteResult) error {
	if err := r.object(ctx, &res.Object); err != nil {
		return err
	}
	var err error
	res.Changes = slices.DeleteFunc(res.Changes, func(c tenure.Change) bool {
		ok, verr := r.visible(ctx, c.ObjectID)
		if verr != nil {
			err = verr
		}
		return !ok
	})
	return err
}
