package slot

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
)

// Relation is how a new item relates to an existing one.
type Relation int

// Relations.
const (
	// Different: another slot, or another type. The new item is new.
	Different Relation = iota
	// Same: the same slot with the same value, a restatement.
	Same
	// Changed: the same slot with another value (a number, unit, bound,
	// date, time, version, name, owner or polarity changed), or an item
	// the new one says it replaces.
	Changed
	// Refined: the same slot with a value added ("PostgreSQL" then
	// "PostgreSQL 16 on RDS") and none changed.
	Refined
)

func (r Relation) String() string {
	return [...]string{"different", "same", "changed", "refined"}[r]
}

// Item is a state item with its analysis, so that an item compared with
// many others is read once.
type Item struct {
	*tenure.StateItem
	Analysis
	// subject and value are the analyses of the item's Subject and Value
	// fields, when they are set.
	subject, value *Analysis
	// receiving is the analysis of the item read as a handing over to the
	// person it opens with ("Noor takes the weekend desk"), when it may
	// be one.
	receiving *Analysis
	// textSubject is set when the item's Subject is the one its text
	// gives (Parse), or it has none.
	textSubject bool
}

// NewItem reads it.
func NewItem(it *tenure.StateItem) *Item {
	x := &Item{StateItem: it, Analysis: Analyze(it.Type, it.Text)}
	if text, ok := received(it.Text); ok {
		r := Analyze(it.Type, text)
		x.receiving = &r
	}
	x.textSubject = it.Subject == "" || parsedSubject(it, x.Analysis)
	if it.Subject != "" {
		s := Analyze(it.Type, it.Subject)
		x.subject = &s
	}
	if it.Value != "" {
		v := Analyze(it.Type, it.Value)
		x.value = &v
	}
	return x
}

// Cues are what the message an item came from says of it besides the
// item: whether it reverses something, names what it replaces, or adds to
// what was said.
type Cues struct {
	// Reversal is the first reversal cue of the message ("instead", "no
	// longer", "actually", "change of plan", "switched" ...), or "".
	Reversal string
	// Additive is set when the message adds to what was said: "too" or
	// "as well" closing a clause, "also", "another", or "and" opening it.
	Additive bool
	// Restated is set when the message says it repeats what was said:
	// "as agreed", "to be clear", "reminder", "still".
	Restated bool
	// Instead are the phrases the message says are replaced ("instead of
	// Redis", ", not Leeds").
	Instead []string
	// Withdrawn are the things the message says are off ("the Pavilhão
	// fell through", "Acme pulled out").
	Withdrawn []string
	// words are the message's words, lowercase, without possessives.
	words map[string]bool
}

var (
	clauseEndRe = regexp.MustCompile(`(?i)\b(?:too|as well|either)\s*(?:[,.;!?)]|$)`)
	wordSepRe   = regexp.MustCompile(`[^\p{L}\p{N}']+`)
)

// maxCueBytes is how much of the messages ReadCues reads.
const maxCueBytes = 8192

