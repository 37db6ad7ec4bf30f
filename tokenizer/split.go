package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below replace the regexes tiktoken-go splits text with
// before BPE. BPE runs on each piece on its own, so the tokens are exact only
// if the pieces are exactly the regex's matches. Each function returns the
// end of the match that starts at s[i:], mirroring how regexp2 (a
// backtracking engine) finds it: alternatives are tried in order and the
// first that matches wins; quantifiers are greedy and give back one rune at
// a time only when what follows fails. Every rune is a letter, a number, a
// space or something else, and some alternative matches each of those, so
// the matches tile s with no gaps, as the regex's do, and each function
// returns an end past i.
//
// They expect valid UTF-8: tiktoken-go runs its regex over []rune(s), so an
// invalid byte takes part as U+FFFD, and validUTF8 makes that substitution
// up front.

// cl100kPattern is cl100k_base's pattern, as tiktoken-go spells it.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// nextCL100K returns the end of the cl100kPattern match at s[i:].
func nextCL100K(s string, i int) int {
	c, n := classAt(s, i)
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if k := contraction(s, i); k > 0 {
		return i + k
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+: a letter cannot be the optional prefix, so
	// a run of letters starts here or just after a prefix rune.
	if c&classLetter != 0 {
		return skipRun(s, i+n, classLetter)
	}
	if c&(classNewline|classNumber) == 0 && i+n < len(s) {
		if nc, _ := classAt(s, i+n); nc&classLetter != 0 {
			return skipRun(s, i+n, classLetter)
		}
	}
	// \p{N}{1,3}
	if c&classNumber != 0 {
		return skipNumbers(s, i)
	}
	// ?[^\s\p{L}\p{N}]+[\r\n]*
	if e := symbols(s, i, "\r\n"); e >= 0 {
		return e
	}
	return whitespace(s, i)
}

// o200kPattern is o200k_base's pattern, as tiktoken-go spells it.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// nextO200K returns the end of the o200kPattern match at s[i:].
func nextO200K(s string, i int) int {
	c, n := classAt(s, i)
	// The optional prefix [^\r\n\p{L}\p{N}]? is tried taken, then skipped,
	// before the next alternative. Marks (\p{M}) can be the prefix and also
	// start a word, so both tries matter.
	prefix := c&(classNewline|classLetter|classNumber) == 0
	if prefix {
		if e := casedWord(s, i+n); e >= 0 {
			return e
		}
	}
	if e := casedWord(s, i); e >= 0 {
		return e
	}
	if prefix {
		if e := upperWord(s, i+n); e >= 0 {
			return e
		}
	}
	if e := upperWord(s, i); e >= 0 {
		return e
	}
	if c&classNumber != 0 {
		return skipNumbers(s, i)
	}
	if e := symbols(s, i, "\r\n/"); e >= 0 {
		return e
	}
	return whitespace(s, i)
}

// casedWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// and an optional contraction at s[i:], returning the end or -1. The head
// run is greedy, so when no tail rune follows it, it gives runes back until
// the last of its own runes that can also serve as the tail (Lm, Lo, M);
// that one rune becomes the whole tail, since the head rune after it, if
// any, cannot.
func casedWord(s string, i int) int {
	j, lastTailEnd := i, -1
	for j < len(s) {
		c, n := classAt(s, j)
		if c&classUpper == 0 {
			break
		}
		j += n
		if c&classLower != 0 {
			lastTailEnd = j
		}
	}
	end := -1
	if j < len(s) {
		if c, _ := classAt(s, j); c&classLower != 0 {
			end = skipRun(s, j, classLower)
		}
	}
	if end < 0 {
		if lastTailEnd < 0 {
			return -1
		}
		end = lastTailEnd
	}
	return end + contraction(s, end)
}

// upperWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// and an optional contraction at s[i:], returning the end or -1.
func upperWord(s string, i int) int {
	j := skipRun(s, i, classUpper)
	if j == i {
		return -1
	}
	end := skipRun(s, j, classLower)
	return end + contraction(s, end)
}

// contraction returns the length of the (?i:'s|'t|'re|'ve|'m|'ll|'d) match
// at s[i:], or 0. regexp2 matches case-insensitively by lowering the input
// rune with unicode.ToLower, so foldsTo does the same.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	r, n := runeAt(s, i+1)
	k := 1 + n
	switch {
	case foldsTo(r, 's'), foldsTo(r, 't'), foldsTo(r, 'm'), foldsTo(r, 'd'):
		return k
	case foldsTo(r, 'r'), foldsTo(r, 'v'):
		if i+k < len(s) {
			if r2, n2 := runeAt(s, i+k); foldsTo(r2, 'e') {
				return k + n2
			}
		}
	case foldsTo(r, 'l'):
		if i+k < len(s) {
			if r2, n2 := runeAt(s, i+k); foldsTo(r2, 'l') {
				return k + n2
			}
		}
	}
	return 0
}

// foldsTo reports whether unicode.ToLower(r) is the ASCII letter b.
func foldsTo(r rune, b byte) bool {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r == rune(b)
	}
	return unicode.ToLower(r) == rune(b)
}

// skipNumbers matches \p{N}{1,3} at s[i:], which starts with a number.
func skipNumbers(s string, i int) int {
	for k := 0; k < 3 && i < len(s); k++ {
		c, n := classAt(s, i)
		if c&classNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// symbols matches ` ?[^\s\p{L}\p{N}]+` followed by any run of the ASCII
// bytes in tail, returning the end or -1. If a space is not followed by a
// symbol, giving the space back leaves a space where a symbol is needed, so
// the alternative fails.
func symbols(s string, i int, tail string) int {
	if s[i] == ' ' {
		i++
	}
	start := i
	for i < len(s) {
		c, n := classAt(s, i)
		if c&(classSpace|classLetter|classNumber) != 0 {
			break
		}
		i += n
	}
	if i == start {
		return -1
	}
	for i < len(s) && strings.IndexByte(tail, s[i]) >= 0 {
		i++
	}
	return i
}

// whitespace matches `\s*[\r\n]+|\s+(?!\S)|\s+` at s[i:], which starts
// with a space (every other rune is matched by an earlier alternative):
//   - if the run of spaces holds a newline, \s* gives back to the last one
//     and the match ends just after it;
//   - else a run that ends the text, or a single space, is taken whole;
//   - else the run's last rune is left to start the next match, since
//     (?!\S) only holds before a space.
//
// The first rune is taken unconditionally, so the match is never empty.
func whitespace(s string, i int) int {
	c, n := classAt(s, i)
	end, last, lastNewline := i+n, i, -1
	if c&classNewline != 0 {
		lastNewline = i
	}
	for end < len(s) {
		c, n := classAt(s, end)
		if c&classSpace == 0 {
			break
		}
		if c&classNewline != 0 {
			lastNewline = end
		}
		last = end
		end += n
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case end == len(s) || last == i:
		return end
	default:
		return last
	}
}

// validUTF8 returns s with every byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, one replacement per byte, as Go's []rune(s)
// conversion does (and so tiktoken-go). strings.ToValidUTF8 would merge a
// run of bad bytes into one replacement and change the count.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*len(s)/3)
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
