package slot

import (
	"strconv"
	"strings"
	"sync"

	"github.com/tenure-dev/tenure/wordnet"
)

// synonymSenses is how many of each word's most frequent WordNet senses
// two words may share to be one word of a frame. The table keeps three:
// "delay" and "hold up" share only the third sense of "hold up", and on
// the development parts no pair of neighbours shares any of the three.
const synonymSenses = 3

// pairCache holds the answers of a question about two words, by
// unordered pair, up to maxCachedPairs of them: items are compared with
// many others, and the same words meet again and again.
type pairCache struct {
	mu sync.Mutex
	m  map[[2]string]bool
}

// maxCachedPairs bounds a pairCache; it starts over when full.
const maxCachedPairs = 1 << 16

// get returns the answer for a and b, asking answer on a miss.
func (c *pairCache) get(a, b string, answer func() bool) bool {
	key := [2]string{a, b}
	if a > b {
		key = [2]string{b, a}
	}
	c.mu.Lock()
	same, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return same
	}
	same = answer()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedPairs {
		c.m = map[[2]string]bool{}
	}
	c.m[key] = same
	c.mu.Unlock()
	return same
}

// synonymCache holds the answers of synonymous.
var synonymCache pairCache

// synonymous reports whether two plain words of frames say the same by
// WordNet: forms of one lemma, or lemmas that share one of their most
// frequent senses ("kids" and "children", "held up" and "delayed").
// Verbs are compared as verbs and other words as nouns or adjectives;
// names are values, never synonyms. Forms of one verb are one word
// however each is used, as words of one stem are ("the families we fed",
// "how many families do we feed"): WordNet's exception lists give the
// irregular forms the stemmer misses.
func synonymous(x, w Word) bool {
	if x.Name || w.Name {
		return false
	}
	a, b := lookupForm(x), lookupForm(w)
	if a == "" || b == "" || a == b {
		return a != "" && a == b
	}
	// The answer depends on how each word is used, so the cache keys
	// the pair by that too.
	kind := "\x00" + strconv.FormatBool(x.Verb) + strconv.FormatBool(w.Verb)
	return synonymCache.get(a+kind, b+kind, func() bool {
		if wordnet.Synonymous(a, b, wordnet.Verb, 0) {
			return true
		}
		if x.Verb != w.Verb {
			return false
		}
		if x.Verb {
			return wordnet.Synonymous(a, b, wordnet.Verb, synonymSenses)
		}
		return wordnet.Synonymous(a, b, wordnet.Noun, synonymSenses) ||
			wordnet.Synonymous(a, b, wordnet.Adjective, synonymSenses)
	})
}

// lookupForm is a word as WordNet is asked about it: lowercase, without a
// possessive.
func lookupForm(w Word) string {
	t := strings.ToLower(w.Text)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "'s"), "'")
	return t
}

// adverbParticles are the particles that seldom open a phrase of their
// own: "held up" is a verb, "held in the hall" is not.
var adverbParticles = fields(`up out down off away back`)

// phrasalVerb returns the base form of w when w followed by the particle
// p is a phrasal verb WordNet knows ("held" and "up" are "hold up"), or
// "".
func phrasalVerb(w, p string) string {
	if !adverbParticles[p] {
		return ""
	}
	for _, base := range wordnet.Lemmas(w, wordnet.Verb) {
		if wordnet.Known(base+" "+p, wordnet.Verb) {
			return base
		}
	}
	return ""
}

// verbOnly reports whether WordNet knows w as a verb and as nothing else.
func verbOnly(w Word) bool {
	f := lookupForm(w)
	return wordnet.Known(f, wordnet.Verb) && !wordnet.Known(f, wordnet.Noun) && !wordnet.Known(f, wordnet.Adjective) &&
		!wordnet.Known(f, wordnet.Adverb)
}

// agentCache holds the answers of agentOf.
var agentCache pairCache

// agentOf reports whether n is the agent noun of the verb v as the
// subject of an item: a noun for a person that WordNet derives from v and
// that is v with a suffix ("rider" and "ride", "paddler" and "paddle",
// "visitor" and "visit"), opening the item. "Riders must be over 10" and
// "Nobody under 12 can ride" are about one thing, who may ride; "Fix the
// printer" is not about printing.
func agentOf(n, v Word) bool {
	if n.Name || v.Name || n.Verb || !n.opens {
		return false
	}
	a, b := lookupForm(n), lookupForm(v)
	if a == b || len(b) < minAgentVerb {
		return false
	}
	key := a + ">" + b
	return agentCache.get(key, "", func() bool {
		for _, l := range wordnet.Lemmas(b, wordnet.Verb) {
			if strings.HasPrefix(a, strings.TrimSuffix(l, "e")) && len(a) > len(l) &&
				wordnet.Class(a, wordnet.Noun) == "noun.person" && wordnet.Derived(a, l) {
				return true
			}
		}
		return false
	})
}

// minAgentVerb is how long a verb is at least to have its agent noun
// found by its form.
const minAgentVerb = 3
