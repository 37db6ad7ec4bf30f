package extract

import (
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// A choice is often said without a cue word and without a subject: what
// is done is named, and what it replaces is set aside ("Soft launch with
// members only instead", "marquees from the scouts instead of moving
// indoors"); or it is said as a replacement in progress ("we're replacing
// it with the Ford Ranger"); or a remark after it says it is settled
// ("Then one camera and we shoot the scenes twice. That's settled.").

// fragmentAltRe is a clause that names what is done and sets something
// aside, at its end ("instead") or after it ("instead of X", "rather
// than X").
var fragmentAltRe = mustPattern(`(?i)^([\p{L}][^,;:]*?)\s+(?:instead\s*[.!]?$|(?:instead\s+of|rather\s+than)\s+\S)`)

// notOtherOrderRe is a clause that ends by setting a named option aside:
// ", not the gift card".
var notOtherOrderRe = mustPattern(`(?i)^([\p{L}][^,;:]*?)` + notOtherTail)

// notOtherTail closes a clause with the option it sets aside: ", not the
// gift card".
const notOtherTail = `,\s+(?:and\s+)?not\s+(?:the|a|an|my|our|your|this|that|these|those)\s+[^,;:]+$`

// notOtherShouldRe is what a thing should do or where it should go, with
// the option set aside: "the refund should go to my Visa, not the gift
// card".
var notOtherShouldRe = mustPattern(`(?i)^((?:the|my|our)\s+[^,;:]*?\s+(?:should|needs\s+to|has\s+to|must)\s+[^,;:]+)` + notOtherTail)

// anOrder reports whether a clause is an order to act on something: a
// verb that is no feeling or thought, then its object ("Send the refund",
// "Put it on my Visa"). "Love the ocean" chooses nothing, and in "People
// come for the pressing" the first word is a subject.
func anOrder(clause string) bool {
	ws := words(clause)
	return len(ws) > 1 && wordnet.Known(ws[0], wordnet.Verb) && !feelingVerbs[ws[0]] && objectOpeners[ws[1]]
}

var objectOpeners = set(`the, a, an, my, our, your, his, her, their, it, them, this, that, these, those, me, us, him`)

var feelingVerbs = set(`love, like, hate, enjoy, miss, want, need, know, think, feel, remember, mean, guess, hope, wish, prefer, adore, loved, liked`)

// statedAlternatives are the options a decision names as set aside:
// "PostgreSQL" of "Use ClickHouse instead of PostgreSQL", "the gift card"
// of "Send the refund to my Visa, not the gift card".
func statedAlternatives(decision string) []string {
	m := statedAltRe.FindStringSubmatch(decision)
	if m == nil {
		return nil
	}
	alt := strings.TrimRight(clauseAfter(m[1]), ".!")
	if !hasContentWord(alt) || len(strings.Fields(alt)) > 8 {
		return nil
	}
	return []string{alt}
}

var statedAltRe = mustPattern(`(?i)(?:\binstead\s+of|\brather\s+than|,\s+(?:and\s+)?not)\s+(\S.*)$`)

// subjectWords open a clause with its subject; a fragment has none.
var subjectWords = set(`i, we, you, he, she, they, it, that, this, there, here, and, but, so, or, if, when, who, what,
	i'm, we're, you're, he's, she's, they're, it's, that's, there's, i'll, we'll, you'll, i'd, we'd, let's, let`)

// pastIrregular are past forms that tell what happened, not what is
// chosen: "went home instead".
var pastIrregular = set(`went, took, came, got, had, made, did, said, bought, ate, sat, ran, left, saw, gave, found,
	drove, flew, wrote, sent, spent, brought, thought, told, chose, kept`)

// fragmentChoice reads a clause without a subject that sets an option
// aside as a choice: "Soft launch with members only instead". A fragment
// that tells the past ("went to the pub instead"), binds ("kids can have
// juice instead") or names one thing only ("tea instead") is none.
func fragmentChoice(mc *messageContext, t *text) (found, bool) {
	if !mc.human {
		return found{}, false
	}
	if m := notOtherShouldRe.FindTextSubmatch(t); m != nil && countContentWords(m[1], 2) >= 2 && !pastTimeRe.MatchText(t) {
		// "The refund should go to my Visa, not the gift card": where a
		// thing goes, with the option it does not take.
		return found{typ: tenure.StateDecision, text: capitalize(tidy(t.s)), conf: tenure.ConfidenceMedium}, true
	}
	m := fragmentAltRe.FindTextSubmatch(t)
	if m == nil {
		// "Send the refund to my Visa, not the gift card": an order
		// that names what it sets aside is a choice too.
		if m = notOtherOrderRe.FindTextSubmatch(t); m == nil || !anOrder(m[1]) {
			return found{}, false
		}
	}
	head := m[1]
	ws := words(head)
	if len(ws) == 0 || subjectWords[ws[0]] || pickOpeners[ws[0]] || interjections[ws[0]] || timeWords[ws[0]] || personName(ws[0]) {
		return found{}, false
	}
	for _, w := range ws {
		if modalWords[w] || auxiliaries[w] && w != "have" && w != "do" || pastIrregular[w] || strings.HasSuffix(w, "'ll") || strings.HasSuffix(w, "'d") ||
			strings.HasSuffix(w, "ed") && wordnet.Known(w, wordnet.Verb) && !wordnet.Known(w, wordnet.Adjective) {
			return found{}, false
		}
	}
	if countContentWords(head, 2) < 2 || pastTimeRe.MatchText(t) {
		return found{}, false
	}
	return found{typ: tenure.StateDecision, text: capitalize(tidy(t.s)), conf: tenure.ConfidenceMedium}, true
}

// personName reports whether a word WordNet does not know as a noun, an
// adjective or a verb opens the fragment: a name, a subject ("Bob drove
// instead").
func personName(w string) bool {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'"), "'s")
	return !wordnet.Known(w, wordnet.Noun) && !wordnet.Known(w, wordnet.Adjective) && !wordnet.Known(w, wordnet.Verb)
}

// replacingRe is a replacement the group is making or will make: "we're
// replacing it with the Ford Ranger", "we'll replace the boiler with a
// heat pump". (One already made is replacedRe's.)
var replacingRe = mustPattern(`(?i)\bwe(?:'re|\s+are|'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to)\s+(?:be\s+)?(replac(?:e|ing))\s+(.+?)\s+with\s+(.+)`)

// replacing reads such a replacement. What is replaced may be a pronoun
// ("it"): the sentence before named it, and the item says what replaces
// it.
func replacing(t *text) (found, bool) {
	m := replacingRe.FindTextSubmatch(t)
	if m == nil {
		return found{}, false
	}
	old, obj := clauseAfter(m[2]), clauseAfter(m[3])
	if !concreteObject(obj) || !hasContentWord(old) && !pronounObjects[lower(old)] {
		return found{}, false
	}
	return found{typ: tenure.StateDecision, text: "Replace " + old + " with " + obj, conf: tenure.ConfidenceHigh}, true
}

// settledRe is a remark that the sentence before it settles a choice:
// "That's settled.", "That's decided then."
var settledRe = mustPattern(`(?i)^(?:(?:ok|okay|right|good|great|fine|so)[,!.]?\s+)?(?:that's|that\s+is|it's|it\s+is)\s+(?:settled|decided|final|agreed)(?:\s+then)?\s*[.!]*$`)

// settledChoice is the decision a settling remark makes of the sentence
// before it in the message, when that sentence stated no item and is no
// question.
func settledChoice(mc *messageContext, prev sentence) (found, bool) {
	if !mc.human || prev.question || prev.todo {
		return found{}, false
	}
	t := tidy(discourseRe.ReplaceAllString(prev.text, ""))
	if countContentWords(t, 2) < 2 || hypotheticalRe.MatchString(t) || pastTimeRe.MatchString(t) {
		return found{}, false
	}
	return found{typ: tenure.StateDecision, text: capitalize(t), conf: tenure.ConfidenceMedium}, true
}
