package extract

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// pattern is a compiled regexp behind a prefilter: plain substring tests
// for strings that every match holds. Most sentences hold none of the words
// a pattern is built around ("decided", "budget", "allergic"), and Go's
// regexp engine, which has no such test of its own for case-insensitive
// patterns, backtracks from every position of the sentence before it finds
// that out; that was most of the extractor's time. The strings are read off
// the expression (see prefilterOf), so they stay right when a pattern is
// edited. A text without them is one the regexp cannot match, so every
// method returns what the regexp's method would.
type pattern struct {
	re *regexp.Regexp
	// filter returns the prefilter, read on first use: reading all of
	// them when the package starts would take longer than compiling the
	// regexps.
	filter func() *prefilter
}

// allPatterns are the patterns mustPattern compiled, for the test that
// checks each prefilter against its regexp.
var allPatterns []*pattern

// mustPattern compiles expr like regexp.MustCompile, with its prefilter.
func mustPattern(expr string) *pattern {
	p := &pattern{re: regexp.MustCompile(expr), filter: sync.OnceValue(func() *prefilter {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			panic(err) // unreachable: MustCompile accepted expr
		}
		pf := prefilterOf(re.Simplify())
		return &pf
	})}
	allPatterns = append(allPatterns, p)
	return p
}

// may reports whether s passes the prefilter, so that the regexp may match
// it.
func (p *pattern) may(s string) bool { return p.filter().may(s) }

// mayText is may for a text.
func (p *pattern) mayText(t *text) bool { return p.filter().mayText(t) }

// MatchString and the methods below are those of regexp.Regexp, behind
// the prefilter.

func (p *pattern) MatchString(s string) bool { return p.may(s) && p.re.MatchString(s) }

func (p *pattern) FindStringSubmatch(s string) []string {
	if !p.may(s) {
		return nil
	}
	return p.re.FindStringSubmatch(s)
}

func (p *pattern) FindStringSubmatchIndex(s string) []int {
	if !p.may(s) {
		return nil
	}
	return p.re.FindStringSubmatchIndex(s)
}

func (p *pattern) FindStringIndex(s string) []int {
	if !p.may(s) {
		return nil
	}
	return p.re.FindStringIndex(s)
}

func (p *pattern) ReplaceAllString(s, repl string) string {
	if !p.may(s) {
		return s
	}
	return p.re.ReplaceAllString(s, repl)
}

func (p *pattern) Split(s string, n int) []string {
	if n != 0 && !p.may(s) {
		return []string{s}
	}
	return p.re.Split(s, n)
}

// text is a string that many patterns read, folded once for all their
// prefilters. The methods that take a text are those that take its string.
type text struct {
	s      string
	folded []byte
	grams  grams
}

// newText returns s as a text.
func newText(s string) *text {
	f := appendFold(make([]byte, 0, len(s)), s)
	return &text{s: s, folded: f, grams: bigrams(f)}
}

func (p *pattern) MatchText(t *text) bool { return p.mayText(t) && p.re.MatchString(t.s) }

func (p *pattern) FindTextSubmatch(t *text) []string {
	if !p.mayText(t) {
		return nil
	}
	return p.re.FindStringSubmatch(t.s)
}

func (p *pattern) FindTextSubmatchIndex(t *text) []int {
	if !p.mayText(t) {
		return nil
	}
	return p.re.FindStringSubmatchIndex(t.s)
}

func (p *pattern) FindTextIndex(t *text) []int {
	if !p.mayText(t) {
		return nil
	}
	return p.re.FindStringIndex(t.s)
}

// prefilter is what a text must hold for a regexp to match it. Texts and
// the prefilter's strings are compared folded (see appendFold).
type prefilter struct {
	// prefixes, for a regexp anchored at the start of the text, are
	// strings one of which every match starts with, sorted; nil when
	// unknown. suffixes are the same for the end of the text.
	prefixes, suffixes [][]byte
	// prefixLen and suffixLen are the lengths of the longest prefix and
	// suffix, and firsts holds the first bytes of the prefixes.
	prefixLen, suffixLen int
	firsts               byteSet
	// keys are sets of strings: every match holds one string of each.
	keys [][]key
	// alternatives are the prefilters of the branches of a regexp that is
	// an alternation: a text passes one of them.
	alternatives []prefilter
}

// key is a string of a set of keys, with its bigrams, which rule most
// strings out before a search.
type key struct {
	s     []byte
	grams grams
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) add(c byte)      { b[c/64] |= 1 << (c % 64) }
func (b *byteSet) has(c byte) bool { return b[c/64]&(1<<(c%64)) != 0 }

