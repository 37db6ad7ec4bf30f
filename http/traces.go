package http

import (
	"container/list"
	"sync"
	"time"

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
	// tenant and user are the compiling principal's.
	tenant, user string
	expires      time.Time
}

func newTraceCache(ttl time.Duration, max int, now func() time.Time) *traceCache {
	return &traceCache{ttl: ttl, max: max, now: now, byID: map[string]*list.Element{}, order: list.New()}
}

// put keeps t, compiled by the given tenant and user.
func (c *traceCache) put(t compile.Trace, tenant, user string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if e, ok := c.byID[t.TraceID]; ok {
		c.order.Remove(e)
	}
	c.byID[t.TraceID] = c.order.PushBack(&cachedTrace{trace: t, tenant: tenant, user: user, expires: now.Add(c.ttl)})
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
