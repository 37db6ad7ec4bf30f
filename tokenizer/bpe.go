package tokenizer

import "math"

// Byte-pair encoding of one piece, as tiktoken-go defines it: start from
// single bytes and repeatedly merge the adjacent pair whose concatenation
// has the lowest rank, the leftmost such pair on a tie, until no adjacent
// pair is a token. Two implementations produce the same tokens: a quadratic
// scan over a stack array for the short pieces that make up nearly all
// text, and a queue of pairs by rank that keeps long pieces (a 1 MB run of
// one letter) at O(n log n), where tiktoken-go's own scan is quadratic.

// noRank marks a pair that is not a token.
const noRank = math.MaxInt32

// maxSmallPiece is the longest piece mergeSmall handles. Up to here the
// quadratic scan beats the heap and needs no allocation.
const maxSmallPiece = 64

// merge appends the start offset of each of piece's tokens to dst and
// returns it. Every token of the result is in ranks.
func merge(ranks map[string]int, piece string, dst []int32) []int32 {
	if len(piece) > maxSmallPiece {
		return mergeLarge(ranks, piece, dst)
	}
	return mergeSmall(ranks, piece, dst)
}

// part is a token being built: where it starts in the piece, and the rank of
// it joined with the next part.
type part struct {
	start int32
	rank  int32
}

// mergeSmall merges a piece of at most maxSmallPiece bytes with
// tiktoken-go's own algorithm and appends the start of each token to dst.
func mergeSmall(ranks map[string]int, piece string, dst []int32) []int32 {
	var buf [maxSmallPiece + 1]part
	// parts ends with a sentinel that starts at len(piece), so that part i
	// always spans piece[parts[i].start:parts[i+1].start].
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i] = part{start: int32(i), rank: noRank}
	}
	for i := 0; i+2 < len(parts); i++ {
		parts[i].rank = pairRank(ranks, piece, parts, i)
	}
	for {
		best, at := int32(noRank), -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, at = p.rank, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		parts[at].rank = pairRank(ranks, piece, parts, at)
		if at > 0 {
			parts[at-1].rank = pairRank(ranks, piece, parts, at-1)
		}
	}
	for _, p := range parts[:len(parts)-1] {
		dst = append(dst, p.start)
	}
	return dst
}

// pairRank returns the rank of parts[i] joined with parts[i+1], or noRank.
func pairRank(ranks map[string]int, piece string, parts []part, i int) int32 {
	if i+2 >= len(parts) {
		return noRank
	}
	if r, ok := ranks[piece[parts[i].start:parts[i+2].start]]; ok {
		return int32(r)
	}
	return noRank
}

// mergeLarge merges piece like mergeSmall, in O(n log n) time for a piece
// of n bytes and any ranks. Parts form a linked list over byte offsets, and
// the mergeable pairs wait in a rankQueue, which hands them out lowest rank
// first and, within a rank, leftmost first, exactly the order of
// tiktoken-go's scan. While it works through one rank's positions, a merge
// may create a pair of lower rank; the rank then goes back in the queue and
// the lower one is taken first, as a single (rank, position) heap would.
//
// A queued position is stale, its pair changed since it was queued,
// exactly when the pair's current rank differs from the queued one: the
// pair starting at a position only ever grows, and distinct strings have
// distinct ranks (tiktoken-go refuses to load ranks that are not one to
// one).
//
// It appends the start of each token to dst.
func mergeLarge(ranks map[string]int, piece string, dst []int32) []int32 {
	n := int32(len(piece))
	next := make([]int32, n) // start of the following part, n after the last
	prev := make([]int32, n) // start of the preceding part, -1 before the first
	rank := make([]int32, n) // rank of the pair starting here; -1 once merged away
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	pairAt := func(i int32) int32 {
		j := next[i]
		if j >= n {
			return noRank
		}
		if r, ok := ranks[piece[i:next[j]]]; ok {
			return int32(r)
		}
		return noRank
	}
	q := newRankQueue()
	for i := range n {
		if rank[i] = pairAt(i); rank[i] != noRank {
			q.add(rank[i], i)
		}
	}
	for {
		r, ok := q.lowest()
		if !ok {
			break
		}
		for {
			i, ok := q.next()
			if !ok {
				break
			}
			if rank[i] != r {
				continue // stale
			}
			j := next[i]
			next[i] = next[j]
			if next[j] < n {
				prev[next[j]] = i
			}
			rank[j] = -1
			lower := false
			if rank[i] = pairAt(i); rank[i] != noRank {
				q.add(rank[i], i)
				lower = rank[i] < r
			}
			if p := prev[i]; p >= 0 {
				if rank[p] = pairAt(p); rank[p] != noRank {
					q.add(rank[p], p)
					lower = lower || rank[p] < r
				}
			}
			if lower {
				q.putBack()
				break
			}
		}
	}
	for i := int32(0); i < n; i = next[i] {
		dst = append(dst, i)
	}
	return dst
}

