package tokenizer

// Hooks for the external tests: the splitter, merge and class table are
// checked against their definitions and against tiktoken-go directly.

// TableRunes is how many runes the class table covers.
const TableRunes = tableRunes

// ClassTableAgrees reports whether the class table (or its fallback) gives
// r the classes the unicode tables define, and both values for a message.
func ClassTableAgrees(r rune) (ok bool, table, want uint8) {
	loadClasses()
	table, want = uint8(classOf(r)), uint8(classOfRune(r))
	return table == want, table, want
}

// Ranks returns the rank map t's fast encoder merges with.
func Ranks(t *Tokenizer) map[string]int { return t.enc.ranks }

// MergeSmall and MergeLarge expose the two merge implementations.
func MergeSmall(ranks map[string]int, piece string) []int32 { return mergeSmall(ranks, piece, nil) }
func MergeLarge(ranks map[string]int, piece string) []int32 { return mergeLarge(ranks, piece, nil) }

// MaxSmallPiece is the longest piece MergeSmall accepts.
const MaxSmallPiece = maxSmallPiece

// Pieces returns the pre-tokens of s in t's encoding.
func Pieces(t *Tokenizer, s string) []string {
	s = validUTF8(s)
	var pieces []string
	for i := 0; i < len(s); {
		j := t.enc.next(s, i)
		pieces = append(pieces, s[i:j])
		i = j
	}
	return pieces
}

// Patterns holds the regexes the pre-tokenizers mirror, by encoding.
var Patterns = map[string]string{CL100KBase: cl100kPattern, O200KBase: o200kPattern}

// DrainRankQueue adds each {rank, start} pair to a rankQueue, then takes
// every rank back out, returning the ranks in the order taken and their
// positions in the order handed out.
func DrainRankQueue(adds [][2]int32) (ranks []int32, starts [][]int32) {
	q := newRankQueue()
	for _, a := range adds {
		q.add(a[0], a[1])
	}
	for {
		r, ok := q.lowest()
		if !ok {
			return ranks, starts
		}
		ranks = append(ranks, r)
		var l []int32
		for i, ok := q.next(); ok; i, ok = q.next() {
			l = append(l, i)
		}
		starts = append(starts, l)
	}
}
