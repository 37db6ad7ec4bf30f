package http

import (
	"container/list"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// traceCache keeps recent compile traces in memory for a while, at most
// max of them, dropping the oldest first. Every trace lives for the same
// ttl, so insertion order is expiry order.
type traceCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	now   func() time.Time
	byID  map[string]*list.Element
	order *list.List // of *cachedTrace, oldest first
}

type cachedTrace struct {
	trace compile.Trace
	// tenant, user and clearance are the compiling principal's.
	tenant, user string
	clearance    tenure.Classification
	expires      time.Time
}

// readableBy reports whether p may read the trace: the principal that
// produced it, that is the same user with the same or a higher clearance
// (another key of that user with a lower clearance may not: the trace
// names what the higher one saw), and holders of trace:read in the tenant.
func (ct *cachedTrace) readableBy(p tenure.Principal) bool {
	if ct.tenant != p.TenantID {
		return false
	}
	return p.HasPermission(tenure.PermTraceRead) ||
		(ct.user == p.UserID && clearanceRank(p.Clearance) >= clearanceRank(ct.clearance))
}

// clearanceRank ranks a clearance, an empty one as public.
func clearanceRank(c tenure.Classification) int {
	if c == "" {
		c = tenure.Public
	}
	return c.Rank()
}

// forReader is the trace as p may see it: what the gates withheld (ids
// and counts) only for holders of trace:full.
func (ct *cachedTrace) forReader(p tenure.Principal) compile.Trace {
	tr := ct.trace
	if p.HasPermission(tenure.PermTraceFull) {
		return tr
	}
	tr.Withheld = nil
	tr.Omitted = slices.DeleteFunc(slices.Clone(tr.Omitted), func(o compile.OmittedObject) bool {
		return o.Reason == compile.OmitPermission || o.Reason == compile.OmitScope
	})
	if tr.OmittedTotal != nil {
		tr.OmittedTotal = maps.Clone(tr.OmittedTotal)
		delete(tr.OmittedTotal, compile.OmitPermission)
		delete(tr.OmittedTotal, compile.OmitScope)
	}
	return tr
}

func newTraceCache(ttl time.Duration, max int, now func() time.Time) *traceCache {
	return &traceCache{ttl: ttl, max: max, now: now, byID: map[string]*list.Element{}, order: list.New()}
}

// put keeps t, compiled by p.
func (c *traceCache) put(t compile.Trace, p tenure.Principal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if e, ok := c.byID[t.TraceID]; ok {
		c.order.Remove(e)
	}
	c.byID[t.TraceID] = c.order.PushBack(&cachedTrace{trace: t, tenant: p.TenantID, user: p.UserID, clearance: p.Clearance,
		expires: now.Add(c.ttl)})
	c.evict(now)
}

// evict drops expired traces and the oldest beyond max.
func (c *traceCache) evict(now time.Time) {
	for e := c.order.Front(); e != nil; e = c.order.Front() {
		ct := e.Value.(*cachedTrace)
		if c.order.Len() <= c.max && now.Before(ct.expires) {
			return
		}
		c.order.Remove(e)
		delete(c.byID, ct.trace.TraceID)
	}
}

// get returns the trace with the given id, unless it expired.
func (c *traceCache) get(id string) (cachedTrace, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evict(c.now())
	e, ok := c.byID[id]
	if !ok {
		return cachedTrace{}, false
	}
	return *e.Value.(*cachedTrace), true
}

func (c *traceCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evict(c.now())
	return c.order.Len()
}