// rankQueue holds the positions of mergeable pairs, grouped by rank. Its
// operations cost O(1) amortized, or O(log n) for a position added out of
// order or a rank taken or put back, so that mergeLarge stays O(n log n).
type rankQueue struct {
	slot  map[int32]int32 // index in lists of each rank's positions
	lists []positions     // by slot; unused slots are empty
	free  []int32         // unused slots
	ranks []int32         // the ranks waiting to be taken, a binary min-heap

	// lastRank and lastSlot remember add's most recent lookup: runs of
	// adds with one rank are the rule (a 1 MB run of "a" starts with a
	// million of them).
	lastRank, lastSlot int32

	// cur and curSlot are the rank lowest took last and its slot.
	cur, curSlot int32
}

// positions are the queued positions of one rank's pairs. They nearly
// always arrive in increasing order, so they are kept as an increasing run
// read with a cursor, plus a min-heap for any that arrive out of order.
type positions struct {
	run   []int32 // increasing; run[taken:] are still queued
	taken int
	late  []int32 // min-heap of positions less than the end of run
}

func newRankQueue() *rankQueue {
	return &rankQueue{slot: map[int32]int32{}, lastRank: -1}
}

// add queues the pair of rank r that starts at i.
func (q *rankQueue) add(r, i int32) {
	if r != q.lastRank {
		k, ok := q.slot[r]
		if !ok {
			if n := len(q.free); n > 0 {
				k, q.free = q.free[n-1], q.free[:n-1]
			} else {
				k = int32(len(q.lists))
				q.lists = append(q.lists, positions{})
			}
			q.slot[r] = k
			q.ranks = heapPush(q.ranks, r)
		}
		q.lastRank, q.lastSlot = r, k
	}
	l := &q.lists[q.lastSlot]
	if len(l.run) == 0 || i > l.run[len(l.run)-1] {
		l.run = append(l.run, i)
	} else {
		l.late = heapPush(l.late, i)
	}
}

// lowest takes the lowest rank out of the queue, or returns false if the
// queue is empty. Its positions stay queued, for next to hand out.
func (q *rankQueue) lowest() (int32, bool) {
	if len(q.ranks) == 0 {
		return 0, false
	}
	q.cur, q.ranks = heapPop(q.ranks)
	q.curSlot = q.slot[q.cur]
	return q.cur, true
}

// next removes and returns the leftmost queued position of the rank lowest
// took last, or returns false once there is none; the rank then leaves the
// queue for good.
func (q *rankQueue) next() (int32, bool) {
	r, k := q.cur, q.curSlot
	l := &q.lists[k]
	queued := l.taken < len(l.run)
	switch {
	case len(l.late) > 0 && (!queued || l.late[0] < l.run[l.taken]):
		var i int32
		i, l.late = heapPop(l.late)
		return i, true
	case queued:
		l.taken++
		return l.run[l.taken-1], true
	}
	delete(q.slot, r)
	if q.lastRank == r {
		q.lastRank = -1
	}
	l.run, l.taken, l.late = l.run[:0], 0, l.late[:0]
	q.free = append(q.free, k)
	return 0, false
}

// putBack returns the rank lowest took last to the queue, with the
// positions next has not handed out yet.
func (q *rankQueue) putBack() {
	q.ranks = heapPush(q.ranks, q.cur)
}

// heapPush adds i to the min-heap h.
func heapPush(h []int32, i int32) []int32 {
	h = append(h, i)
	k := len(h) - 1
	for k > 0 {
		p := (k - 1) / 2
		if h[p] <= i {
			break
		}
		h[k] = h[p]
		k = p
	}
	h[k] = i
	return h
}

// heapPop removes the least element of the non-empty min-heap h.
func heapPop(h []int32) (int32, []int32) {
	top, last := h[0], h[len(h)-1]
	h = h[:len(h)-1]
	if len(h) == 0 {
		return top, h
	}
	k := 0
	for {
		c := 2*k + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if last <= h[c] {
			break
		}
		h[k] = h[c]
		k = c
	}
	h[k] = last
	return top, h
}
