package tokenizer

// encoder encodes text in one encoding to exactly the ids tiktoken-go's
// EncodeOrdinary returns, an order of magnitude faster: a hand-written
// splitter stands in for the regexp2 pattern, whole-piece tokens cost one
// map lookup, and merged pieces are cached. It is safe for concurrent use:
// ranks is only read and the cache is lock-free.
type encoder struct {
	ranks map[string]int            // token bytes to id, shared with tiktoken-go
	next  func(s string, i int) int // end of the pre-token that starts at s[i:]
	cache *pieceCache
}

// newEncoder returns an encoder over ranks that splits text with next.
func newEncoder(ranks map[string]int, next func(s string, i int) int) *encoder {
	loadClasses()
	return &encoder{ranks: ranks, next: next, cache: newPieceCache()}
}

// count returns the number of tokens in s.
func (e *encoder) count(s string) int {
	s = validUTF8(s)
	n := 0
	for i := 0; i < len(s); {
		j := e.next(s, i)
		piece := s[i:j]
		i = j
		switch _, ok := e.ranks[piece]; {
		case ok:
			n++
		case len(piece) <= maxCachedPiece:
			n += len(e.mergeCached(piece))
		default:
			var buf [maxSmallPiece]int32
			n += len(merge(e.ranks, piece, buf[:0]))
		}
	}
	return n
}

// encode returns the ids of s.
func (e *encoder) encode(s string) []int {
	s = validUTF8(s)
	ids := make([]int, 0, len(s)/4+1)
	for i := 0; i < len(s); {
		j := e.next(s, i)
		piece := s[i:j]
		i = j
		switch id, ok := e.ranks[piece]; {
		case ok:
			ids = append(ids, id)
		case len(piece) <= maxCachedPiece:
			ids = append(ids, e.mergeCached(piece)...)
		default:
			ids = e.appendMerged(ids, piece)
		}
	}
	return ids
}

// mergeCached returns the ids of piece, which is not a token itself, from
// the cache or else by merging it and caching the result. The ids are
// shared and must not be modified.
func (e *encoder) mergeCached(piece string) []int {
	if ids := e.cache.get(piece); ids != nil {
		return ids
	}
	ids := e.appendMerged(nil, piece)
	e.cache.put(piece, ids)
	return ids
}

// appendMerged appends the ids of piece, which is not a token itself, to
// dst. As in tiktoken-go, a piece that is a token is never merged: merging
// need not arrive at the whole piece.
func (e *encoder) appendMerged(dst []int, piece string) []int {
	var buf [maxSmallPiece]int32
	starts := merge(e.ranks, piece, buf[:0])
	for k, start := range starts {
		end := int32(len(piece))
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		dst = append(dst, e.ranks[piece[start:end]])
	}
	return dst
}
