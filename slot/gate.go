package slot

import (
	"slices"
	"strings"
)

// An ordering rule said with its negation moved: "Nobody uses the laser
// cutter until they've done the induction" is "Members must complete an
// induction before using the laser cutter".

// gateWords open the clause an item orders its main clause by.
var gateWords = fields(`until till before after`)

// findGate records the first gate word of the text and whether a
// negation comes before it. After a negation "until" is "before": "cannot
// move in until 1 September" says what "cannot move in before 1
// September" does.
func (s *scanner) findGate() {
	for i := range s.toks {
		w := s.low(i)
		if !gateWords[w] || w == "after" && s.low(i+1) == "all" {
			continue
		}
		s.a.gate, s.a.gateAt = w, i
		for k := 0; k < i; k++ {
			if negations[s.low(k)] {
				s.a.negatedGate = true
			}
		}
		if k := slices.IndexFunc(s.a.Frame, func(x Word) bool { return x.at == i }); k >= 0 && s.a.negatedGate &&
			(w == "until" || w == "till") {
			s.a.Frame[k].Stem = "before"
		}
		return
	}
}

// sameOrder reports whether two items of opposite polarity state one
// ordering rule: the negated one forbids what its main clause says
// until, or before, what its gate clause says, and the other requires
// the latter before the former ("must complete an induction before
// using the laser cutter") or allows the former after the latter. The
// clauses cross: the words of each main clause are the words of the
// other's gate clause, more than they are the words of its main clause.
// "Members can use the laser cutter before the induction" keeps its
// clauses in line with the negated rule's: a change of polarity.
func sameOrder(old, c *Item) bool {
	neg, pos := old, c
	if c.Negated {
		neg, pos = c, old
	}
	if neg.gate == "after" || !neg.negatedGate || pos.gate != "before" && pos.gate != "after" {
		return false
	}
	nm, ng := neg.clauses()
	pm, pg := pos.clauses()
	if pos.gate == "after" {
		// "only after the induction": the gate clause is the
		// requirement, as the negated rule's is.
		pm, pg = pg, pm
	}
	a, b := sharedWords(nm, pg), sharedWords(ng, pm)
	return a > 0 && b > 0 && a+b > sharedWords(nm, pm)+sharedWords(ng, pg)
}

// ungated is a copy of x without its gate words, which say nothing more
// once two rules are known to order their clauses alike.
func (x *Item) ungated() *Item {
	y := *x
	y.Frame = slices.DeleteFunc(slices.Clone(x.Frame), func(w Word) bool { return gateWords[strings.ToLower(w.Text)] })
	return &y
}

// clauses splits the item's frame at its gate word.
func (x *Item) clauses() (main, gated []Word) {
	for _, w := range x.Frame {
		if w.at < x.gateAt {
			main = append(main, w)
		} else {
			gated = append(gated, w)
		}
	}
	return main, gated
}

// sharedWords counts the words of a that b holds.
func sharedWords(a, b []Word) int {
	n := 0
	for _, w := range uniq(a) {
		if containsWord(b, w) {
			n++
		}
	}
	return n
}
