package extract

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// Answers: a reply to a question another speaker asked just before
// settles a choice when it picks one side of an either-or question, names
// an option against another, closes with "then", says yes to "should
// we ...?", or says what the group will do.

// A short answer that picks one side of the question before it ("Should
// we do a buffet or a plated dinner?" "Buffet then.") is a decision.
var (
	pickRe      = mustPattern(`(?i)^(?:ok(?:ay)?,?\s+|definitely\s+|then\s+)?([\p{L}\d][\p{L}\d:'-]*(?:\s+[\p{L}][\p{L}'-]*){0,3}?)(?:,?\s+(?:then|definitely|for\s+sure|please|it\s+is|wins|stays|is\s+the\s+one|all\s+the\s+way|gets\s+my\s+vote))?\s*[.!]*$`)
	eitherOrRe  = mustPattern(`(?i)\S\s+or\s+[^?]*\?`)
	pickOpeners = map[string]bool{"yes": true, "no": true, "yeah": true, "sure": true, "thanks": true, "ok": true, "okay": true,
		"maybe": true, "both": true, "neither": true, "either": true, "whatever": true, "dunno": true, "perhaps": true,
		"not": true}
)

// maxPickWords is the longest answer answerChoice reads as picking a side,
// and maxOptionWords the longest it reads as repeating one.
const (
	maxPickWords   = 6
	maxOptionWords = 9
)

// optionRest is what follows a pick in the option of an either-or
// question it opens, up to the end of that option: "at Ashcombe" for "the
// barn" in "the barn at Ashcombe or the hotel in town?", "accounts" for
// "audited" in "do we need audited accounts or ...". It is "" when the
// option ends with the pick ("fish or lamb for the main?"), or the pick
// is not in an option.
func optionRest(q, pick string) string {
	lq, lp := lower(q), lower(pick)
	k := strings.Index(lq, lp)
	if k < 0 || k > 0 && lq[k-1] != ' ' {
		return ""
	}
	rest := q[k+len(lp):]
	if rest == "" || rest[0] != ' ' {
		return ""
	}
	end := len(rest)
	for _, stop := range []string{" or ", ",", "?"} {
		if i := strings.Index(lower(rest), stop); i >= 0 && i < end {
			end = i
		}
	}
	rest = tidy(rest[:end])
	if !hasContentWord(rest) || len(words(rest)) > 4 || choiceVerbs[firstWord(rest)] {
		return ""
	}
	if p, after, _ := strings.Cut(rest, " "); optionPreps[lower(p)] && !(placePreps[lower(p)] && isProperName(firstField(after))) {
		// "a solicitor for a renewal": a purpose both options share,
		// where "the barn at Ashcombe" says which barn.
		return ""
	}
	return rest
}

// placePreps open where an option is: "the barn at Ashcombe"; optionPreps
// are all the prepositions an option's words may go on with.
var (
	placePreps  = set(`at, in, on, from, near, by`)
	optionPreps = set(`at, in, on, from, near, by, for, to, with, about, of, as, into, during, after, before, over, under, than`)
)

// firstField is the first space-separated field of s.
func firstField(s string) string {
	f, _, _ := strings.Cut(s, " ")
	return f
}

// choiceVerbs open the second half of a question rather than an option's
// words: "keep the barn or ...", "are management accounts enough".
var choiceVerbs = set(`is, are, was, were, do, does, did, can, could, should, will, would, or, and`)

