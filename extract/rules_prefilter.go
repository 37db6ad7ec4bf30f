package extract

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The prefilter of a regexp is read off its syntax tree in the manner of
// RE2's: only what is certain (literals, small character classes, and what
// concatenation, alternation and repetition make of them), with every
// string folded. A part it cannot read (".*", "[a-z]+") adds nothing, so
// that a text always passes it.

// Bounds on the prefilter: maxExact on the sets of strings tracked
// exactly, maxClass on the character classes tracked as sets of runes (\d
// is 10), and maxKeySets on how many sets of keys a pattern checks (a few
// sets of long strings rule out as much as all of them).
const (
	maxExact   = 64
	maxClass   = 10
	maxKeySets = 4
)

// prefilterOf derives the prefilter of a simplified regexp.
func prefilterOf(re *syntax.Regexp) prefilter {
	return newAnalyzer().prefilter(re)
}

// analyzer reads prefilters off syntax trees. It remembers what it found
// for each node, since reading a part's affixes reads its parts again.
type analyzer struct {
	infos    map[*syntax.Regexp]info
	affixSet [2]map[*syntax.Regexp][]string // starts, ends
}

func newAnalyzer() *analyzer {
	return &analyzer{infos: map[*syntax.Regexp]info{}, affixSet: [2]map[*syntax.Regexp][]string{{}, {}}}
}

func (a *analyzer) prefilter(re *syntax.Regexp) prefilter {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpAlternate {
		// Each branch has its own prefilter: "^if\b|\bwould\b" needs a
		// text that starts with "if" or holds "would", not one that holds
		// either.
		var p prefilter
		for _, sub := range re.Sub {
			alt := a.prefilter(sub)
			if alt.trivial() {
				return prefilter{}
			}
			p.alternatives = append(p.alternatives, alt)
		}
		return p
	}
	p := prefilter{prefixes: byteStrings(a.anchoredAffixes(re, false)), suffixes: byteStrings(a.anchoredAffixes(re, true))}
	slices.SortFunc(p.prefixes, bytes.Compare)
	for _, pre := range p.prefixes {
		p.firsts.add(pre[0])
		p.prefixLen = max(p.prefixLen, len(pre))
	}
	for _, suf := range p.suffixes {
		p.suffixLen = max(p.suffixLen, len(suf))
	}
	var keys [][]string
	for _, set := range a.analyze(re).asKeys() {
		set = slices.Sorted(slices.Values(set))
		if !slices.ContainsFunc(keys, func(k []string) bool { return slices.Equal(k, set) }) && !common(set) {
			keys = append(keys, set)
		}
	}
	// The most selective sets first: the check stops at the first set the
	// text misses.
	slices.SortStableFunc(keys, func(a, b []string) int { return shortest(b) - shortest(a) })
	for _, set := range keys[:min(len(keys), maxKeySets)] {
		var ks []key
		for _, s := range set {
			ks = append(ks, key{s: []byte(s), grams: bigrams([]byte(s))})
		}
		p.keys = append(p.keys, ks)
	}
	return p
}

// common reports whether nearly every text holds a key of set: a space or
// a letter, not worth a search.
func common(set []string) bool {
	return slices.ContainsFunc(set, func(s string) bool {
		return len(s) == 1 && (s == " " || 'a' <= s[0] && s[0] <= 'z')
	})
}

func byteStrings(ss []string) [][]byte {
	var out [][]byte
	for _, s := range ss {
		out = append(out, []byte(s))
	}
	return out
}

// info is what the prefilter knows of the matches of a regexp: the
// strings it matches, when they are few (exact), or else sets of strings
// every match holds one of (keys).
type info struct {
	exact   []string
	isExact bool
	keys    [][]string
}

// analyze derives the info of a regexp.
func (a *analyzer) analyze(re *syntax.Regexp) info {
	if i, ok := a.infos[re]; ok {
		return i
	}
	i := a.info(re)
	a.infos[re] = i
	return i
}

func (a *analyzer) info(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactly("")
	case syntax.OpLiteral:
		return literal(re)
	case syntax.OpCharClass:
		return class(re)
	case syntax.OpCapture:
		return a.analyze(re.Sub[0])
	case syntax.OpQuest:
		if sub := a.analyze(re.Sub[0]); sub.isExact {
			return exactly(append(slices.Clone(sub.exact), "")...)
		}
	case syntax.OpPlus:
		return info{keys: a.analyze(re.Sub[0]).asKeys()}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return info{keys: a.analyze(re.Sub[0]).asKeys()}
		}
	case syntax.OpConcat:
		return a.concatInfo(re.Sub)
	case syntax.OpAlternate:
		var subs []info
		for _, sub := range re.Sub {
			subs = append(subs, a.analyze(sub))
		}
		return alternate(subs)
	}
	return info{}
}

