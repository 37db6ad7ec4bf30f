package compile

import (
	"hash/maphash"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// countCacheSize bounds the per-encoding cache of line token counts.
const countCacheSize = 1 << 16

var countSeed = maphash.MakeSeed()

// cachedCounter remembers the token counts of lines: the same memory
// lines recur across compilations, and BPE counting dominates packing.
// Block counts only steer packing; the envelope is always counted exactly
// before it is returned.
type cachedCounter struct {
	Counter
	cache *lru.Cache[uint64, int]
}

func (c cachedCounter) Count(s string) int {
	k := maphash.String(countSeed, s)
	if n, ok := c.cache.Get(k); ok {
		return n
	}
	n := c.Counter.Count(s)
	c.cache.Add(k, n)
	return n
}

// counters caches one Counter per tokenizer name for a Compiler.
type counters struct {
	mu sync.Mutex
	m  map[string]cachedCounter
}

func (cs *counters) get(name string, make func(string) (Counter, error)) (cachedCounter, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c, ok := cs.m[name]; ok {
		return c, nil
	}
	base, err := make(name)
	if err != nil {
		return cachedCounter{}, err
	}
	cache, _ := lru.New[uint64, int](countCacheSize)
	c := cachedCounter{Counter: base, cache: cache}
	if cs.m == nil {
		cs.m = map[string]cachedCounter{}
	}
	cs.m[name] = c
	return c, nil
}
