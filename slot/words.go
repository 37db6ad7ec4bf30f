package slot

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// The words of an item: content words, negations and cues, phrasal
// verbs, compounds, names, and the forms they are compared in.

// word reads token i as a content word, a negation, a cue or nothing.
func (s *scanner) word(i int) {
	t := &s.toks[i]
	if rest, ok := s.unNegated(i); ok {
		// "Never leave a body unattended" says what "someone must
		// always attend the body" does.
		s.neg++
		t.raw, t.low = rest, rest
	}
	w := t.low
	switch {
	case w == "no" && s.low(i+1) == "longer", w == "after" && s.low(i+1) == "all":
		t.used, s.toks[i+1].used = true, true
		s.a.InsteadCue = true
		return
	case t.used:
		return
	case passiveModals[w] && beForms[s.low(i-1)]:
		// "are accepted", "is expected": what may or must be done.
		return
	case w == "instead":
		s.a.InsteadCue = true
		return
	case w == "with":
		s.a.with = true
		return
	case w == "off" && (s.low(i+1) == "limits" || s.low(i+1) == "limit"):
		// "off limits" is "not allowed".
		s.toks[i+1].used = true
		s.neg++
		return
	case w == "off-limits":
		s.neg++
		return
	case w == "time" && s.low(i-1) == "a" && s.low(i-2) == "at":
		return // "at a time" is "at once"
	case w == "without":
		s.a.without = true
		s.withoutAt = i
		return
	case negations[w]:
		s.neg++
		return
	case cessations[w] && (i == 0 || stopwords[s.low(i-1)] || modals[s.low(i-1)]) && !determiners[s.low(i-1)]:
		// "stop sending the report", not "the bus stop".
		s.neg++
		return
	case s.cancels(i):
		s.neg++
		return
	}
	name := s.isName(i) || s.numbered[i]
	if (w == "to" || w == "from") && s.nameAhead(i+1) {
		// A direction to or from a place or person is part of what the
		// item is about: the train to Leeds is not the one from Leeds.
		s.a.Frame = append(s.a.Frame, Word{Stem: w, Text: t.raw, at: i})
		return
	}
	if !name && (modals[w] || stopwords[w] || w == "" || contraction(w)) {
		return
	}
	if !name && s.a.typ == tenure.StateDecision && choiceVerbs[w] {
		return
	}
	if !name && s.a.typ == tenure.StateRisk && riskVerbs[w] {
		return
	}
	if _, ok := numberWords[w]; ok && !name {
		return
	}
	if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return
	}
	if p := s.low(i + 1); !name && particles[p] && !s.toks[i+1].used {
		if v, ok := verbCanon[stem(w)+"_"+p]; ok {
			s.toks[i+1].used = true
			s.a.Frame = append(s.a.Frame, Word{Stem: v, Text: t.raw + " " + s.toks[i+1].raw, Verb: true, at: i})
			return
		}
		if st := s.phrasal(i, p); st != "" {
			// A phrasal verb WordNet knows ("held up" is "hold up"), so
			// that it meets its synonyms ("delay"). It is a verb where
			// its verb would be one.
			s.toks[i+1].used = true
			verb := !articles[s.low(i-1)] && !beForms[s.low(i+2)] && !modals[s.low(i+2)] &&
				(verbStems[s.canon(i)] || i == 0 && s.imperative() || s.afterModal(i))
			s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: strings.ReplaceAll(st, "_", " "), Verb: verb, at: i})
			return
		}
	}
	if k := s.splitParticle(i); !name && k > 0 {
		// "Pass the ticket on to engineering" passes it on.
		if st := s.phrasal(i, s.low(k)); st != "" {
			s.toks[k].used = true
			s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: t.raw + " " + s.toks[k].raw,
				Verb: verbStems[s.canon(i)] || i == 0 && s.imperative(), at: i})
			return
		}
	}
	if colors[w] || (w == "light" || w == "dark" || w == "pale") && colors[s.low(i+1)] {
		name = true
	}
	if !name && s.compound(i) {
		return
	}
	st := s.canon(i)
	if name && s.low(i-1) == "the" && len(w) > minFamilyName && strings.HasSuffix(w, "s") {
		// "the Patels" are the Patel family.
		st = strings.TrimSuffix(w, "s")
	}
	if !name && s.statesPrice(i) {
		// "Charge £85 for a wasp nest removal" says what "Wasp nest
		// removals cost £85" does: with an amount of money, the verbs
		// that set or state a price are one.
		st = "cost"
	}
	// After an article a verb's form is a noun or its modifier ("the
	// draft contract", "the water bill"), and before "is" or "must" it
	// is the subject ("Rent is due").
	verb := !name && !articles[s.low(i-1)] && !beForms[s.low(i+1)] && !modals[s.low(i+1)] &&
		(verbStems[st] || i == 0 && s.imperative() || s.afterModal(i))
	s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: t.raw, Name: name && (s.a.typ != tenure.StateQuestion || s.numbered[i]),
		Verb: verb, at: i})
}

