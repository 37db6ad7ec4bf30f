package slot

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// paraphrased reports whether c says what old says with other
// predicates, when their frames do not put them on one slot: the things
// both are about (their nouns, names and values) are the same, and only
// how it is said differs ("Submit the interconnection application to the
// utility", "Send the utility the interconnection application"; "The
// supplier might sue over the late payment", "We could face a lawsuit
// from the supplier over the late payment").
//
// The words only one item has are first paired with related words only
// the other has: derivations (WordNet: "sue" and "lawsuit", "expire" and
// "expiry"), synonyms among adverbs ("indoors", "inside") and
// abbreviations ("cert", "certificate"). Then no thing may be named on
// one side only while another is named on the other (two things, not
// one), at least minAlignAnchors nouns, names or values must be shared,
// and the items must not be a minimal pair: two frames one word apart,
// the rest in the same order, are another thing done to the same thing
// ("Write the evaluation report", "Review the evaluation report"), as
// people who restate something seldom keep every word of it but one.
//
// The items must hold the same values and polarity, and the message
// must neither reverse nor add: a paraphrase is merged, never taken for
// a change.
func paraphrased(old, c *Item, d frameDiff, cues Cues) bool {
	if old.Negated != c.Negated || cues.Reversal != "" || cues.Additive || len(cues.Instead) > 0 || len(c.Instead) > 0 ||
		c.InsteadCue || !sameFacets(old.Facets, c.Facets) {
		return false
	}
	return aligned(old, c, d, len(facetGroups(old.Facets)))
}

// paraphrasedChange reports whether c says with other predicates what
// old says of one thing, with another value: the alignment of
// paraphrased holds on what they share besides that value, the items
// state values of the same kinds and have one polarity, and the message
// does not add ("Every expense claim needs two signatures", "Expense
// claims must be signed by three managers"). A polarity that differs
// between paraphrases may be said by a word of the other ("fast", "no
// food"): it is no sure change.
func paraphrasedChange(old, c *Item, d frameDiff, cues Cues) bool {
	if old.Negated != c.Negated || cues.Additive || !sameFacetKeys(old.Facets, c.Facets) {
		return false
	}
	ga, gb := facetGroups(old.Facets), facetGroups(c.Facets)
	ia, ib := inclusiveGroups(old.Facets), inclusiveGroups(c.Facets)
	same := 0
	for k := range ga {
		if sameGroup(ga, gb, ia, ib, k) {
			same++
		}
	}
	return aligned(old, c, d, same)
}

// aligned is the alignment of paraphrased: values is how many values
// the items share.
func aligned(old, c *Item, d frameDiff, values int) bool {
	if old.recipient != "" || c.recipient != "" || len(d.namesA) > 0 || len(d.namesB) > 0 {
		return false
	}
	onlyA, onlyB, paired := pairRelated(old.Frame, c.Frame, d.onlyA, d.onlyB)
	thingA := slices.ContainsFunc(onlyA, func(w Word) bool { return isNoun(w) || modifies(w, old.Frame) })
	thingB := slices.ContainsFunc(onlyB, func(w Word) bool { return isNoun(w) || modifies(w, c.Frame) })
	if thingA && thingB {
		return false
	}
	anchors := values + d.shared + paired
	if anchors < minAlignAnchors {
		return false
	}
	if anchors < minAlignAnchors+1 && slices.ContainsFunc(onlyA, isVerb) && slices.ContainsFunc(onlyB, isVerb) {
		// Each does something of its own to what they share: "Pick up
		// the cake from the bakery" is not "The cake from the bakery
		// needs ordering" unless more pins them down.
		return false
	}
	return !minimalPair(old.Frame, c.Frame, onlyA, onlyB)
}

// sameFacetKeys reports whether a and b state values of the same keys,
// and at least one.
func sameFacetKeys(a, b []Facet) bool {
	ga, gb := facetGroups(a), facetGroups(b)
	if len(ga) == 0 || len(ga) != len(gb) {
		return false
	}
	for k := range ga {
		if _, ok := gb[k]; !ok {
			return false
		}
	}
	return true
}

