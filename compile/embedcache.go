package compile

import (
	"context"
	"hash/maphash"

	lru "github.com/hashicorp/golang-lru/v2"
)

// CachedEmbedder remembers vectors by text, so that candidates seen by
// earlier compilations are not embedded again (a network round trip with a
// remote embedder). Safe for concurrent use.
type CachedEmbedder struct {
	next  Embedder
	cache *lru.Cache[uint64, []float32]
}

// NewCachedEmbedder wraps next with a cache of up to size vectors (0 means
// 65,536).
func NewCachedEmbedder(next Embedder, size int) *CachedEmbedder {
	if size <= 0 {
		size = 1 << 16
	}
	cache, _ := lru.New[uint64, []float32](size)
	return &CachedEmbedder{next: next, cache: cache}
}

// Embed returns cached vectors and embeds the rest in one call.
func (c *CachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, t := range texts {
		if v, ok := c.cache.Get(maphash.String(countSeed, t)); ok {
			out[i] = v
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	vs, err := c.next.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	for j, v := range vs {
		if j < len(at) {
			out[at[j]] = v
			c.cache.Add(maphash.String(countSeed, missing[j]), v)
		}
	}
	return out, nil
}