// afterModal reports whether token i follows a modal or a negated
// auxiliary ("may fill", "must not leave", "won't take"), the "to" of
// an obligation ("have to swap out"), or a modal's
// "be" as a participle ("must be changed"), and WordNet knows it as a
// verb: then it is one, whatever the lexicon knows.
func (s *scanner) afterModal(i int) bool {
	prev, k := s.low(i-1), i-1
	if prev == "not" || prev == "never" {
		prev, k = s.low(i-2), i-2
	}
	switch {
	case modalVerbs[prev] || negatedAux[prev]:
	case prev == "to" && obligations[s.low(k-1)]:
	case prev == "be" && s.modalAt(k-1) && participle(s.low(i)):
	default:
		return false
	}
	return wordnet.Known(s.low(i), wordnet.Verb)
}

// unNegated returns what token i negates when it is an adjective or a
// participle with the prefix "un-" said of something ("leave the van
// unlocked", "the body is unattended"): WordNet knows the word as an
// adjective and the rest as an adjective or a verb, and no noun follows
// it. Before a noun it picks out a kind of thing ("send the unpaid
// invoices"), which negates nothing.
func (s *scanner) unNegated(i int) (string, bool) {
	w := s.low(i)
	rest, ok := strings.CutPrefix(w, "un")
	if !ok || len(rest) < minUnNegated || s.toks[i].used || synonyms[w] != "" || negations[w] || stopwords[w] ||
		!wordnet.Known(w, wordnet.Adjective) ||
		!wordnet.Known(rest, wordnet.Adjective) && !wordnet.Known(rest, wordnet.Verb) {
		return "", false
	}
	next := s.low(i + 1)
	return rest, next == "" || stopwords[next] || temporalPreps[next] || phrasePreps[next] || negations[next]
}

// minUnNegated is how long the word after "un-" is at least: "under",
// "unit" and "unique" are no negations.
const minUnNegated = 4

// contraction reports whether w is a pronoun or another function word
// with an auxiliary written against it ("they've", "you'll", "it'd").
func contraction(w string) bool {
	before, after, ok := strings.Cut(w, "'")
	return ok && stopwords[before] && contractedAux[after]
}

// contractedAux are the auxiliaries written against the word before them.
var contractedAux = fields(`ve ll d re m`)

// modalAt reports whether token k is a modal or a negated auxiliary, or
// a negation after one ("must not be left").
func (s *scanner) modalAt(k int) bool {
	if w := s.low(k); w == "not" || w == "never" {
		k--
	}
	return modalVerbs[s.low(k)] || negatedAux[s.low(k)]
}

// obligations are the words before the "to" of a verb that is to be
// done ("have to swap", "need to renew", "going to move").
var obligations = fields(`have has had need needs needed ought going got able want wants`)

