package slot

import (
	"slices"

	"github.com/tenure-dev/tenure"
)

// Other ways two items are one slot: the same values, the same risk,
// and verbs of opposite sense.

// sameValues reports whether two items are one slot by what they hold
// rather than by how they say it: they have the same explicit values
// (quantities, dates, times, versions, names) and the same polarity, they
// share a word that is not a verb (the head of what they are about, or
// its synonym), and the words only one of them has are of one side or of
// one kind: "Crew shifts cannot exceed 12 hours a day" says with a noun
// what "The crew may work at most 12 hours a day" says with a verb. Two
// items that each have a noun of their own are two things with one value
// ("three quotes for the kitchen", "three quotes for the bathroom"); two
// that each have a verb of their own do two things to one ("migrate the
// staging database to RDS", "back up the staging database to RDS"). Items
// that hold no value at all must share most of their words as well.
func sameValues(old, c *Item, d frameDiff) bool {
	if old.Negated != c.Negated || len(d.namesA) > 0 || len(d.namesB) > 0 || !sameFacets(old.Facets, c.Facets) {
		return false
	}
	if len(old.Facets)+d.shared-d.sharedPlain == 0 && (d.overlap() < minValuelessOverlap || sharedNouns(old.Frame, c.Frame) < 2) {
		return false
	}
	if sharedNouns(old.Frame, c.Frame) == 0 {
		return false
	}
	nounA, verbA := wordKinds(d.onlyA)
	nounB, verbB := wordKinds(d.onlyB)
	if verbA && verbB && (lightOnly(d.onlyA) || lightOnly(d.onlyB) ||
		anchors(old, d) >= minAnchors && d.overlap() >= minValuelessOverlap) {
		// A verb that says little ("put the new hours on the website")
		// against one that says what is done ("update the website with
		// the new hours"): one thing done, told with other words.
		verbA = false
	}
	return !(nounA && nounB) && !(verbA && verbB)
}

// anchors counts the explicit values two items of equal values share:
// their facets and the names they both hold.
func anchors(old *Item, d frameDiff) int {
	return len(facetGroups(old.Facets)) + d.shared - d.sharedPlain
}

// minAnchors is how many shared explicit values pin two items that do
// different-sounding things down to one ("Draft the engagement letter for
// Ms Okafor by Thursday", "Prepare Ms Okafor's engagement letter by
// Thursday"): a person and a date, a count and a date.
const minAnchors = 2

// sameRisk reports whether two risks are one: what is at risk and what
// threatens it are named by their nouns, and how it goes wrong is told
// with verbs that vary ("The resin shipment could be delayed by the port
// strike", "The port strike may hold up the resin shipment"; "The mortgage
// offer might expire before completion", "... could lapse before we
// complete"). The nouns of one are all nouns of the other, at least two,
// and the items hold the same values and polarity.
func sameRisk(old, c *Item, d frameDiff) bool {
	if old.StateItem.Type != tenure.StateRisk || old.Negated != c.Negated || len(d.namesA) > 0 || len(d.namesB) > 0 ||
		!sameFacets(old.Facets, c.Facets) {
		return false
	}
	nounA := slices.ContainsFunc(d.onlyA, isNoun)
	nounB := slices.ContainsFunc(d.onlyB, isNoun)
	shared := 0
	for _, w := range uniq(old.Frame) {
		if isNoun(w) && containsWord(c.Frame, w) {
			shared++
		}
	}
	return shared >= minRiskNouns && !(nounA && nounB)
}

// minRiskNouns is how many nouns two risks share at least to be one.
const minRiskNouns = 2

// isNoun reports whether w names a thing: a plain word that is no verb,
// no direction, and no word WordNet knows only as a verb ("irritate",
// "sue").
func isNoun(w Word) bool {
	return !w.Verb && !w.Name && w.Stem != "to" && w.Stem != "from" && !verbOnly(w)
}

// lightOnly reports whether the verbs of ws are all light verbs, which
// say little of what is done ("put", "handle").
func lightOnly(ws []Word) bool {
	n := 0
	for _, w := range ws {
		if w.Verb {
			if !lightVerbs[w.Stem] {
				return false
			}
			n++
		}
	}
	return n > 0
}

// minValuelessOverlap is the least frame overlap (Dice) of two items
// without values that sameValues takes for one slot.
const minValuelessOverlap = 0.75

// wordKinds reports whether ws hold a noun (a word that is not a verb, a
// name or a direction) and a verb.
func wordKinds(ws []Word) (noun, verb bool) {
	for _, w := range ws {
		switch {
		case w.Verb:
			verb = true
		case !w.Name && w.Stem != "to" && w.Stem != "from":
			noun = true
		}
	}
	return noun, verb
}

// sameFacets reports whether a and b hold the same values of the same
// keys.
func sameFacets(a, b []Facet) bool {
	ga, gb := facetGroups(a), facetGroups(b)
	if len(ga) != len(gb) {
		return false
	}
	ia, ib := inclusiveGroups(a), inclusiveGroups(b)
	for k := range ga {
		if _, ok := gb[k]; !ok || !sameGroup(ga, gb, ia, ib, k) {
			return false
		}
	}
	return true
}

// sharedNouns counts the plain words of a that b has too and one of
// them uses as a noun ("Rent is due", "pay rent").
func sharedNouns(a, b []Word) int {
	n := 0
	for _, w := range uniq(a) {
		if w.Name || w.Stem == "to" || w.Stem == "from" {
			continue
		}
		if slices.ContainsFunc(b, func(x Word) bool {
			return !x.Name && !(x.Verb && w.Verb) && (sameStem(w.Stem, x.Stem) || synonymous(w, x))
		}) {
			n++
		}
	}
	return n
}

// antonymPair finds a verb only old has and one only c has that are
// antonyms.
func antonymPair(d frameDiff) (Word, Word, bool) {
	for _, x := range d.onlyA {
		for _, y := range d.onlyB {
			if x.Verb && y.Verb && isAntonym(x.Stem, y.Stem) {
				return x, y, true
			}
		}
	}
	return Word{}, Word{}, false
}

var antonymStems = func() map[[2]string]bool {
	m := map[[2]string]bool{}
	for _, p := range antonyms {
		a, b := verbStem(p[0]), verbStem(p[1])
		if c, ok := verbCanon[a]; ok {
			a = c
		}
		if c, ok := verbCanon[b]; ok {
			b = c
		}
		m[[2]string{a, b}], m[[2]string{b, a}] = true, true
	}
	return m
}()

func isAntonym(a, b string) bool { return antonymStems[[2]string{a, b}] }

// without returns ws without the words of w's stem.
func without(ws []Word, w Word) []Word {
	return slices.DeleteFunc(slices.Clone(ws), func(x Word) bool { return x.Stem == w.Stem })
}
