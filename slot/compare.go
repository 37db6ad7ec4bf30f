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
	// Reason names what decided: "type", "subject", "instead", "cue",
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
// than ...") has Changed it, unless their subjects are plainly different.
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
	if old.Negated != c.Negated && complementary(old.Facets, c.Facets) {
		// "Volunteers must be over 16" is "Nobody under 16 can
		// volunteer": a negation that turns every bound over is no
		// change of polarity.
		c = c.complement(old.Facets)
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
// account").
func anotherThing(old, c *Item, d frameDiff, cues Cues) bool {
	if old.recipient != "" && c.recipient != "" && sameName(old.recipient, c.recipient) {
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

// complementary reports whether b holds a's facets with every bound
// turned over (a maximum for a minimum), at least one of them, and
// nothing else. Bare numbers are keyed by the word before them, which a
// turned-over statement words otherwise, so any two of them match.
func complementary(a, b []Facet) bool {
	if len(a) != len(b) {
		return false
	}
	turned := 0
	for i, x := range a {
		y := b[i]
		key := x.Key == y.Key || strings.HasPrefix(x.Key, "#") && strings.HasPrefix(y.Key, "#")
		if x.Kind != y.Kind || !key || x.Value != y.Value {
			return false
		}
		switch {
		case x.Bound == y.Bound && x.Bound != boundMax && x.Bound != boundMin:
		case x.Bound == boundMax && y.Bound == boundMin, x.Bound == boundMin && y.Bound == boundMax:
			turned++
		default:
			return false
		}
	}
	return turned > 0
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
		switch f.Bound {
		case boundMax:
			a.Facets[i].Bound = boundMin
		case boundMin:
			a.Facets[i].Bound = boundMax
		}
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
	for k, va := range ga {
		if !slices.Equal(va, gb[k]) {
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

// changed names the value that differs between two items of one slot, or
// returns "".
func changed(old, c *Item, d frameDiff) string {
	if old.Negated != c.Negated || old.without != c.without && (old.with || c.with || lacksShared(old, c) || lacksShared(c, old)) {
		return "negation"
	}
	if r := facetChange(old.Facets, c.Facets); r != "" {
		return r
	}
	if old.Owner != "" && c.Owner != "" && !sameName(old.Owner, c.Owner) {
		return "owner"
	}
	if old.Due != "" && c.Due != "" && old.Due != c.Due {
		return "due"
	}
	if len(d.namesA) > 0 && len(d.namesB) > 0 {
		return "name"
	}
	if old.value != nil && c.value != nil {
		vd := diff(old.value.Frame, c.value.Frame)
		if len(vd.onlyA) > 0 && len(vd.onlyB) > 0 || old.value.Negated != c.value.Negated ||
			facetChange(old.value.Facets, c.value.Facets) != "" {
			return "value"
		}
	}
	return ""
}

// lacksShared reports whether x, a rule, goes without what the rule
// other requires: every word of what x's "without" governs is a word of
// other's ("Grip socks are compulsory", "use the trampolines without
// grip socks"). What only x names ("ship the app without DRM" after "ship
// the app") refines it; and outside rules "without" may say what a verb
// of removing said ("cut the second interval", "run without the second
// interval").
func lacksShared(x, other *Item) bool {
	if len(x.lacking) == 0 || x.StateItem.Type != tenure.StateConstraint {
		return false
	}
	return !slices.ContainsFunc(x.lacking, func(w Word) bool { return !containsWord(other.Frame, w) })
}

// refined names the value the new item adds, or returns "".
func refined(old, c *Item, d frameDiff) string {
	if r := facetAdded(old.Facets, c.Facets); r != "" {
		return r
	}
	switch {
	case c.Owner != "" && old.Owner == "" && !old.names(c.Owner):
		// An owner the old item names ("Ask Jonas to reprint the
		// menus") is not added.
		return "owner"
	case c.Due != "" && old.Due == "":
		return "due"
	case len(d.namesB) > 0:
		return "name"
	}
	return ""
}

// names reports whether one of the item's names is the person's name or
// first name.
func (x *Item) names(person string) bool {
	return slices.ContainsFunc(x.Frame, func(w Word) bool { return w.Name && sameName(w.Text, person) })
}

// replacedBy reports whether one of phrases names this item: every
// content word of the phrase is one of the item's words, and its values
// are the item's; with plain set, the phrase names one of the words the
// item is about, not only its names.
func (x *Item) replacedBy(phrases []string, plain bool) bool {
	for _, p := range phrases {
		pa := Analyze(x.StateItem.Type, p)
		if len(pa.Frame) == 0 && len(pa.Facets) == 0 {
			continue
		}
		if plain && !slices.ContainsFunc(pa.Frame, func(w Word) bool { return !w.Name && containsWord(x.Frame, w) }) {
			continue
		}
		if !slices.ContainsFunc(pa.Frame, func(w Word) bool { return !containsWord(x.Frame, w) }) &&
			facetAdded(x.Facets, pa.Facets) == "" && facetChange(x.Facets, pa.Facets) == "" {
			return true
		}
	}
	return false
}

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
		return sameStem(x.Stem, w.Stem) || x.Name != w.Name && strings.EqualFold(x.Text, w.Text) || synonymous(x, w)
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

// sameName reports whether two owners name one person: the same name, or
// one is the other's first name.
func sameName(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	fa, fb := strings.Fields(a), strings.Fields(b)
	return len(fa) > 0 && len(fb) > 0 && strings.EqualFold(fa[0], fb[0]) && (len(fa) == 1 || len(fb) == 1)
}

// facetGroups maps each facet key to its values (bound and value), in a
// comparable form.
func facetGroups(fs []Facet) map[string][]string {
	m := map[string][]string{}
	for _, f := range fs {
		k := string(f.Kind) + "|" + f.Key
		v := f.Bound + ":" + f.Value
		if !slices.Contains(m[k], v) {
			m[k] = append(m[k], v)
		}
	}
	for k := range m {
		slices.Sort(m[k])
	}
	return m
}

func sharesFacetKey(a, b []Facet) bool {
	ga := facetGroups(a)
	for _, f := range b {
		if _, ok := ga[string(f.Kind)+"|"+f.Key]; ok {
			return true
		}
	}
	return false
}

// facetChange names the kind of the first facet whose values differ
// between a and b, or returns "".
func facetChange(a, b []Facet) string {
	ga, gb := facetGroups(a), facetGroups(b)
	for _, f := range b {
		k := string(f.Kind) + "|" + f.Key
		if va, ok := ga[k]; ok && !slices.Equal(va, gb[k]) {
			return string(f.Kind)
		}
	}
	return ""
}

// facetAdded names the kind of the first facet b has a key for that a
// has not, or returns "". A bare number of b that a states with what it
// counts is not added: "two missed SLAs" counts what "SLAs missed twice"
// does.
func facetAdded(a, b []Facet) string {
	ga := facetGroups(a)
	for _, f := range b {
		if _, ok := ga[string(f.Kind)+"|"+f.Key]; !ok && !bareIn(f, a) {
			return string(f.Kind)
		}
	}
	return ""
}

// bareIn reports whether f is a bare number (a quantity that names
// nothing it counts) and fs hold a quantity of its value.
func bareIn(f Facet, fs []Facet) bool {
	return f.Kind == Quantity && f.Key == "#" && slices.ContainsFunc(fs, func(x Facet) bool {
		return x.Kind == Quantity && x.Value == f.Value && x.Bound == f.Bound
	})
}

// ValueChange names what differs in value between two items taken to be
// on one slot (by a similarity the caller trusts), or returns "".
func ValueChange(old, c *Item) string {
	return changed(old, c, diff(old.Frame, c.Frame))
}