// modalVerbs are the modal auxiliaries, after which a verb comes.
var modalVerbs = fields(`must should shall can could may might would will cannot`)

// negatedAux are the negated auxiliaries, after which a verb comes.
var negatedAux = fields(`can't won't don't doesn't didn't mustn't shouldn't couldn't wouldn't`)

// phrasal returns the comparison form of the verb at token i with the
// particle p when they make a phrasal verb the lexicon or WordNet knows,
// or "". The verb is read as written and as its group's verb ("ring
// back" is "call back").
func (s *scanner) phrasal(i int, p string) string {
	w, canon := s.low(i), s.canon(i)
	for _, v := range []string{stem(w), canon} {
		if st, ok := verbCanon[v+"_"+p]; ok {
			return st
		}
	}
	for _, v := range []string{w, canon} {
		if base := phrasalVerb(v, p); base != "" {
			return base + "_" + p
		}
	}
	return ""
}

// splitParticle returns the token of the particle that closes the object
// of a verb at token i ("pass the ticket on to engineering", "take the
// recycling out"), or 0: the object opens with a determiner and holds a
// few plain words, and the particle ends the text or comes before a
// preposition, where it cannot open a phrase of its own.
func (s *scanner) splitParticle(i int) int {
	if !determiners[s.low(i+1)] || articles[s.low(i-1)] || determiners[s.low(i-1)] {
		return 0
	}
	for k := i + 2; k < len(s.toks) && k <= i+1+maxSplitObject; k++ {
		w := s.low(k)
		if particles[w] && !s.toks[k].used {
			if next := s.low(k + 1); k > i+2 && (next == "" || afterParticle[next]) {
				return k
			}
			return 0
		}
		if s.toks[k].used || stopwords[w] || !isWordy(w) {
			return 0
		}
	}
	return 0
}

// maxSplitObject is how many words the object between a verb and its
// particle may have.
const maxSplitObject = 3

// afterParticle are the words that may follow a particle that closes a
// verb's object.
var afterParticle = fields(`to at by for on in before after until till from with this next tonight today
	tomorrow every each`)

// cancels reports whether token i cancels what a decision or an action
// governs: an order ("Cancel the matinee", "we should scrap the paper
// timesheets") or a passive ("the class is cancelled", "get rid of the
// membership"). "Drop" cancels only as an order of an item that states no
// quantity: "drop the price to £1" lowers it.
func (s *scanner) cancels(i int) bool {
	w, prev := s.low(i), s.low(i-1)
	if !cancellations[w] || s.a.typ != tenure.StateDecision && s.a.typ != tenure.StateAction {
		return false
	}
	if w == "drop" {
		return i == 0 && !slices.ContainsFunc(s.a.Facets, func(f Facet) bool { return f.Kind == Quantity })
	}
	return i == 0 || modals[prev] || beForms[prev] || prev == "to" || prev == "get" || prev == "got" || prev == "let's"
}

// compound reads token i, when it is a hyphenated word of plain parts, as
// the words it joins, so that a modifier reads the same before a noun and
// after it ("the third-floor corridor", "the corridor on the third
// floor") and a noun made of a phrasal verb as the verb ("check-out" is
// "check out"). It reports whether it did.
func (s *scanner) compound(i int) bool {
	parts := strings.Split(s.toks[i].low, "-")
	if len(parts) < 2 || slices.ContainsFunc(parts, func(p string) bool { return len(p) < 2 || !isWordy(p) }) {
		return false
	}
	if len(parts) == 2 && particles[parts[1]] {
		st := s.canonOf(i, parts[0])
		if v, ok := verbCanon[stem(parts[0])+"_"+parts[1]]; ok {
			st = v
		} else if base := phrasalVerb(parts[0], parts[1]); base != "" {
			st = base + "_" + parts[1]
		}
		s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: s.toks[i].raw, Verb: true, at: i})
		return true
	}
	for _, p := range parts {
		if p == "non" {
			// "non-refundable" is "not refundable".
			s.neg++
			continue
		}
		if stopwords[p] || modals[p] {
			continue
		}
		// The parts of a compound name a thing, whatever their words
		// ("the save-the-date cards", "a walk-in fridge").
		s.a.Frame = append(s.a.Frame, Word{Stem: s.canonOf(i, p), Text: p, at: i})
	}
	return true
}