// answerChoice reads a short answer to the nearest either-or question of
// the few messages before: the answer must name words of one side of it.
func answerChoice(mc *messageContext, t *text) (found, bool) {
	if !mc.human {
		return found{}, false
	}
	if f, ok := answerContrast(mc, t.s); ok {
		return f, true
	}
	if f, ok := answerThen(mc, t.s); ok {
		return f, true
	}
	if first, _, ok := strings.Cut(t.s, ", "); ok && strings.HasPrefix(mc.msg.Content, first) {
		// "Sunday, fewer people are working": the pick is the first
		// clause, the reason the rest.
		t = newText(first)
	}
	if len(strings.Fields(t.s)) > maxOptionWords {
		return found{}, false
	}
	// The nearest either-or question is the one answered.
	options, ok := askedOptions(mc)
	if !ok {
		return found{}, false
	}
	q := []string{options}
	if c := tidy(t.s); len(words(c)) > 2 && containsWords(q[0], c) && concreteObject(c) && !pickOpeners[firstWord(c)] {
		// "Should we keep the raw zone in S3 or load everything into
		// Snowflake?" "Keep the raw zone in S3, we need it": the answer
		// repeats one option.
		return found{typ: tenure.StateDecision, text: capitalize(c), conf: tenure.ConfidenceMedium}, true
	}
	if len(strings.Fields(t.s)) > maxPickWords {
		if c := tidy(t.s); countContentWords(c, minRestatedStems) >= minRestatedStems && !pickOpeners[firstWord(c)] && !itIsNotChoice[firstWord(c)] && !interjections[firstWord(c)] {
			// "one shared vegetarian main with fish added on the side,
			// or two separate meals?" "One shared main with fish on the
			// side": the answer says one option in other words.
			if full := stemOption(q[0], c); full != "" {
				return found{typ: tenure.StateDecision, text: full, conf: tenure.ConfidenceMedium}, true
			}
		}
		return found{}, false
	}
	m := pickRe.FindTextSubmatch(t)
	if m == nil || pickOpeners[firstWord(m[1])] || interjections[firstWord(m[1])] || !hasContentWord(m[1]) ||
		isSpeaker(m[1], mc.before) || isSpeaker(m[1], []tenure.Message{*mc.msg}) {
		return found{}, false
	}
	if containsWords(q[0], m[1]) && !pronounObjects[lastWord(lower(tidy(m[1])))] {
		if full := pickedOption(q[0], tidy(m[1])); full != "" {
			return found{typ: tenure.StateDecision, text: capitalize(full), conf: tenure.ConfidenceMedium}, true
		}
		if rest := optionRest(q[0], tidy(m[1])); rest != "" {
			// "the barn at Ashcombe or the hotel in town?" "The barn":
			// the option the pick opens, in full.
			return found{typ: tenure.StateDecision, text: capitalize(tidy(m[1])) + " " + rest, conf: tenure.ConfidenceMedium}, true
		}
		if full := phrasedOption(q[0], tidy(m[1])); full != "" {
			// "Are we keeping the swim at 6:30 or pushing it to 7?"
			// "6:30 stays": the option said as its verb phrase, or
			// after the topic the question put first.
			return found{typ: tenure.StateDecision, text: full, conf: tenure.ConfidenceMedium}, true
		}
		return found{typ: tenure.StateDecision, text: capitalize(tidy(m[1])) + choiceTail(q[0], m[1]), conf: tenure.ConfidenceMedium}, true
	}
	if last := lastWord(lower(tidy(m[1]))); len(words(m[1])) > 1 && len(last) > 3 && !stopwords[last] && strings.Count(" "+lower(q[0])+" ", " "+last+" ") == 1 {
		if rest := optionRest(q[0], last); rest != "" {
			// "Should the exercise be in Go, or can people pick their
			// language?" "Let them pick": the option the pick's verb
			// governs, said in the answer's words.
			return found{typ: tenure.StateDecision, text: capitalize(tidy(m[1])) + " " + rest, conf: tenure.ConfidenceMedium}, true
		}
	}
	if side := sideOf(q[0], firstWord(m[1])); side != "" && len(words(m[1])) <= 3 {
		// "Do we keep the free tier or hide it?" "Keep it.": the side
		// of the question the answer's verb opens.
		return found{typ: tenure.StateDecision, text: capitalize(side), conf: tenure.ConfidenceMedium}, true
	}
	if pronounObjects[lastWord(lower(tidy(m[1])))] || statementSubjects[lower(firstWord(m[1]))] {
		// "For walking or running?" "These are for running": a
		// statement about what was asked, not a pick.
		return found{}, false
	}
	if full := phrasedOption(q[0], tidy(m[1])); full != "" {
		return found{typ: tenure.StateDecision, text: full, conf: tenure.ConfidenceMedium}, true
	}
	if full := stemOption(q[0], tidy(m[1])); full != "" {
		// "a taxi account or a volunteer driver scheme for the physio
		// trips?" "Volunteer drivers": the same words, inflected.
		return found{typ: tenure.StateDecision, text: full, conf: tenure.ConfidenceMedium}, true
	}
	return found{}, false
}

