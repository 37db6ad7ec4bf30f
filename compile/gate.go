package compile

import (
	"context"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/reconcile"
)

// gate is step 3: scope and permission gates for stored objects, and
// authority routing (retrieved data never reaches instruction sections).
func (r *run) gate(context.Context) (int, int, error) {
	in := r.liveCount()
	for _, it := range r.live() {
		if it.origin != fromStore {
			continue
		}
		switch {
		case !r.p.CanRead(it.obj.Object):
			r.withhold(it, OmitPermission)
		case !r.scope.InScope(it.obj.Object):
			r.withhold(it, OmitScope)
		case !r.inThreads(it.obj.Object):
			r.omit(it, OmitOtherThread)
		}
	}
	return in, r.liveCount(), nil
}

// inThreads reports whether an object may be used by a compilation for
// the request's threads. What crosses threads: anything not tied to a
// conversation (profile and people facts included), and the decisions and
// constraints of the request's project — a conversation's other state and
// its summaries stay in it.
func (r *run) inThreads(o *tenure.Object) bool {
	thread, ok := objectThread(o)
	if !ok || r.threads == nil || slices.Contains(r.threads, thread) {
		return true
	}
	s := o.StateItem
	return s != nil && o.ProjectID != "" && o.ProjectID == r.scope.ProjectID &&
		(s.Type == tenure.StateDecision || s.Type == tenure.StateConstraint)
}

// objectThread returns the conversation a stored object belongs to: a
// state item's thread, or the thread a summary is filed under.
func objectThread(o *tenure.Object) (string, bool) {
	switch {
	case o.StateItem != nil && o.StateItem.ThreadID != "":
		return o.StateItem.ThreadID, true
	case isSummary(o):
		rest := strings.TrimPrefix(o.Key, "summary/")
		if i := strings.LastIndex(rest, "/rolling"); i >= 0 && i == len(rest)-len("/rolling") {
			return rest[:i], true
		}
		if i := strings.LastIndex(rest, "/session/"); i >= 0 {
			return rest[:i], true
		}
	}
	return "", false
}

// withhold drops an object for scope or permission. Only principals
// allowed full traces (trace:full) see it: its id in omitted_objects and
// its count in withheld. For anyone else it leaves no trace, not even a
// count, so that a denied object stays indistinguishable from a missing
// one.
func (r *run) withhold(it *item, reason OmitReason) {
	if !r.full {
		it.dropped = true
		return
	}
	r.omit(it, reason)
	if r.trace.Withheld == nil {
		r.trace.Withheld = map[OmitReason]int{}
	}
	r.trace.Withheld[reason]++
}

// temporal is step 4: only claims that hold at the compile time survive;
// quarantined claims are reported, never compiled; among the surviving
// claims for one key the preferred one wins, so conflicts are settled
// before the model sees anything.
func (r *run) temporal(context.Context) (int, int, error) {
	in := r.liveCount()
	r.noteReplacements()
	for _, it := range r.live() {
		o := &it.obj
		if it.origin != fromStore {
			continue
		}
		switch {
		case o.Status == tenure.StatusQuarantined:
			it.dropped = true
			r.trace.Quarantined = append(r.trace.Quarantined, QuarantinedObject{ObjectID: o.ObjectID,
				Reason: tenure.ReasonUnresolved, ContradictionStatus: o.ContradictionStatus})
			r.trace.Omitted = append(r.trace.Omitted, OmittedObject{ObjectID: o.ObjectID, Reason: OmitQuarantined})
		case o.Status == tenure.StatusOverridden:
			r.omit(it, OmitOverridden)
		case o.Status == tenure.StatusArchived || o.Status == tenure.StatusCleared:
			r.omit(it, OmitArchived)
		case !o.Holds(), o.StateItem != nil && o.StateItem.Status == "superseded":
			r.omit(it, OmitSuperseded)
		case r.at.Before(o.ValidFrom):
			r.omit(it, OmitNotYetValid)
		case !o.ValidAt(r.at) && o.Status == tenure.StatusSuperseded:
			r.omit(it, OmitSuperseded)
		case !o.ValidAt(r.at):
			r.omit(it, OmitExpired)
		case o.Decayed(r.at) && (o.Memory == nil || !o.Memory.Pinned):
			r.omit(it, OmitDecayed)
		}
	}
	// One claim per key: the preferred one.
	best := map[string]*item{}
	for _, it := range r.live() {
		if it.origin != fromStore || it.obj.Key == "" || it.obj.Key == it.obj.ObjectID || it.docID != "" {
			continue
		}
		k := it.obj.Key
		if b, ok := best[k]; !ok || reconcile.Prefer(r.c.opt.Hierarchy, it.obj.Object, b.obj.Object) < 0 {
			best[k] = it
		}
	}
	for _, it := range r.live() {
		if it.origin != fromStore || it.obj.Key == "" || it.obj.Key == it.obj.ObjectID || it.docID != "" {
			continue
		}
		if b := best[it.obj.Key]; b != it {
			r.omit(it, OmitShadowed)
			r.trace.Omitted[len(r.trace.Omitted)-1].SupersededBy = b.obj.ObjectID
		}
	}
	return in, r.liveCount(), nil
}
