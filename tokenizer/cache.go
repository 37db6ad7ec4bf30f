package tokenizer

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Pieces that are a token by themselves cost one map lookup and are never
// cached. The rest (" tokenizer", "2024", a name) need BPE, which costs
// hundreds of nanoseconds, and they recur constantly in real text.
const (
	// cacheSlots bounds the cache at this many pieces per encoding.
	cacheSlots = 1 << 14
	// maxCachedPiece keeps long pieces (URLs, base64, runs of one
	// character) out: they rarely recur, and with it a full cache stays
	// within a few megabytes.
	maxCachedPiece = 32
)

// pieceCache remembers the token ids of recently merged pieces. It is a
// direct-mapped table of atomic pointers: a lookup is one hash and one load,
// a store overwrites whatever the slot held, and nothing locks, so
// goroutines counting at once never wait for each other. Losing an entry to
// a collision only costs a recomputation.
type pieceCache struct {
	seed  maphash.Seed
	slots [cacheSlots]atomic.Pointer[cachedPiece]
}

// cachedPiece is immutable once published.
type cachedPiece struct {
	piece string
	ids   []int
}

func newPieceCache() *pieceCache {
	return &pieceCache{seed: maphash.MakeSeed()}
}

func (c *pieceCache) slot(piece string) *atomic.Pointer[cachedPiece] {
	return &c.slots[maphash.String(c.seed, piece)%cacheSlots]
}

// get returns the ids cached for piece, or nil. Callers must not modify
// them.
func (c *pieceCache) get(piece string) []int {
	if e := c.slot(piece).Load(); e != nil && e.piece == piece {
		return e.ids
	}
	return nil
}

// put caches ids for piece; it keeps ids, so the caller must not modify
// them afterwards.
func (c *pieceCache) put(piece string, ids []int) {
	// piece is a substring of the caller's text; cloning it keeps the
	// cache from pinning whole documents in memory.
	c.slot(piece).Store(&cachedPiece{piece: strings.Clone(piece), ids: ids})
}