// statementSubjects open a statement about a thing, not a pick of it.
var statementSubjects = set(`i, we, you, he, she, they, it, this, that, these, those, it's, that's, they're, i'm, we're`)

// minRestatedStems is how many content words an answer longer than a
// pick needs to be read as an option said in other words.
const minRestatedStems = 3

// weOptionsRe is a question about what to do with two options: "do we
// run the Sheffield loop from the Leeds depot or from Doncaster?".
var weOptionsRe = mustPattern(`(?i)\b(?:do|should|shall|will|can|could)\s+(?:we|i|you)\s+([a-z].*?)\s+or\s+(.+?)\s*\?`)

// pickedOption is what a pick from the second option of such a question
// decides, when that option opens with a preposition the first repeats:
// "run the Sheffield loop from Doncaster". Otherwise "".
func pickedOption(q, pick string) string {
	m := weOptionsRe.FindStringSubmatch(q)
	if m == nil || !containsWords(m[2], pick) {
		return ""
	}
	prep := firstWord(m[2])
	if !tailPreps[prep] {
		return ""
	}
	k := strings.LastIndex(lower(m[1]), " "+prep+" ")
	if k <= 0 || !hasContentWord(m[1][:k]) {
		return ""
	}
	return m[1][:k] + " " + m[2]
}

// interjections open an answer without picking anything: "Wow, ...".
var interjections = set(`wow, oh, ooh, nice, cool, great, awesome, amazing, haha, lol, thanks, thank, hey, hi, hello,
	congrats, congratulations, yay, yup, nope, nah, sounds, aw, aww, omg, wonderful, lovely, sweet, good, fantastic,
	true, totally, exactly, right, hmm, well, sorry, ah, agreed, fair, same, me, you, glad, happy, love`)

// askedOptions is the sentence that asks the nearest either-or question
// of the few messages before mc's, whoever asked it; false when none
// does.
func askedOptions(mc *messageContext) (string, bool) {
	for i := len(mc.before) - 1; i >= 0; i-- {
		if c := mc.before[i].Content; eitherOrRe.MatchString(c) {
			return optionsSentence(c), true
		}
	}
	return "", false
}

// optionsSentence is the sentence of a message that asks an either-or
// question.
func optionsSentence(c string) string {
	loc := eitherOrRe.FindStringIndex(c)
	if loc == nil {
		return c
	}
	start := 0
	for _, sep := range []string{". ", "! ", "? "} {
		if k := strings.LastIndex(c[:loc[0]], sep); k >= 0 && k+len(sep) > start {
			start = k + len(sep)
		}
	}
	return c[start:loc[1]]
}

// containsWords reports whether s holds the words of w, whole.
func containsWords(s, w string) bool {
	sw, ww := words(s), words(w)
	for i := 0; i+len(ww) <= len(sw) && len(ww) > 0; i++ {
		if slices.Equal(sw[i:i+len(ww)], ww) {
			return true
		}
	}
	return false
}

// choiceTail is what an either-or question says of its options after
// naming them, when it starts with a preposition: " for the main" of "fish
// or lamb for the main?". A pick is understood with it.
func choiceTail(q, pick string) string {
	lq, lp := lower(q), lower(tidy(pick))
	or := strings.LastIndex(lq, " or ")
	k := strings.Index(lq, lp)
	if or < 0 || k < 0 {
		return ""
	}
	var rest []string
	if k > or {
		rest = strings.Fields(q[k+len(lp):])
	} else {
		// The pick is the first option: the tail follows the second.
		rest = strings.Fields(q[or+4:])
		for len(rest) > 0 && !tailPreps[lower(rest[0])] {
			rest = rest[1:]
		}
	}
	if len(rest) == 0 || !tailPreps[lower(rest[0])] {
		return ""
	}
	tail := tidy(strings.TrimRight(strings.Join(rest, " "), "?"))
	if !hasContentWord(tail) {
		return ""
	}
	return " " + tail
}

// tailPreps open what a question says of its options.
var tailPreps = map[string]bool{"for": true, "on": true, "in": true, "at": true, "as": true, "from": true, "to": true}