// trivial reports whether every text passes the prefilter.
func (p *prefilter) trivial() bool {
	return p.prefixes == nil && p.suffixes == nil && p.keys == nil && p.alternatives == nil
}

// may reports whether s passes the prefilter.
func (p *prefilter) may(s string) bool {
	if p.trivial() {
		return true
	}
	var buf [256]byte
	if p.keys == nil && p.alternatives == nil {
		// Only the ends of the text are compared. A rune is at most 4
		// bytes, so as many runes as the longest affix has bytes are
		// enough.
		head := appendFold(buf[:0], s[:min(len(s), utf8.UTFMax*p.prefixLen)])
		tail := appendFold(head[len(head):], s[max(0, len(s)-utf8.UTFMax*p.suffixLen):])
		return p.endsWell(head, tail)
	}
	f := appendFold(buf[:0], s)
	return p.admits(f, bigrams(f))
}

// mayText is may for a text.
func (p *prefilter) mayText(t *text) bool { return p.admits(t.folded, t.grams) }

// admits reports whether the folded text f, with bigrams g, passes the
// prefilter.
func (p *prefilter) admits(f []byte, g grams) bool {
	if p.alternatives != nil {
		for i := range p.alternatives {
			if p.alternatives[i].admits(f, g) {
				return true
			}
		}
		return false
	}
	if !p.endsWell(f, f) {
		return false
	}
	for _, set := range p.keys {
		if !holdsOne(f, g, set) {
			return false
		}
	}
	return true
}

// endsWell reports whether a folded text that starts with head and ends
// with tail has a prefix and a suffix.
func (p *prefilter) endsWell(head, tail []byte) bool {
	return (p.prefixes == nil || p.startsWell(head)) &&
		(p.suffixes == nil || slices.ContainsFunc(p.suffixes, func(s []byte) bool { return bytes.HasSuffix(tail, s) }))
}

// startsWell reports whether the folded text f starts with a prefix.
func (p *prefilter) startsWell(f []byte) bool {
	if len(f) == 0 || !p.firsts.has(f[0]) {
		return false
	}
	// No prefix starts with another, so the only one f may start with is
	// the last one sorted before it.
	lo, hi := 0, len(p.prefixes)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); bytes.Compare(p.prefixes[m], f) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo > 0 && bytes.HasPrefix(f, p.prefixes[lo-1])
}

// holdsOne reports whether the folded text f, with bigrams g, holds one of
// the keys of set.
func holdsOne(f []byte, g grams, set []key) bool {
	for i := range set {
		if set[i].grams.in(g) && bytes.Contains(f, set[i].s) {
			return true
		}
	}
	return false
}

// grams is a set of byte pairs, hashed to 128 bits: a string that holds
// another holds its pairs.
type grams [2]uint64

// bigrams returns the byte pairs of f.
func bigrams(f []byte) grams {
	var g grams
	for i := 1; i < len(f); i++ {
		h := (uint(f[i-1])*31 + uint(f[i])) % 128
		g[h/64] |= 1 << (h % 64)
	}
	return g
}

// in reports whether every pair of g is in h.
func (g grams) in(h grams) bool { return g[0]&^h[0] == 0 && g[1]&^h[1] == 0 }

// The runes other than ASCII letters that (?i) matches to an ASCII letter.
const (
	longS  = '\u017f' // ſ, an s
	kelvin = '\u212a' // the Kelvin sign, a k
)

// appendFold appends s to dst in the form in which texts and prefilters
// are compared: ASCII letters lowercase, longS and kelvin as the letters
// they match, and the space characters of \s as a space (so that \s is one
// string, not five). Every other byte is kept, so that a text that matches
// a literal holds the literal's folded form.
func appendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			c = foldASCII[c]
		case strings.HasPrefix(s[i:], string(longS)):
			c, i = 's', i+utf8.RuneLen(longS)-1
		case strings.HasPrefix(s[i:], string(kelvin)):
			c, i = 'k', i+utf8.RuneLen(kelvin)-1
		}
		dst = append(dst, c)
	}
	return dst
}

// foldASCII is appendFold for ASCII bytes.
var foldASCII = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		t[c] = byte(foldRune(rune(c)))
	}
	return t
}()

// foldRune is appendFold for one rune.
func foldRune(r rune) rune {
	switch {
	case 'A' <= r && r <= 'Z':
		return r + 'a' - 'A'
	case r == '\t' || r == '\n' || r == '\f' || r == '\r':
		return ' '
	case r == longS:
		return 's'
	case r == kelvin:
		return 'k'
	}
	return r
}