// concatInfo is the info of a concatenation. Runs of exact parts ("favo",
// "u" or "", "rite") join into longer strings, and a run joins the strings
// the next part starts with ("ha" and "s " or "ve "); the keys of the other
// parts add to theirs.
func (a *analyzer) concatInfo(subs []*syntax.Regexp) info {
	var keys [][]string
	run, isExact := []string{""}, true
	for _, sub := range subs {
		i := a.analyze(sub)
		if i.isExact && len(run)*len(i.exact) <= maxExact {
			run = cross(run, i.exact)
			continue
		}
		isExact = false
		if starts := a.affixes(sub, false); starts != nil && !slices.Contains(starts, "") && len(run)*len(starts) <= maxExact {
			keys = append(keys, exactly(cross(run, starts)...).asKeys()...)
		} else {
			keys = append(keys, exactly(run...).asKeys()...)
		}
		run = []string{""}
		if i.isExact {
			run = i.exact
		} else {
			keys = append(keys, i.asKeys()...)
		}
	}
	if isExact {
		return exactly(run...)
	}
	return info{keys: append(keys, exactly(run...).asKeys()...)}
}

// exactly is the info of a regexp that matches exactly ss.
func exactly(ss ...string) info {
	ss = slices.Clone(ss)
	slices.Sort(ss)
	return info{exact: slices.Compact(ss), isExact: true}
}

// literal is the info of a literal: exact when every rune folds, else the
// longest run of runes that do, as a key.
func literal(re *syntax.Regexp) info {
	// best and run are spans of re.Rune.
	var best, run [2]int
	for i, r := range re.Rune {
		if !foldable(r, re.Flags) {
			run = [2]int{i + 1, i + 1}
			continue
		}
		if run[1] = i + 1; run[1]-run[0] > best[1]-best[0] {
			best = run
		}
	}
	folded := make([]rune, 0, best[1]-best[0])
	for _, r := range re.Rune[best[0]:best[1]] {
		folded = append(folded, foldRune(r))
	}
	switch len(folded) {
	case len(re.Rune):
		return exactly(string(folded))
	case 0:
		return info{}
	}
	return info{keys: [][]string{{string(folded)}}}
}

// foldable reports whether every text rune that a literal's rune r
// matches folds to foldRune(r): under (?i), every rune of r's case orbit
// must. The replacement character is not, since the regexp also reads an
// invalid byte as one, and folding keeps the byte.
func foldable(r rune, flags syntax.Flags) bool {
	if r == utf8.RuneError {
		return false
	}
	if flags&syntax.FoldCase != 0 {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if foldRune(f) != foldRune(r) {
				return false
			}
		}
	}
	return true
}

// class is the info of a character class: the runes of a small one. Under
// (?i) the parser has added each rune's other cases to the class.
func class(re *syntax.Regexp) info {
	var ss []string
	for i := 0; i < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			if len(ss) == maxClass || r == utf8.RuneError {
				return info{}
			}
			ss = append(ss, string(foldRune(r)))
		}
	}
	return exactly(ss...)
}