// sideOf is the option of an either-or question that verb opens, up to
// the "or" or the question mark: "keep the free tier on the page" of "do
// we keep the free tier on the page or hide it?" for "keep"; or "".
func sideOf(q, verb string) string {
	if verb == "" || stopwords[verb] || interjections[verb] {
		return ""
	}
	// The verb must open an option: after "we", "I" or a modal, or
	// after "or".
	opens := false
	ws := words(q)
	for i, w := range ws {
		if w == verb && i > 0 && (ws[i-1] == "we" || ws[i-1] == "i" || ws[i-1] == "or" || auxiliaries[ws[i-1]]) {
			opens = true
		}
	}
	if !opens {
		return ""
	}
	lq := lower(q)
	for _, sep := range []string{" " + verb + " ", " or " + verb + " "} {
		k := strings.Index(lq, sep)
		if k < 0 {
			continue
		}
		rest := q[k+len(sep)-len(verb)-1:]
		if end := strings.Index(lower(rest), " or "); end > 0 {
			rest = rest[:end]
		}
		rest = tidy(strings.TrimRight(rest, "?"))
		obj := strings.TrimPrefix(lower(rest), verb+" ")
		if concreteObject(obj) {
			return rest
		}
		if m := firstOptionRe.FindStringSubmatch(q[:k]); m != nil && sep[1:3] == "or" && pronounObjects[obj] && concreteObject(m[1]) {
			// "keep the bonfire night or scrap it?" "Scrap it": "it" is
			// what the first option is done to.
			return verb + " " + tidy(m[1])
		}
	}
	return ""
}

// firstOptionRe is the object of the option a question opens with: "the
// bonfire night" of "do we keep the bonfire night".
var firstOptionRe = mustPattern(`(?i)\b(?:we|i|you)\s+[a-z]+\s+(.+)$`)

// pronounObjects stand for an object named before.
var pronounObjects = map[string]bool{"it": true, "them": true, "that": true, "this": true}

// thenRe is a short pick closed with "then": "Druckhaus Berg, then".
var thenRe = mustPattern(`(?i)^([^,;]{2,40}?),?\s+then$`)

// choiceQuestionRe is a question that asks for a choice: which one, what
// we should do, or one thing or another.
var choiceQuestionRe = mustPattern(`(?i)\bwhich\b|\bwhat\b[^?]*\b(?:should|shall|do)\s+we\b|\S\s+or\s+[^?]*\?`)

// answerThen reads "X, then" as the pick that closes a choice another
// speaker asked for just before.
func answerThen(mc *messageContext, t string) (found, bool) {
	m := thenRe.FindStringSubmatch(t)
	if m == nil {
		return found{}, false
	}
	pick := tidy(m[1])
	if len(words(pick)) > 4 || !concreteObject(pick) || pickOpeners[firstWord(pick)] || personWords[firstWord(pick)] {
		return found{}, false
	}
	for i := len(mc.before) - 1; i >= 0; i-- {
		b := &mc.before[i]
		if b.Speaker == mc.msg.Speaker && b.Role == mc.msg.Role {
			continue
		}
		if strings.Contains(b.Content, "?") && choiceQuestionRe.MatchString(b.Content) {
			return found{typ: tenure.StateDecision, text: capitalize(pick), conf: tenure.ConfidenceMedium}, true
		}
		return found{}, false
	}
	return found{}, false
}

// contrastRe is an answer that names one option against another: "Greenfield
// Labs, not Idexx", "the blue one rather than the red".
var contrastRe = mustPattern(`(?i)^([^,;]{2,40}?),?\s+(?:not|rather\s+than|instead\s+of|over)\s+([^,;]{2,40}?)(?:[,;.!]|$)`)

// answerContrast reads an answer that picks one option against another
// when it answers a question another speaker asked just before: the
// structure of a choice, whatever the options are.
func answerContrast(mc *messageContext, t string) (found, bool) {
	m := contrastRe.FindStringSubmatch(t)
	if m == nil || !strings.HasPrefix(mc.msg.Content, strings.TrimSpace(m[1])) {
		return found{}, false
	}
	pick, other := tidy(m[1]), tidy(m[2])
	if pw := words(pick); len(pw) > 0 && (auxiliaries[pw[len(pw)-1]] || modalWords[pw[len(pw)-1]]) {
		// "Hoses must not be left running": a negated verb, not an
		// option set aside.
		return found{}, false
	}
	if len(words(pick)) > 4 || len(words(other)) > 4 || !concreteObject(pick) || !concreteObject(other) ||
		pickOpeners[firstWord(pick)] || itIsNotChoice[firstWord(pick)] || personWords[firstWord(pick)] {
		return found{}, false
	}
	for i := len(mc.before) - 1; i >= 0; i-- {
		b := &mc.before[i]
		if b.Speaker == mc.msg.Speaker && b.Role == mc.msg.Role {
			continue
		}
		if strings.Contains(b.Content, "?") {
			return found{typ: tenure.StateDecision, text: capitalize(pick) + ", not " + other, conf: tenure.ConfidenceMedium}, true
		}
	}
	return found{}, false
}