// isVerb reports whether w is a plain word that is not a noun.
func isVerb(w Word) bool { return !w.Name && w.Stem != "to" && w.Stem != "from" && !isNoun(w) }

// minAlignAnchors is how many nouns, names and values two paraphrases
// share at least.
const minAlignAnchors = 2

// pairRelated pairs the words of a, only frame fa has, with related
// words of b, only frame fb has, one to one, and returns the words of
// each left unpaired and how many pairs nouns made. Two words that both
// modify the word after them are not paired: they may qualify different
// things ("the rented skis", "the rental shop").
func pairRelated(fa, fb, a, b []Word) (restA, restB []Word, paired int) {
	used := make([]bool, len(b))
	for _, x := range a {
		k := slices.IndexFunc(b, func(y Word) bool {
			return related(x, y) && !(modifies(x, fa) && modifies(y, fb)) || counts(x, y) || counts(y, x)
		})
		if k < 0 || used[k] {
			restA = append(restA, x)
			continue
		}
		used[k] = true
		if isNoun(x) || isNoun(b[k]) {
			paired++
		}
	}
	for k, y := range b {
		if !used[k] {
			restB = append(restB, y)
		}
	}
	return restA, restB, paired
}

// counts reports whether x, the noun a question asks the number of ("How
// many guests can the barn hold?"), and y, a noun that names a number
// ("What is the capacity of the barn?"), ask one thing.
func counts(x, y Word) bool {
	return x.counted && numberNouns[strings.ToLower(y.Text)]
}

// numberNouns name the number or amount of something.
var numberNouns = fields(`number numbers count amount capacity headcount total quantity`)

// modifies reports whether w, a plain word that is not a verb, stands
// right before a word of frame that is not a verb either, as a modifier
// of it ("the rental shop").
func modifies(w Word, frame []Word) bool {
	return !w.Verb && !w.Name && slices.ContainsFunc(frame, func(x Word) bool { return x.at == w.at+1 && !x.Verb })
}

// relatedCache holds the answers of related.
var relatedCache pairCache

// related reports whether two plain words, however each is used, say one
// thing: one derives from the other or from a synonym of it ("sue",
// "lawsuit"), they are adverbs of one sense ("indoors", "inside"), or one
// abbreviates the other ("cert", "certificate").
func related(x, y Word) bool {
	if x.Name || y.Name {
		return false
	}
	a, b := lookupForm(x), lookupForm(y)
	if a == "" || b == "" {
		return false
	}
	if abbreviates(a, b) || abbreviates(b, a) {
		return true
	}
	return relatedCache.get(a, b, func() bool {
		return wordnet.Derived(a, b) || wordnet.Synonymous(a, b, wordnet.Adverb, synonymSenses)
	})
}

// minAbbreviation is how long an abbreviation is at least.
const minAbbreviation = 4

// abbreviates reports whether short is a clipped form of long: long
// begins with it and is at least twice as long ("cert", "certificate";
// "spec", "specification"), so that a word and a longer one that merely
// begins alike ("plan", "planet") are not taken for one.
func abbreviates(short, long string) bool {
	return len(short) >= minAbbreviation && len(long) >= 2*len(short) && strings.HasPrefix(long, short)
}

// minimalPair reports whether two frames are one word apart: the words
// only one of them has (onlyA, onlyB, once related words are paired) are
// one word each, at the same place in frames that are otherwise the same
// words in the same order.
func minimalPair(a, b []Word, onlyA, onlyB []Word) bool {
	if len(onlyA) != 1 || len(onlyB) != 1 {
		return false
	}
	a, b = uniq(a), uniq(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Stem == onlyA[0].Stem {
			if b[i].Stem != onlyB[0].Stem {
				return false
			}
			continue
		}
		if !sameStem(a[i].Stem, b[i].Stem) && !synonymous(a[i], b[i]) && !related(a[i], b[i]) {
			return false
		}
	}
	return true
}

// parsedSubject reports whether an item's Subject is the one Parse reads
// from its text, so that it says nothing the text does not.
func parsedSubject(it *tenure.StateItem, a Analysis) bool {
	s, _ := a.Parse()
	return it.Subject == s
}