// cross returns every string of a followed by every string of b.
func cross(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// alternate is the info of a match of one of subs.
func alternate(subs []info) info {
	var exact []string
	for _, i := range subs {
		if !i.isExact {
			exact = nil
			break
		}
		exact = append(exact, i.exact...)
	}
	if exact != nil && len(exact) <= maxExact {
		return exactly(exact...)
	}
	var any []string
	for _, i := range subs {
		keys := i.asKeys()
		if len(keys) == 0 {
			return info{}
		}
		any = append(any, best(keys)...)
	}
	return info{keys: [][]string{minimal(any)}}
}

// asKeys turns the info into keys.
func (i info) asKeys() [][]string {
	if !i.isExact {
		return i.keys
	}
	if slices.Contains(i.exact, "") {
		return nil
	}
	return [][]string{minimal(i.exact)}
}

// best is the most selective of sets of keys: the one whose shortest
// string is longest.
func best(keys [][]string) []string {
	return slices.MaxFunc(keys, func(a, b []string) int { return shortest(a) - shortest(b) })
}

// minimal drops from a set of keys the strings that hold another: a text
// that holds "okay" holds "ok".
func minimal(set []string) []string {
	var out []string
	for i, s := range set {
		if !slices.Contains(set[:i], s) && !slices.ContainsFunc(set, func(t string) bool { return t != s && strings.Contains(s, t) }) {
			out = append(out, s)
		}
	}
	return out
}

// shortest is the length of the shortest string of a set.
func shortest(set []string) int {
	return len(slices.MinFunc(set, func(a, b string) int { return len(a) - len(b) }))
}

// anchoredAffixes returns, for a regexp anchored at the start of the text,
// strings one of which every match starts with, or with fromEnd, for one
// anchored at the end, strings one of which every match ends with; or nil.
func (a *analyzer) anchoredAffixes(re *syntax.Regexp, fromEnd bool) []string {
	var as []string
	switch re.Op {
	case syntax.OpCapture:
		return a.anchoredAffixes(re.Sub[0], fromEnd)
	case syntax.OpConcat:
		anchor := syntax.OpBeginText
		if fromEnd {
			anchor = syntax.OpEndText
		}
		edge, rest := splitEdge(re.Sub, fromEnd)
		if edge.Op != anchor {
			return nil
		}
		as = a.seqAffixes(rest, fromEnd)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			sa := a.anchoredAffixes(sub, fromEnd)
			if sa == nil {
				return nil
			}
			as = append(as, sa...)
		}
	}
	if slices.Contains(as, "") {
		return nil
	}
	// A text that starts with "going " starts with "go".
	var out []string
	for i, s := range as {
		if !slices.Contains(as[:i], s) && !slices.ContainsFunc(as, func(t string) bool { return t != s && hasAffix(s, t, fromEnd) }) {
			out = append(out, s)
		}
	}
	return out
}

// affixes returns strings one of which every match of re starts with, or
// with fromEnd ends with; "" among them when a match may be empty; or nil
// when it cannot tell.
func (a *analyzer) affixes(re *syntax.Regexp, fromEnd bool) []string {
	memo := a.affixSet[0]
	if fromEnd {
		memo = a.affixSet[1]
	}
	if as, ok := memo[re]; ok {
		return as
	}
	as := a.affixesOf(re, fromEnd)
	memo[re] = as
	return as
}

func (a *analyzer) affixesOf(re *syntax.Regexp, fromEnd bool) []string {
	if i := a.analyze(re); i.isExact {
		return i.exact
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return a.affixes(re.Sub[0], fromEnd)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return a.affixes(re.Sub[0], fromEnd)
		}
		return orEmpty(a.affixes(re.Sub[0], fromEnd))
	case syntax.OpQuest, syntax.OpStar:
		return orEmpty(a.affixes(re.Sub[0], fromEnd))
	case syntax.OpConcat:
		return a.seqAffixes(re.Sub, fromEnd)
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			as := a.affixes(sub, fromEnd)
			if as == nil || len(out)+len(as) > maxExact {
				return nil
			}
			out = append(out, as...)
		}
		return out
	}
	return nil
}

// seqAffixes is affixes for a concatenation.
func (a *analyzer) seqAffixes(subs []*syntax.Regexp, fromEnd bool) []string {
	if len(subs) == 0 {
		return []string{""}
	}
	edge, rest := splitEdge(subs, fromEnd)
	first := a.affixes(edge, fromEnd)
	if first == nil {
		return nil
	}
	exact := a.analyze(edge).isExact
	if !slices.Contains(first, "") && !exact {
		return first
	}
	after := a.seqAffixes(rest, fromEnd)
	if exact && after != nil && len(first)*len(after) <= maxExact {
		if fromEnd {
			return cross(after, first)
		}
		return cross(first, after)
	}
	if !slices.Contains(first, "") {
		return first
	}
	// An empty edge leaves the affix to the parts after it.
	if after == nil || len(first)+len(after) > maxExact {
		return nil
	}
	return append(slices.DeleteFunc(slices.Clone(first), func(s string) bool { return s == "" }), after...)
}

// splitEdge returns the first of subs and the rest, or with fromEnd the
// last and the rest.
func splitEdge(subs []*syntax.Regexp, fromEnd bool) (*syntax.Regexp, []*syntax.Regexp) {
	if fromEnd {
		return subs[len(subs)-1], subs[:len(subs)-1]
	}
	return subs[0], subs[1:]
}

// hasAffix reports whether s starts with t, or with fromEnd ends with it.
func hasAffix(s, t string, fromEnd bool) bool {
	if fromEnd {
		return strings.HasSuffix(s, t)
	}
	return strings.HasPrefix(s, t)
}

// orEmpty adds "" to ss, for a part that may match nothing.
func orEmpty(ss []string) []string {
	if ss == nil {
		return nil
	}
	return append(slices.Clone(ss), "")
}