// imperative reports whether the text opens with a verb: its first word
// is followed by an article, a pronoun, a number or a name ("Reship the
// order", "Label 2,000 tickets").
func (s *scanner) imperative() bool {
	switch s.low(1) {
	case "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their",
		"its", "all", "some", "every", "each", "any", "me", "us", "him", "them", "it":
		return true
	}
	return len(s.toks) > 1 && (s.isName(1) || s.toks[1].used)
}

// nameAhead reports whether token i, or the one after an article at i,
// is a name.
func (s *scanner) nameAhead(i int) bool {
	if w := s.low(i); w == "the" || w == "a" || w == "an" {
		i++
	}
	return i < len(s.toks) && s.isName(i)
}

// canon is the comparison form of token i.
func (s *scanner) canon(i int) string { return s.canonOf(i, s.toks[i].low) }

// canonOf is the comparison form of w, token i or a part of it.
func (s *scanner) canonOf(i int, w string) string {
	if a, ok := aliases[w]; ok {
		w = a
	}
	if s.isName(i) {
		return w
	}
	if v, ok := irregulars[w]; ok {
		w = v
	}
	if syn, ok := synonyms[w]; ok {
		w = syn
	}
	st := stem(w)
	if n, ok := nounCanon[st]; ok && determiners[s.low(i-1)] {
		// "a call" is a meeting; "call Tom" is not.
		return n
	}
	if v, ok := verbCanon[st]; ok {
		return v
	}
	if v := nominalVerb(st); v != "" {
		return v
	}
	if n, ok := nounCanon[st]; ok {
		return n
	}
	// A phrasal verb written as one word is the verb: "a breakdown" is
	// "break down", "the cleanup" "clean up".
	for _, p := range strings.Fields(particleList) {
		if base, ok := strings.CutSuffix(w, p); ok && len(base) > 2 {
			if v, ok := verbCanon[verbStem(base+"_"+p)]; ok {
				return v
			}
		}
	}
	// "reship" is "ship" again, "rerun" is "run" again.
	if rest, ok := strings.CutPrefix(st, "re"); ok && !verbStems[st] && len(rest) > 2 && !notRepeated[w] {
		if v, ok := verbCanon[rest]; ok {
			return v
		}
		if verbStems[rest] {
			return rest
		}
	}
	return st
}

// nominalVerb is the verb a nominalisation's stem names ("submiss" of
// "submission" is "submit", "decis" is "decide", "shipment" is "ship"),
// or "" when the stem is no known verb's noun.
func nominalVerb(st string) string {
	var cands []string
	if b, ok := strings.CutSuffix(st, "iss"); ok {
		cands = append(cands, b+"it")
	}
	if b, ok := strings.CutSuffix(st, "s"); ok && len(b) > 3 {
		cands = append(cands, b+"d")
	}
	if b, ok := strings.CutSuffix(st, "ment"); ok && len(b) > 2 {
		cands = append(cands, b)
	}
	for _, c := range cands {
		if v, ok := verbCanon[c]; ok {
			return v
		}
		if verbStems[c] {
			return c
		}
	}
	return ""
}

// nounCanon maps the stem of every noun of nounGroups to the stem of its
// group's first noun.
var nounCanon = func() map[string]string {
	m := map[string]string{}
	for _, g := range nounGroups {
		head := english.Stem(g[0], false)
		for _, n := range g {
			m[english.Stem(n, false)] = head
		}
	}
	return m
}()