// A yes to a "should we ...?" question another speaker asked just before
// decides what it asked: "Should postmortems be blameless by policy?"
// "Yes, that's our policy from now on."
var (
	yesRe    = mustPattern(`(?i)^(?:yes|yep|yeah|yup|agreed|definitely|absolutely|correct)\b`)
	shouldRe = mustPattern(`(?i)^(?:so\s+|and\s+|ok\s+)?(?:should|shall)\s+(we|[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+([a-z].*?)\s*\?$`)
)

// An answer to a question about what the group does ("Do we keep the old
// tyre machine?", "Are we dropping Python 3.8?") that says what the group
// will do ("No, we're selling the old one and leasing a new machine")
// decides it.
var (
	weQuestionRe = mustPattern(`(?i)\b(?:do|does|should|shall|are|will|can)\s+we\b[^?]*\?`)
	weAnswerRe   = mustPattern(`(?i)^(?:(?:no|nope|nah|yes|yep|yeah|yup)\b[,.!]*\s+)?we(?:'re|\s+are|'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to)\s+(?:now\s+|also\s+|just\s+|definitely\s+)?([a-z]+)\b(.*)`)
	andIngRe     = mustPattern(`\band\s+([a-z]+ing)\b`)
)

// answerWe reads what the group will do, said in answer to a question
// another speaker asked about it in the few messages before.
func answerWe(mc *messageContext, t *text) (found, bool) {
	if !mc.human || len(mc.before) == 0 {
		return found{}, false
	}
	m := weAnswerRe.FindTextSubmatch(t)
	if m == nil {
		return found{}, false
	}
	b := &mc.before[len(mc.before)-1]
	if b.Speaker == mc.msg.Speaker || !weQuestionRe.MatchString(b.Content) {
		return found{}, false
	}
	verb := lower(m[1])
	if strings.HasSuffix(verb, "ing") {
		verb = ingBase(verb)
	}
	if auxiliaries[verb] || idleVerbs[verb] || stopwords[verb] || pastimes[verb] {
		return found{}, false
	}
	obj := clauseAfter(m[2])
	if !concreteObject(obj) {
		return found{}, false
	}
	// "selling the old one and leasing a new machine": both verbs in
	// their plain form.
	obj = andIngRe.re.ReplaceAllStringFunc(obj, func(s string) string { return "and " + ingBase(strings.TrimPrefix(s, "and ")) })
	return found{typ: tenure.StateDecision, text: capitalize(verb + " " + obj), conf: tenure.ConfidenceMedium}, true
}

// answerShould reads a yes to the nearest question of the few messages
// before, when it asks whether "we" or a named thing should do something.
func answerShould(mc *messageContext) (found, bool) {
	if !mc.human || !yesRe.MatchString(mc.msg.Content) || len(mc.before) == 0 {
		return found{}, false
	}
	for i := len(mc.before) - 1; i >= 0; i-- {
		b := &mc.before[i]
		if !strings.Contains(b.Content, "?") {
			continue
		}
		if b.Speaker == mc.msg.Speaker {
			return found{}, false
		}
		m := shouldRe.FindStringSubmatch(strings.TrimSpace(b.Content))
		if m == nil || vagueSubjects[firstWord(m[1])] {
			// "Shall I email you a label?" "Yes please.": an offer
			// accepted, which decides nothing ("I email" is no subject).
			return found{}, false
		}
		text := m[2]
		if lower(m[1]) != "we" {
			text = m[1] + " should " + m[2]
		}
		if countContentWords(text, 2) < 2 {
			return found{}, false
		}
		return found{typ: tenure.StateDecision, text: capitalize(tidy(text)), conf: tenure.ConfidenceMedium}, true
	}
	return found{}, false
}
