package slot

import (
	"slices"
	"strings"
)

// How two frames differ, word by word.

// frameDiff is how two frames differ.
type frameDiff struct {
	lenA, lenB, shared, sharedPlain int
	onlyA, onlyB                    []Word
	// plainA and namesA split onlyA into plain words and names; plainB and
	// namesB the same for onlyB.
	plainA, namesA, plainB, namesB []Word
}

func diff(a, b []Word) frameDiff {
	d := frameDiff{lenA: len(uniq(a)), lenB: len(uniq(b))}
	for _, w := range uniq(a) {
		if containsWord(b, w) {
			d.shared++
			if !w.Name {
				d.sharedPlain++
			}
		} else {
			d.onlyA = append(d.onlyA, w)
		}
	}
	for _, w := range uniq(b) {
		if !containsWord(a, w) {
			d.onlyB = append(d.onlyB, w)
		}
	}
	d.plainA, d.namesA = splitNames(d.onlyA)
	d.plainB, d.namesB = splitNames(d.onlyB)
	return d
}

// plainOverlap is the Dice coefficient of the frames' plain words (names
// left out).
func (d frameDiff) plainOverlap() float64 {
	a, b := d.sharedPlain+len(d.plainA), d.sharedPlain+len(d.plainB)
	if a+b == 0 {
		return 0
	}
	return 2 * float64(d.sharedPlain) / float64(a+b)
}

// overlap is the Dice coefficient of the frames.
func (d frameDiff) overlap() float64 {
	if d.lenA+d.lenB == 0 {
		return 0
	}
	return 2 * float64(d.shared) / float64(d.lenA+d.lenB)
}

func uniq(ws []Word) []Word {
	var out []Word
	for _, w := range ws {
		if !containsWord(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func splitNames(ws []Word) (plain, names []Word) {
	for _, w := range ws {
		if w.Name {
			names = append(names, w)
		} else {
			plain = append(plain, w)
		}
	}
	return plain, names
}

// containsWord reports whether ws hold w: a word of its stem, or the same
// word as written where one reads as a name and the other does not ("Ines
// takes ..." opens a sentence, "... to Ines" does not).
func containsWord(ws []Word, w Word) bool {
	return slices.ContainsFunc(ws, func(x Word) bool {
		return sameStem(x.Stem, w.Stem) || x.Name != w.Name && strings.EqualFold(x.Text, w.Text) || synonymous(x, w) ||
			agentOf(x, w) || agentOf(w, x)
	})
}

// minOverlap is the least share of their frames two items on one slot
// have in common (the Dice coefficient): "Set up CI" is not the slot of
// "Set up CI alerts for the nightly build".
const minOverlap = 0.5

// minSharedPrefix is how long a common beginning makes two stems one word
// ("respond" and "respons", "replac" and "replacement").
const minSharedPrefix = 6

func sameStem(a, b string) bool {
	if a == b {
		return true
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= minSharedPrefix
}