// verbCanon maps the stem of every verb of verbGroups to the stem of its
// group's first verb, and verbStems holds the stems of every known verb.
var verbCanon, verbStems = func() (map[string]string, map[string]bool) {
	canon, all := map[string]string{}, map[string]bool{}
	for _, g := range verbGroups {
		head := verbStem(g[0])
		for _, v := range g {
			canon[verbStem(v)] = head
			all[head] = true
		}
	}
	for v := range verbs {
		all[verbStem(v)] = true
		if _, grouped := canon[verbStem(v)]; !grouped && strings.Contains(v, "_") {
			canon[verbStem(v)] = verbStem(v)
		}
	}
	return canon, all
}()

// verbStem stems a verb, each part of a phrasal one ("set_up").
func verbStem(v string) string {
	parts := strings.Split(v, "_")
	parts[0] = english.Stem(parts[0], false)
	return strings.Join(parts, "_")
}

// stem stems an English word, hyphenated parts one by one.
func stem(w string) string {
	if a, ok := aliases[w]; ok {
		w = a
	}
	if v, ok := irregulars[w]; ok {
		w = v
	}
	if syn, ok := synonyms[w]; ok {
		w = syn
	}
	parts := strings.Split(w, "-")
	for i, p := range parts {
		parts[i] = english.Stem(p, false)
	}
	return strings.Join(parts, "-")
}

// minFamilyName is how long a name in the plural is at least to be read
// as a family's ("the Patels").
const minFamilyName = 3

// knownNames are product names often written in lowercase or first in a
// sentence, where capitals do not tell them apart.
var knownNames = fields(`postgresql postgres redis memcached kafka clickhouse mongodb mysql sqlite
	dynamodb elasticsearch rabbitmq nats terraform pulumi kubernetes docker vercel netlify heroku aws
	gcp azure github gitlab jenkins grafana datadog sentry stripe adyen slack jira notion figma zendesk
	intercom mixpanel posthog segment snowflake bigquery redshift airflow dbt superset metabase`)

// isName reports whether token i is a name: capitalised where a sentence
// does not start, written with capitals or digits inside, or a known
// product name; never a common acronym ("API", "SSO").
func (s *scanner) isName(i int) bool {
	t := s.toks[i]
	w := t.low
	if commonAcronyms[w] || w == "i" || w == "" || acronymPlural(t.raw) {
		// An acronym in the plural ("BCDs") names a kind of thing, not
		// one thing.
		return false
	}
	if knownNames[w] {
		return true
	}
	r, size := utf8.DecodeRuneInString(t.raw)
	rest := t.raw[size:]
	inner := strings.IndexFunc(rest, unicode.IsUpper) >= 0
	letters := strings.IndexFunc(t.raw, unicode.IsLetter) >= 0
	digits := strings.IndexFunc(t.raw, unicode.IsDigit) >= 0
	_, month := months[w]
	switch {
	case letters && digits, inner && strings.IndexFunc(rest, unicode.IsLower) >= 0:
		return true // "us-east-1", "ClickHouse", "iOS"
	case !unicode.IsUpper(r), month, weekdays[w] != "":
		// A month or weekday that is not a date of the item modifies a
		// noun: "the March invoice".
		return false
	case inner:
		return true
	}
	return i > 0 && !slices.Contains([]string{".", ":"}, s.toks[i-1].raw[len(s.toks[i-1].raw)-1:])
}

// statesPrice reports whether token i sets or states the price of what
// the item is about: "charge" in an item that states an amount of money,
// and "sell" with the thing sold as its subject ("a jar sells for £8"),
// not its object ("sell the van for £5,000" is no price of a van that
// "buy the van for £5,000" states: they are opposites).
func (s *scanner) statesPrice(i int) bool {
	w := s.low(i)
	switch {
	case chargeVerbs[w]:
	case sellVerbs[w]:
		if next := s.low(i + 1); next != "for" && next != "at" {
			return false
		}
	default:
		return false
	}
	return slices.ContainsFunc(s.a.Facets, func(f Facet) bool { return strings.HasPrefix(f.Key, "money:") })
}