// ReadCues reads the cues of the text of the messages an item came from
// (the first 8 KiB of it).
func ReadCues(message string) Cues {
	message = clip(message, maxCueBytes)
	message = typography.Replace(message)
	padded := " " + strings.Join(strings.Fields(wordSepRe.ReplaceAllString(strings.ToLower(message), " ")), " ") + " "
	var c Cues
	for _, p := range reversalCues {
		if strings.Contains(padded, " "+p+" ") && !((p == "update" || p == "replace") && hasObject(padded, p)) {
			c.Reversal = p
			break
		}
	}
	for _, p := range additiveCues {
		if p == "too" || p == "as well" || p == "either" {
			continue
		}
		if strings.Contains(padded, " "+p+" ") {
			c.Additive = true
		}
	}
	if clauseEndRe.MatchString(message) || strings.HasPrefix(padded, " and ") || strings.HasPrefix(padded, " oh and ") {
		// "And pay the water bill by 15 July" adds to what was said.
		c.Additive = true
	}
	for _, p := range restatementCues {
		if strings.Contains(padded, " "+p+" ") {
			c.Restated = true
		}
	}
	var a Analysis
	a.cutInstead(message)
	c.Instead = a.Instead
	c.Withdrawn = withdrawn(message)
	c.words = map[string]bool{}
	for _, w := range strings.Fields(padded) {
		c.words[strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")] = true
	}
	return c
}

// hasObject reports whether every use of verb in padded, a message's
// words between spaces, has an object ("update the website with the new
// prices", "replace the leaking gutter"): a thing to be updated or
// replaced, not news that something changed. What replaces what is read
// from the item ("replace Jest with Vitest").
func hasObject(padded, verb string) bool {
	for rest := padded; ; {
		_, after, ok := strings.Cut(rest, " "+verb+" ")
		if !ok {
			return true
		}
		next, _, _ := strings.Cut(after, " ")
		if !determiners[next] {
			return false
		}
		rest = " " + after
	}
}

// Result is what Compare found.
type Result struct {
	Relation Relation
	// Reason names what decided: "type", "subject", "instead",
	// "alternative", "cue",
	// "negation", "quantity", "date", "time", "version", "name", "value",
	// "owner", "due", "additive", "restated".
	Reason string
	// Overlap is the Dice coefficient of the two frames: how much of what
	// they are about they share, from 0 to 1.
	Overlap float64
}

// Compare relates c, a new item, to old, an existing one. Items of
// different types are Different. An item that says it replaces old
// ("instead of PostgreSQL" naming old's value, or the message's "rather
// than ...") has Changed it, unless their subjects are plainly different;
// so has a decision that takes an option old set aside (alternatives.go).
// Otherwise the slot is the same when one frame holds every plain word of
// the other (names may differ: they are values), when both items name the
// same Subject, when they hold the same values and say what they are
// about with other words (sameValues), when the new item closes the open
// one it mostly restates, or, with a reversal cue in the message, when
// the frames share at least half their words. On the same slot, any difference of
// polarity, quantity (number, unit, rate or bound), date, time of day,
// version, name, Value, owner or due date is a change, and a value the new
// item adds is a refinement; else the items are the Same. A name replaced
// by another in a message that adds ("Tom at 7 pm too") is a new item.
func Compare(old, c *Item, cues Cues) Result {
	if old.StateItem.Type != c.StateItem.Type {
		return Result{Relation: Different, Reason: "type"}
	}
	old, c = asHandover(old, c), asHandover(c, old)
	old, c = asDated(old, c), asDated(c, old)
	c = asCounting(old, c)
	if old.Negated != c.Negated && complementary(old.Facets, c.Facets) {
		// "Volunteers must be over 16" is "Nobody under 16 can
		// volunteer": a negation that turns every bound over is no
		// change of polarity.
		c = c.complement(old.Facets)
	} else if old.Negated != c.Negated && sameOrder(old, c) {
		// "Nobody uses the laser cutter until they've done the
		// induction" requires what "Members must complete an induction
		// before using the laser cutter" does.
		old, c = old.ungated(), c.ungated()
		c.Negated = old.Negated
	}
	d := diff(old.Frame, c.Frame)
	res := Result{Overlap: d.overlap()}
	plainClash := len(d.plainA) > 0 && len(d.plainB) > 0 && d.sharedPlain == 0
	// An item that names what the old one is about as what it replaces
	// replaces it, whatever else differs but its values ("Order takeaway
	// on Friday instead of cooking" after "Cook dinner at home on
	// Friday"); one that names only the old one's value ("instead of
	// PostgreSQL") does when they are about one thing.
	if old.replacedBy(c.Instead, true) && facetChange(old.Facets, c.Facets) == "" ||
		!plainClash && (old.replacedBy(c.Instead, false) || d.shared > 0 && old.replacedBy(cues.Instead, false)) {
		res.Relation, res.Reason = Changed, "instead"
		return res
	}
	if (c.InsteadCue || cues.Reversal != "") && old.replacedBy(cues.Withdrawn, false) && !c.replacedBy(cues.Withdrawn, false) {
		// "The Pavilhão fell through, we're going with LX Factory after
		// all": what is off is the old item, and the new one, said as a
		// replacement, takes its place.
		res.Relation, res.Reason = Changed, "withdrawn"
		return res
	}
	if takesSetAside(old, c, cues) {
		res.Relation, res.Reason = Changed, "alternative"
		return res
	}
	if x, y, ok := antonymPair(d); ok && old.StateItem.Type != tenure.StateQuestion {
		// (A question asserts nothing: when the market opens and when
		// it closes are two questions.)
		// "Disable push notifications" replaces "Enable push
		// notifications": the rest of the frame decides the slot.
		rest := diff(without(old.Frame, x), without(c.Frame, y))
		if same, _ := sameSlot(old, c, rest); same {
			res.Relation, res.Reason = Changed, "antonym"
			return res
		}
	}
	same, why := sameSlot(old, c, d)
	relaxed := false
	switch {
	case !same && why != "subject" && !cues.Additive && sameValues(old, c, d):
		// Both items hold the same explicit values and share what they
		// are about: a restatement in other words ("Bedtime for the
		// children is 8 pm" after "The kids must be in bed by 8 pm").
		same = true
	case !same && why != "subject" && !cues.Additive && sameRisk(old, c, d):
		same = true
	case same || why == "subject" || cues.Additive || res.Overlap < minOverlap:
	case cues.Reversal != "":
		// The message says it replaces something, and this is the
		// closest thing.
		same, relaxed = true, true
	case cues.Restated || closes(old, c) && res.Overlap >= minValuelessOverlap:
		// The message says it repeats something, or the new item
		// closes an open one it mostly restates ("Skis returned to the
		// rental shop"): the same slot, whose values still decide.
		same = true
	}
	if !same && (why != "subject" || old.textSubject && c.textSubject) && paraphrased(old, c, d, cues) &&
		changed(old, c, d) == "" {
		// The same things and values said with other predicates
		// (align.go); only a restatement is read this way.
		res.Relation, res.Reason = Same, "paraphrase"
		return res
	}
	if !same && (why != "subject" || old.textSubject && c.textSubject) && paraphrasedChange(old, c, d, cues) {
		// The same thing said with other predicates, and another value
		// of it.
		if reason := changed(old, c, d); reason != "" {
			res.Relation, res.Reason = Changed, reason
			return res
		}
	}
	if !same {
		res.Relation, res.Reason = Different, "subject"
		return res
	}
	if reason := changed(old, c, d); reason != "" {
		if reason == "name" && cues.Additive {
			res.Relation, res.Reason = Different, "additive"
			return res
		}
		if reason == "name" && anotherThing(old, c, d, cues) {
			res.Relation, res.Reason = Different, "object"
			return res
		}
		res.Relation, res.Reason = Changed, reason
		return res
	}
	if relaxed || cues.Reversal != "" && slices.ContainsFunc(d.onlyB, func(w Word) bool { return w.Verb }) {
		// The message reverses something, and the new item does
		// something else to the same thing ("actually, replace the old
		// cabinets").
		res.Relation, res.Reason = Changed, "cue"
		return res
	}
	if reason := refined(old, c, d); reason != "" {
		res.Relation, res.Reason = Refined, reason
		return res
	}
	res.Relation, res.Reason = Same, "restated"
	return res
}

// anotherThing reports whether the names that differ between two items
// name another thing to act on rather than another choice: in an action
// the names say what is acted on ("Call the owner of Biscuit", "Call the
// owner of Pepper" are two calls) unless the message says the new item
// replaces the old one — a reversal cue, or the old name named as what
// is dropped ("book Wagamama for Friday, Nando's is full"); and a thing
// handed over to the same person is another thing when its name differs
// ("Allocate the Lindgren account to Omar", "Omar takes the Berg
// account"); and a question about another thing is another question.
func anotherThing(old, c *Item, d frameDiff, cues Cues) bool {
	if old.recipient != "" && c.recipient != "" && sameName(old.recipient, c.recipient) {
		return true
	}
	if old.StateItem.Type == tenure.StateQuestion && cues.Reversal == "" {
		// A question about another numbered thing is another question
		// ("context 114", "context 117"); names are plain words in
		// questions otherwise.
		return true
	}
	if old.StateItem.Type != tenure.StateAction || cues.Reversal != "" || len(cues.Instead) > 0 {
		return false
	}
	return !slices.ContainsFunc(d.namesA, func(w Word) bool { return cues.words[lookupForm(w)] })
}

// asHandover returns x read as a handing over when other hands something
// to a named person and x may say that someone receives it: "Noor takes
// the weekend desk" after "Assign the weekend desk to Noor" is one slot,
// and "Omar takes the weekend desk" changes its person.
func asHandover(x, other *Item) *Item {
	if other.recipient == "" || x.receiving == nil {
		return x
	}
	return &Item{StateItem: x.StateItem, Analysis: *x.receiving, subject: x.subject, value: x.value}
}

// asDated returns x with the weekday or month that modifies one of its
// nouns read as its date, when x states no date and other states that
// one: "Headline the Saturday main stage" is dated as "headline the main
// stage on Saturday" is, and "the March bank statements" as "the bank
// statements for March".
func asDated(x, other *Item) *Item {
	if slices.ContainsFunc(x.Facets, func(f Facet) bool { return f.Kind == Date }) {
		return x
	}
	for i, w := range x.Frame {
		if w.Name || w.Verb {
			continue
		}
		v := dateWord(strings.ToLower(w.Text))
		if v == "" || !slices.ContainsFunc(other.Facets, func(f Facet) bool { return f.Kind == Date && f.Value == v }) {
			continue
		}
		y := *x
		y.Frame = slices.Delete(slices.Clone(x.Frame), i, i+1)
		y.Facets = append(slices.Clone(x.Facets), Facet{Kind: Date, Key: "date", Value: v, Text: w.Text, at: w.at})
		return &y
	}
	return x
}

// asCounting returns c with a count it states keyed as one of old's
// when the two count one thing with other nouns: the same bound, and the
// noun one counts is a word of the other ("Pull requests need two
// approvals" counts what "every PR must be approved by two reviewers"
// does, and "three managers" would change it). Two counts of things
// neither names otherwise are two ("two engineers", "two designers").
func asCounting(old, c *Item) *Item {
	og, cg := facetGroups(old.Facets), facetGroups(c.Facets)
	for i, f := range c.Facets {
		if _, ok := og[string(f.Kind)+"|"+f.Key]; ok || !strings.HasPrefix(f.Key, "count:") {
			continue
		}
		for _, g := range old.Facets {
			if _, ok := cg[string(g.Kind)+"|"+g.Key]; ok || !strings.HasPrefix(g.Key, "count:") || g.Bound != f.Bound {
				continue
			}
			if !countedIn(g, old, c) && !countedIn(f, c, old) {
				continue
			}
			y := *c
			y.Facets = slices.Clone(c.Facets)
			y.Facets[i].Key = g.Key
			return &y
		}
	}
	return c
}

// countedIn reports whether the noun that f, a count of x, counts is a
// word of other's frame, or derives from one ("two signatures", "signed
// by two managers").
func countedIn(f Facet, x, other *Item) bool {
	k := slices.IndexFunc(x.Frame, func(w Word) bool { return w.at == f.noun })
	return k >= 0 && slices.ContainsFunc(other.Frame, func(w Word) bool {
		return containsWord([]Word{w}, x.Frame[k]) || related(w, x.Frame[k])
	})
}

// dateWord is the date value of a weekday or a month named by w, or "".
func dateWord(w string) string {
	if wd := weekdays[w]; wd != "" {
		return "wd:" + wd
	}
	if m := months[w]; m != 0 {
		return "m:" + strconv.Itoa(m)
	}
	return ""
}

// complementary reports whether b holds a's kinds of facets with every
// bound turned over (a maximum for a minimum), at least one of them, and
// the same values where there is no bound. Bare numbers are keyed by the word before them, which a
// turned-over statement words otherwise, so any two of them match.
func complementary(a, b []Facet) bool {
	if len(a) != len(b) {
		return false
	}
	flips := 0
	for i, x := range a {
		y := b[i]
		key := x.Key == y.Key || strings.HasPrefix(x.Key, "#") && strings.HasPrefix(y.Key, "#")
		if x.Kind != y.Kind || !key {
			return false
		}
		switch {
		case x.Bound == y.Bound && x.Bound != boundMax && x.Bound != boundMin:
			if x.Value != y.Value {
				return false
			}
		case x.Bound == boundMax && y.Bound == boundMin, x.Bound == boundMin && y.Bound == boundMax:
			// Whether the bound moved too ("Nobody under 12 can ride"
			// after "Riders must be over 10") the values say.
			flips++
		default:
			return false
		}
	}
	return flips > 0
}

// turned is f with its bound turned over: the negation of a strict bound
// includes its value ("not under 16" is "at least 16"), that of an
// inclusive one excludes it.
func turned(f Facet) Facet {
	switch f.Bound {
	case boundMax:
		f.Bound = boundMin
	case boundMin:
		f.Bound = boundMax
	default:
		return f
	}
	f.strict = !f.strict
	return f
}

// complement is x with its polarity and its bounds turned over, in its
// text and in its Value; its bare numbers take the keys of ref's, the
// facets complementary to its own.
func (x *Item) complement(ref []Facet) *Item {
	y := *x
	y.Analysis = x.Analysis.complement()
	for i := range y.Facets {
		y.Facets[i].Key = ref[i].Key
	}
	if x.value != nil {
		v := x.value.complement()
		v.Negated = x.value.Negated
		y.value = &v
	}
	return &y
}

// complement is a with its polarity and its bounds turned over.
func (a Analysis) complement() Analysis {
	a.Negated = !a.Negated
	a.Facets = slices.Clone(a.Facets)
	for i, f := range a.Facets {
		a.Facets[i] = turned(f)
	}
	return a
}

// sameSlot decides whether two items are about the same thing: by their
// Subject fields when both have one and these are equal or share nothing,
// else by their frames.
func sameSlot(old, c *Item, d frameDiff) (bool, string) {
	if old.subject != nil && c.subject != nil {
		sd := diff(old.subject.Frame, c.subject.Frame)
		switch {
		case len(sd.onlyA) == 0 && len(sd.onlyB) == 0 && sd.shared > 0:
			return true, "subject"
		case sd.shared == 0:
			return false, "subject"
		}
	}
	if d.lenA == 0 && d.lenB == 0 {
		// Nothing but values ("3 times a week"): one slot when they
		// measure the same thing.
		return sharesFacetKey(old.Facets, c.Facets), "frame"
	}
	if d.sharedPlain > 0 && len(d.plainB) == 0 && d.plainOverlap() >= minOverlap {
		// The new item names the subject with words the old one has,
		// whatever names either holds: "Staging will run on Nomad"
		// after "Use Kubernetes for the staging environment".
		return true, "frame"
	}
	if d.shared == 0 || d.overlap() < minOverlap {
		return false, "frame"
	}
	// One frame holds the other, or they differ only in names (a value
	// replaced by another).
	return len(d.onlyA) == 0 || len(d.onlyB) == 0 || len(d.plainA) == 0 && len(d.plainB) == 0, "frame"
}

// closes reports whether c reports done, or answered, what old leaves
// open.
func closes(old, c *Item) bool {
	return old.StateItem.Status == "open" && (c.StateItem.Status == "done" || c.StateItem.Status == "answered")
}
