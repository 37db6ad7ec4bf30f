package retrieve

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Terms splits text into lowercase word tokens, drops English stop words
// and stems the rest with the Snowball (Porter2) English stemmer. Numbers
// are kept as they are.
func Terms(text string) []string { return AppendTerms(nil, text) }

// AppendTerms appends the terms of text (see Terms) to dst and returns the
// extended slice: for callers that analyze many texts and can reuse one.
func AppendTerms(dst []string, text string) []string {
	eachWord(text, func(w string) {
		if !stopWords[w] {
			dst = append(dst, Stem(w))
		}
	})
	return dst
}

// Words splits text into lowercase word tokens: runs of letters and digits,
// keeping inner apostrophes out ("don't" → "don", "t" is dropped as a
// one-letter token unless it is a digit).
func Words(text string) []string {
	var out []string
	eachWord(text, func(w string) { out = append(out, w) })
	return out
}

// eachWord calls fn with each of the words Words returns, in order.
func eachWord(text string, fn func(w string)) {
	start := -1
	lower := strings.ToLower(text)
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := lower[start:end]
		start = -1
		if len(w) == 1 && !unicode.IsDigit(rune(w[0])) {
			return
		}
		fn(w)
	}
	for i, r := range lower {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(lower))
}

// ContentWords returns the distinct words of text that are not stop
// words, in order: what a full-text query should look for.
func ContentWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range Words(text) {
		if !IsStopWord(w) && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

var (
	stemCache  sync.Map // word → stem
	stemCached atomic.Int64
)

// maxCachedStems bounds the stem cache: a language's working vocabulary
// fits, while a long-running server fed arbitrary text (typos, ids, other
// languages) does not grow without end.
const maxCachedStems = 200_000

// Stem returns the Snowball English stem of a lowercase word, cached.
func Stem(w string) string {
	if s, ok := stemCache.Load(w); ok {
		return s.(string)
	}
	s := w
	if !isNumber(w) {
		s = english.Stem(w, false)
	}
	if stemCached.Load() < maxCachedStems {
		// w and s are usually slices of a whole text (see Words): cached
		// as they are, they would keep that text alive for good.
		if _, loaded := stemCache.LoadOrStore(strings.Clone(w), strings.Clone(s)); !loaded {
			stemCached.Add(1)
		}
	}
	return s
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// IsStopWord reports whether the lowercase word is an English stop word.
func IsStopWord(w string) bool { return stopWords[w] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren as at be because been
		before being below between both but by can cannot could couldn did didn do does doesn doing don down during each few
		for from further had hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn
		it its itself just let ll me more most mustn my myself no nor not now of off on once only or other ought our ours
		ourselves out over own re same shan she should shouldn so some such than that the their theirs them themselves then
		there these they this those through to too under until up ve very was wasn we were weren what when where which while
		who whom why will with won would wouldn you your yours yourself yourselves also get got really yeah oh ok okay`) {
		m[w] = true
	}
	return m
}()
