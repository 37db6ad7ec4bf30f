package tokenizer

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// class holds the character classes of the pre-tokenizer patterns that a
// rune belongs to. Each bit is defined by the same test regexp2 (the engine
// tiktoken-go runs the patterns with) applies: \p{X} is unicode.Is on Go's
// table for category X, and \s is unicode.IsSpace. So the hand-written
// splitters agree with the regexes rune for rune, for the Unicode version
// of the Go release that builds them both.
type class uint8

const (
	classLetter  class = 1 << iota // \p{L}
	classNumber                    // \p{N}
	classSpace                     // \s
	classNewline                   // \r or \n
	classUpper                     // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k_base's word head
	classLower                     // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k_base's word tail
)

// upperTables and lowerTables spell out classUpper and classLower.
var (
	upperTables = []*unicode.RangeTable{unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M}
	lowerTables = []*unicode.RangeTable{unicode.Ll, unicode.Lm, unicode.Lo, unicode.M}
)

// classOfRune computes a rune's classes from the unicode tables, one test
// per class. It is the definition; classOf is the fast path that must agree
// with it.
func classOfRune(r rune) class {
	var c class
	if unicode.Is(unicode.Letter, r) {
		c |= classLetter
	}
	if unicode.Is(unicode.Number, r) {
		c |= classNumber
	}
	if unicode.IsSpace(r) {
		c |= classSpace
	}
	if r == '\r' || r == '\n' {
		c |= classNewline
	}
	if unicode.In(r, upperTables...) {
		c |= classUpper
	}
	if unicode.In(r, lowerTables...) {
		c |= classLower
	}
	return c
}

// tableRunes is how many runes classTable covers: the Basic Multilingual
// Plane and the Supplementary Multilingual Plane, where emoji and most
// historic scripts live. Runes past it (CJK extensions, tags, private use)
// fall back to classOfRune.
const tableRunes = 0x20000

// classTable caches classOfRune for the first tableRunes runes: looking a
// rune up in several range tables costs tens of nanoseconds, and CJK,
// Cyrillic or emoji-heavy text would pay that for every character. It is
// filled once, by loadClasses, before any encoder exists, and only read
// after that.
var (
	classTable     [tableRunes]class
	classTableOnce sync.Once
)

// loadClasses fills classTable by walking the range tables rather than
// testing each rune against each table.
func loadClasses() {
	classTableOnce.Do(func() {
		mark := func(c class, tables ...*unicode.RangeTable) {
			for _, t := range tables {
				for _, r := range t.R16 {
					for x := uint32(r.Lo); x <= uint32(r.Hi); x += uint32(r.Stride) {
						classTable[x] |= c
					}
				}
				for _, r := range t.R32 {
					for x := r.Lo; x <= r.Hi && x < tableRunes; x += r.Stride {
						classTable[x] |= c
					}
				}
			}
		}
		mark(classLetter, unicode.Letter)
		mark(classNumber, unicode.Number)
		mark(classUpper, upperTables...)
		mark(classLower, lowerTables...)
		// unicode.IsSpace special-cases Latin-1 instead of reading
		// unicode.White_Space, so ask it directly; it is cheap.
		for r := range rune(tableRunes) {
			if unicode.IsSpace(r) {
				classTable[r] |= classSpace
			}
		}
		classTable['\r'] |= classNewline
		classTable['\n'] |= classNewline
	})
}

// classOf returns the classes of r; loadClasses must have run.
func classOf(r rune) class {
	if uint32(r) < tableRunes {
		return classTable[r]
	}
	return classOfRune(r)
}

// runeAt decodes the rune at s[i:], which must be non-empty valid UTF-8.
func runeAt(s string, i int) (rune, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return rune(b), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// classAt returns the classes of the rune at s[i:] and its length; s[i:]
// must be non-empty valid UTF-8.
func classAt(s string, i int) (class, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return classTable[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOf(r), n
}

// skipRun returns the end of the run of runes in any of classes c that
// starts at s[i:].
func skipRun(s string, i int, c class) int {
	for i < len(s) {
		rc, n := classAt(s, i)
		if rc&c == 0 {
			break
		}
		i += n
	}
	return i
}
