package extract

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// Action patterns: a first-person commitment ("I'll send the draft"), a
// need ("need to rotate the keys") and a request with a deadline ("can you
// send me the estimate by Wednesday?").
var (
	commitRe = mustPattern(`(?i)\b(i|we)(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to)\s+(?:(?:also|then|first|just|quickly|now|go\s+ahead\s+and)\s+)?([a-z][a-z-]*)\b(.*)`)
	needRe   = mustPattern(`(?i)(?:^|\b(i|we|you)(?:'ll|\s+will)?\s+)(?:really\s+|still\s+|also\s+|just\s+|definitely\s+|first\s+)?(?:need|have|'ve\s+got|got|gotta)\s+to\s+([a-z][a-z-]*)\b(.*)`)
	// thirdRe is a named person's commitment: "Marco will set up the
	// pipeline", "Lena is going to draft the policy", "Tomás from
	// Northwind will send the dataset", "my sister Julia will book ...".
	thirdRe = mustPattern(`^(?:(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)\s+[a-z]+(?:\s+[a-z]+)?\s+)?((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+)?)(?:\s+(?:from|at|of)\s+[A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?)?(?:\s+(?:will|is\s+going\s+to|is\s+gonna|has\s+to|needs\s+to|is\s+to|to)|'ll|'s\s+going\s+to|'s\s+gonna)\s+(?:(?:also|then|first|just|quickly|now|go\s+ahead\s+and)\s+)?([a-z][a-z-]*)\b(.*)`)
	// thirdNowRe is a named person's task said in the present progressive
	// ("Jamal is updating the consent forms by Thursday") or as a
	// responsibility ("Emeka's on the hook for the autoclave service"): a
	// task when the sentence dates it (thirdNow).
	thirdNowRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]+(?:\s+[A-Z][\p{L}'-]+)?)(?:\s+is|'s)\s+(?:(?:also|now|already|currently|just)\s+)?(?:([a-z]+ing)\b|(on\s+the\s+hook\s+for|in\s+charge\s+of|responsible\s+for)\s+)(.*)`)
	// pronounCommitRe is a commitment by "she", "he" or "they", whose
	// owner is the person the sentence named before it.
	pronounCommitRe = mustPattern(`(?i)(?:^|,\s+|\band\s+|\bso\s+)(she|he|they)(?:'ll|\s+will|'s\s+going\s+to|\s+is\s+going\s+to)\s+(?:(?:also|then|first|just)\s+)?([a-z][a-z-]*)\b(.*)`)
	// leadingVocative is a name a request opens with: "Priya, can you ...".
	leadingVocative = mustPattern(`^([A-Z][\p{L}-]+),\s+`)
	letsRe          = mustPattern(`(?i)\blet'?s\s+([a-z][a-z-]*)\b(.*)`)
	gottaRe         = mustPattern(`(?i)(?:^|\bi\s+)gotta\s+([a-z][a-z-]*)\b(.*)`)
	// remindMeRe asks to be reminded of one's own task: "remind me to
	// renew my passport", "don't let me forget to call the bank".
	remindMeRe   = mustPattern(`(?i)^(?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:remind\s+me\s+to|don't\s+let\s+me\s+forget\s+to|make\s+sure\s+i\s+remember\s+to)\s+([a-z][a-z-]*)\b(.*)`)
	requestRe    = mustPattern(`(?i)^(?:can|could|would|will)\s+(?:you|someone|somebody|anyone)\s+(?:please\s+)?([a-z][a-z-]*)\b(.*)$`)
	asksListener = mustPattern(`(?i)^\w+\s+you\b`)
	vocative     = mustPattern(`,\s*[A-Z][\p{L}-]*$`)
	meRe         = mustPattern(`(?i)\bme\b`)
	// bareDueRe is a due day said without a preposition: "can you share
	// it with legal today?".
	bareDueRe = mustPattern(`(?i)\b(?:today|tonight|tomorrow|this\s+(?:week|morning|afternoon|evening)|next\s+week|asap|eod|eow)\b`)
	// nameRequestRe is a request of a named person: "can Pieter get the
	// labels proofread before Friday?".
	nameRequestRe = mustPattern(`^(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill)\s+((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]+)\s+(?:please\s+)?([a-z][a-z-]*)\b(.*)$`)
	// causativeRe is "get" or "have" something done.
	causativeRe = mustPattern(`^(?:get|have)$`)
	// taskIsRe is a named person's task stated as such: "Pieter's task
	// this week is to photograph the new acquisitions".
	taskIsRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}-]+)'s\s+(?:main\s+)?(?:job|task|homework|assignment|action)(?:\s+(?:this|next)\s+(?:week|month|sprint))?\s+is\s+to\s+([a-z][a-z-]*)\b(.*)$`)
	// assignedRe is a duty handed to the person addressed: "Ana, you're in
	// charge of tickets this year", "Kwame, you're on Saturdays".
	assignedRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]+),\s+you(?:'re|\s+are)\s+(?:now\s+|also\s+)?(?:on|in\s+charge\s+of|responsible\s+for|on\s+the\s+hook\s+for|covering|handling)\s+(.+)$`)
	// labelRe is a short label a sentence opens with: "Last thing:",
	// "Update:", "For the record:".
	labelRe = mustPattern(`^(?:[A-Za-z][\p{L}-]*\s+){0,2}[A-Za-z][\p{L}-]*:\s+([A-Z].*)$`)
	// pleaseRe is an order to a named person: "Sven, please update the
	// runbook before Friday".
	pleaseRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]+),?\s+(?:please|pls|kindly)\s+([a-z][a-z-]*)\b(.*)$`)
)

// idleVerbs take no task: "I'll be there", "I'll see", "gotta run", and
// hedges standing where the verb would ("we'll probably ...").
var idleVerbs = map[string]bool{"be": true, "have": true, "see": true, "try": true, "think": true,
	"let": true, "get": true, "keep": true, "miss": true, "need": true, "love": true, "like": true,
	"bet": true, "probably": true, "maybe": true, "definitely": true, "never": true, "not": true,
	"always": true, "still": true, "go": true, "come": true, "wait": true, "pass": true, "survive": true,
	"manage": true, "say": true, "admit": true, "talk": true, "relax": true, "sleep": true, "rest": true,
	"leave": true, "know": true, "feel": true, "guess": true, "hope": true, "stay": true,
	"mind": true, "eat": true, "grab": true, "die": true, "join": true, "attend": true}

// particles complete phrasal verbs ("write up", "send over").
var particles = map[string]bool{"up": true, "over": true, "out": true, "back": true, "off": true, "down": true}

// lifeVerbs start personal plans ("I'm going to start volunteering"),
// which are profile facts rather than tasks.
var lifeVerbs = map[string]bool{"start": true, "move": true, "adopt": true, "visit": true, "travel": true,
	"learn": true, "study": true, "quit": true, "join": true, "volunteer": true, "buy": true,
	"marry": true, "retire": true, "become": true, "fly": true}

func action(mc *messageContext, t *text) (found, bool) {
	if !mc.human {
		// The assistant side commits apart (assistantCommitment): most of
		// its "I'll ..." is done in its answer or its next turn.
		return assistantCommitment(mc, t)
	}
	if f, ok := named(mc, t); ok {
		return f, true
	}
	f, who, ok := commitment(t)
	if !ok {
		return f, false
	}
	switch lower(who) {
	case "i", "":
		f.owner = mc.subject
	case "you":
		f.owner = mc.addressee
	}
	// A task is read away from its conversation: "you" and "my" become
	// the people they stand for, when that is certain.
	if mc.addressee != "" {
		f.text = youRe.ReplaceAllString(f.text, "${1}"+mc.addressee+"${2}")
	}
	if mc.msg.Speaker != "" {
		f.text = myRe.ReplaceAllString(f.text, "${1}"+mc.msg.Speaker+"'s${2}")
	}
	return f, true
}

var (
	youRe = mustPattern(`(^|\s)you(\s|$)`)
	myRe  = mustPattern(`(^|\s)my(\s)`)
)

// named reads a commitment of a named person ("Marco will set up the
// pipeline by Friday") or of one a pronoun stands for ("my friend Noor
// ..., she'll pick the wine"), whose owner is that person.
func named(mc *messageContext, t *text) (found, bool) {
	if m := pleaseRe.FindTextSubmatch(t); m != nil && isProperName(m[1]) && !strings.EqualFold(m[1], mc.msg.Speaker) {
		f, ok := askedTask(m[2], m[3], tenure.ConfidenceHigh)
		f.owner = m[1]
		return f, ok
	}
	if m := vocativeOrderRe.FindTextSubmatch(t); m != nil && addressed(mc, m[1]) && imperative(m[2]) && nounPhrase(m[3]) {
		// "Joel, book the van in with Dev by Friday": an order to the
		// person addressed is their task.
		f, ok := askedTask(m[2], m[3], tenure.ConfidenceMedium)
		f.owner = m[1]
		return f, ok
	}
	if m := assignedRe.FindTextSubmatch(t); m != nil && isProperName(m[1]) && !strings.EqualFold(m[1], mc.msg.Speaker) {
		// "Lotte, you're on the early bake every Tuesday": a duty
		// handed to the person addressed.
		f, ok := task("handle", m[2], tenure.ConfidenceMedium)
		f.owner = m[1]
		return f, ok
	}
	if m := labelRe.FindTextSubmatch(t); m != nil {
		// "Last thing: Raj will repaint the bay markings": what follows
		// a short label is read on its own.
		if f, ok := named(mc, newText(m[1])); ok {
			return f, true
		}
	}
	if m := thirdRe.FindTextSubmatch(t); m != nil && properNames(m[1]) && !strings.EqualFold(m[1], mc.msg.Speaker) && !pastForm(lower(m[1])) && !pastIrregular[lower(m[1])] {
		// ("Went to the trade show instead": a verb in the past opens
		// the sentence, not a name.)
		f, ok := task(m[2], m[3], tenure.ConfidenceHigh)
		f.owner = m[1]
		return f, ok
	}
	if f, ok := thirdNow(mc, t); ok {
		return f, true
	}
	if f, ok := relativeTask(mc, t); ok {
		return f, true
	}
	if m := taskIsRe.FindTextSubmatch(t); m != nil && properNames(m[1]) && !strings.EqualFold(m[1], mc.msg.Speaker) {
		f, ok := task(m[2], m[3], tenure.ConfidenceMedium)
		f.owner = m[1]
		return f, ok
	}
	if m := pronounCommitRe.FindTextSubmatchIndex(t); m != nil {
		who := lastName(t.s[:m[0]])
		if who == "" {
			return found{}, false
		}
		f, ok := task(t.s[m[4]:m[5]], t.s[m[6]:m[7]], tenure.ConfidenceMedium)
		f.owner = who
		return f, ok
	}
	return found{}, false
}

// honorifics may open a name: "Dr. Okafor".
var honorifics = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "mx": true}

// properNames reports whether s is a name: proper names, an honorific
// first, "&" between ("Hollis & Co").
func properNames(s string) bool {
	for i, w := range strings.Fields(s) {
		switch {
		case i == 0 && honorifics[lower(strings.TrimSuffix(w, "."))] && len(strings.Fields(s)) > 1:
		case i > 0 && w == "&":
		case !isProperName(w):
			return false
		}
	}
	return s != ""
}

// lastName is the last proper name of s that does not open it, or "".
func lastName(s string) string {
	ws := strings.Fields(s)
	for i := len(ws) - 1; i > 0; i-- {
		if w := strings.TrimRight(ws[i], ",.;:!?"); isProperName(w) {
			return w
		}
	}
	return ""
}

// commitment reads a commitment and returns it with who committed: "i",
// "we", "you", or "" for a sentence with no subject ("need to ...").
func commitment(t *text) (found, string, bool) {
	if m := commitRe.FindTextSubmatch(t); m != nil {
		going := strings.Contains(lower(m[0]), "going")
		if !(going && lifeVerbs[lower(m[2])]) {
			if f, ok := task(m[2], m[3], tenure.ConfidenceHigh); ok {
				return f, m[1], true
			}
		}
	}
	// "Let's <verb>" that is not a decision (those are matched first)
	// proposes a task to the group.
	if m := needRe.FindTextSubmatch(t); m != nil {
		f, ok := task(m[2], m[3], tenure.ConfidenceMedium)
		return f, m[1], ok
	}
	if m := gottaRe.FindTextSubmatch(t); m != nil {
		f, ok := task(m[1], m[2], tenure.ConfidenceMedium)
		return f, "i", ok
	}
	if m := remindMeRe.FindTextSubmatch(t); m != nil {
		// "Remind me to renew my passport by Tuesday": the speaker's
		// own task, which they ask to be kept.
		f, ok := task(m[1], m[2], tenure.ConfidenceHigh)
		return f, "i", ok
	}
	if m := letsRe.FindTextSubmatch(t); m != nil {
		f, ok := task(m[1], m[2], tenure.ConfidenceMedium)
		return f, "we", ok
	}
	return found{}, "", false
}

// task is an action of verb and the clause of rest, when the verb does
// something to a concrete object.
func task(verb, rest string, conf tenure.Confidence) (found, bool) {
	verb = lower(verb)
	obj := clauseAfter(rest)
	// A particle belongs to its verb: "send over the slides".
	if p, after, ok := strings.Cut(obj, " "); ok && particles[lower(p)] {
		verb, obj = verb+" "+lower(p), after
	}
	if errandVerbs[verb] {
		// "Mateo will come by on Thursday to measure the brackets": a
		// visit is a task when it says what it is for.
		if m := purposeRe.FindStringSubmatch(obj); m != nil && !idleVerbs[m[1]] && wordnet.Known(m[1], wordnet.Verb) && (concreteObject(clauseAfter(m[2])) || pronounObject(m[2])) {
			return found{typ: tenure.StateAction, text: capitalize(verb + " " + obj), conf: conf}, true
		}
	}
	if idleVerbs[verb] || !concreteObject(obj) {
		return found{}, false
	}
	return found{typ: tenure.StateAction, text: capitalize(verb + " " + obj), conf: conf}, true
}

// errandVerbs are visits, which take no object: "come round", "pop by".
var errandVerbs = map[string]bool{"come": true, "go": true, "pop": true, "drop": true, "swing": true,
	"come by": true, "come over": true, "go over": true, "go down": true, "come down": true, "come up": true, "go up": true}

// pronounObject reports whether a verb's object is a pronoun for what
// was named before, after an optional preposition: "look at it".
func pronounObject(s string) bool {
	w := words(s)
	if len(w) == 2 && choicePreps[w[0]] || len(w) == 2 && w[0] == "at" {
		w = w[1:]
	}
	return len(w) == 1 && pronounObjects[w[0]]
}

// purposeRe is what a visit is for: "to measure the brackets".
var purposeRe = mustPattern(`(?i)\bto\s+([a-z]+)\b(.*)$`)

// askedTask is task for a verb someone is asked to do, where "get" takes
// an object ("please get three quotes for the compressor").
func askedTask(verb, rest string, conf tenure.Confidence) (found, bool) {
	if obj := clauseAfter(rest); lower(verb) == "get" && concreteObject(obj) && len(words(obj)) >= 2 {
		return found{typ: tenure.StateAction, text: capitalize("get " + obj), conf: conf}, true
	}
	return task(verb, rest, conf)
}

// vocativeOrderRe is an order to a person addressed by name: "Joel, book
// the van in with Dev by Friday".
var vocativeOrderRe = mustPattern(`^((?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][\p{L}'-]+),\s+([a-z][a-z-]*)\b(.*)$`)

// addressed reports whether name, set off by a comma, is a person spoken
// to: someone who speaks in the batch, or a capitalised word that WordNet
// knows as no adjective, adverb or verb, nor as a plural or a group
// ("Joel"; not "Right", "Listen", "Guys" or "Team"). The speaker does not
// address themselves.
func addressed(mc *messageContext, name string) bool {
	fields := strings.Fields(name)
	if len(fields) == 0 || !isProperName(fields[len(fields)-1]) || strings.EqualFold(name, mc.msg.Speaker) {
		return false
	}
	w := lower(fields[len(fields)-1])
	if isSpeaker(name, mc.batch) {
		return true
	}
	for _, pos := range []wordnet.POS{wordnet.Adjective, wordnet.Adverb, wordnet.Verb} {
		if wordnet.Known(w, pos) {
			return false
		}
	}
	ls := wordnet.Lemmas(w, wordnet.Noun)
	return len(ls) == 0 || ls[0] == w && wordnet.Class(w, wordnet.Noun) != "noun.group"
}

// imperative reports whether v is a verb in its base form that orders a
// task: not a feeling or a perception ("enjoy the weekend", "look at
// this"), nor a verb that takes none ("be", "have").
func imperative(v string) bool {
	ls := wordnet.Lemmas(v, wordnet.Verb)
	if len(ls) == 0 || ls[0] != v || idleVerbs[v] {
		return false
	}
	c := wordnet.Class(v, wordnet.Verb)
	return c != "verb.emotion" && c != "verb.perception"
}

// nounPhrase reports whether a verb's object, after an optional particle
// or preposition, opens with a determiner, a number or a word that is only
// a noun: "the menus", "in with Dev", "invoices"; not "back", "aboard" or
// "enough".
func nounPhrase(rest string) bool {
	w := words(clauseAfter(rest))
	for len(w) > 1 && (particles[w[0]] || choicePreps[w[0]] || objectPronouns[w[0]]) {
		w = w[1:]
	}
	if len(w) == 0 {
		return false
	}
	if determiners[w[0]] || isNumber(w[0]) || w[0] == "a" || w[0] == "an" {
		return true
	}
	return wordnet.Known(w[0], wordnet.Noun) && !wordnet.Known(w[0], wordnet.Adjective) && !wordnet.Known(w[0], wordnet.Adverb) && !vagueObjects[w[0]]
}

// request is "can you <verb> ... by <date>?": a task handed to someone with
// a deadline. Without a deadline it is too often a favour asked in passing
// ("can you help me plan a trip?"), unless it is asked of someone by name
// ("Tobias, can you book the refrigerated truck?"). "me" is the speaker.
func request(mc *messageContext, t string) (found, bool) {
	owner, byName := mc.addressee, false
	if m := leadingVocative.FindStringSubmatch(t); m != nil && isProperName(m[1]) {
		owner, t, byName = m[1], t[len(m[0]):], addressed(mc, m[1])
	}
	m := requestRe.FindStringSubmatch(t)
	if m == nil {
		return found{}, false
	}
	rest := strings.TrimSpace(m[2])
	if v := vocative.re.FindString(rest); v != "" && vocative.may(rest) {
		owner = strings.TrimSpace(strings.TrimLeft(v, ","))
		rest = strings.TrimSuffix(rest, v)
		byName = addressed(mc, owner)
	}
	if !dueRe.MatchString(m[2]) && !bareDueRe.MatchString(m[2]) && !(byName && nounPhrase(rest)) {
		return found{}, false
	}
	if mc.msg.Speaker != "" {
		rest = meRe.ReplaceAllString(rest, mc.msg.Speaker)
		rest = myRe.ReplaceAllString(rest, "${1}"+mc.msg.Speaker+"'s${2}")
	}
	f, ok := askedTask(m[1], rest, tenure.ConfidenceMedium)
	f.owner = owner
	return f, ok
}

// Questions that are not open items: greetings, rhetorical and tag
// questions, proposals, and questions about the listener ("do you like
// it?"), which are conversation rather than state.
var (
	smallTalkRe = mustPattern(`(?i)^(?:how(?:'s|\s+is|\s+are|\s+was|\s+were|'re)\b|how(?:\s+have|\s+has|\s+did|\s+do)\b.*\b(?:you|everyone|everybody|going|doing|been|things|life|weekend|day|trip|feeling)\b|remember\s+(?:when|how|that)\b|what'?s\s+(?:up|new)\b|wassup|sup\b|how\s+come\b|you$|really$|seriously$|right$|no$|who\s+(?:even|cares|knows)\b|why\s+(?:not|would\s+(?:anyone|anybody|you))\b|what\s+if\b|did\s+you\s+(?:know|hear|see)\b|guess\s+what\b|you\s+know\s+what\b|can\s+you\s+believe\b|isn'?t\s+(?:it|that)\b|wouldn'?t\s+it\s+be\b|don'?t\s+you\s+think\b|what\s+a\b|how\s+(?:cool|nice|fun|sweet|awesome|lovely)\b|(?:want|wanna)\s+to\b|let'?s\b|shall\s+we\b)|,\s*(?:right|no|eh|huh|yeah|isn'?t\s+it|don'?t\s+you\s+think)$`)
	personalRe  = mustPattern(`(?i)^(?:(?:what|where|when|who|why|how|which)(?:\s+\w+)?\s+)?(?:do|does|did|are|is|were|was|have|has|will|would|can|could)(?:n't)?\s+(?:you|he|she|they|ya)\b`)
	openerRe    = mustPattern(`(?i)^(?:what|what's|whats|where|when|who|who's|why|how|which|is|are|am|was|were|do|does|did|can|could|should|shall|will|would|has|have|may|isn't|aren't|don't|doesn't|didn't|won't|can't|shouldn't|any|anyone|anybody|someone|somebody)\b`)
	// questionCutRe splits a sentence into clauses; the question is the
	// last clause that opens like one ("..., and what's the best way?").
	questionCutRe = mustPattern(`,\s+|;\s+|:\s+|\s+[-–—]\s+`)
	leadingConjRe = mustPattern(`(?i)^(?:and|or|but|so|also|then|please)\b[,\s]*`)
)

// offerRe offers something to whoever wants it.
var offerRe = mustPattern(`(?i)^(?:does\s+|do\s+)?(?:anyone|anybody|you\s+guys|y'all)\s+(?:want|wants|fancy|fancies|up\s+for|hungry|thirsty|need\s+a\s+lift)\b`)

// didAnyoneRe asks whether people did something.
var didAnyoneRe = mustPattern(`(?i)^did\s+(?:anyone|anybody|everyone|everybody|you|y'all|you\s+guys|you\s+all)\s+([a-z]+)\b`)

// vagueQuestionWords carry no topic of their own in a question.
var vagueQuestionWords = map[string]bool{"happen": true, "awesom": true, "cool": true, "thing": true, "fun": true}

// question recognises a real question addressed to someone, or a request
// for a task.
func (r *Rules) question(mc *messageContext, s sentence, t string) (found, bool) {
	if !mc.human || s.emphatic {
		return found{}, false
	}
	t = tidy(t)
	asked := leadingVocative.ReplaceAllString(vocative.ReplaceAllString(t, ""), "")
	if m := nameRequestRe.FindStringSubmatch(asked); m != nil && properNames(m[1]) && !strings.EqualFold(m[1], mc.msg.Speaker) &&
		(dueRe.MatchString(m[3]) || bareDueRe.MatchString(m[3])) {
		// "Can Pieter get the labels proofread before Friday?": a dated
		// request of a named person is their task.
		f, ok := task(m[2], m[3], tenure.ConfidenceMedium)
		if obj := clauseAfter(m[3]); !ok && causativeRe.MatchString(lower(m[2])) && concreteObject(obj) && len(words(obj)) >= 3 {
			// "get the labels proofread": the task is what is to be done
			// to them.
			f, ok = found{typ: tenure.StateAction, text: capitalize(lower(m[2]) + " " + obj), conf: tenure.ConfidenceMedium}, true
		}
		f.owner = m[1]
		return f, ok
	}
	if m := requestRe.FindStringSubmatch(asked); m != nil && (dueRe.MatchString(m[2]) || asksListener.MatchString(asked)) {
		// A request with a deadline is a task; a favour asked of the
		// listener ("can you help me plan a trip?") is neither a task nor
		// an open question. "Can anyone explain ...?" is a question.
		return request(mc, t)
	}
	t = vocative.ReplaceAllString(t, "")
	t, ok := questionClause(t)
	if !ok {
		// "Fish or lamb for the main?": a choice asked without an
		// interrogative word.
		t, ok = optionsQuestion(vocative.ReplaceAllString(tidy(discourseRe.ReplaceAllString(s.text, "")), ""))
	}
	if !ok || smallTalkRe.MatchString(t) || personalRe.MatchString(t) {
		return found{}, false
	}
	if offerRe.MatchString(t) {
		// "Anyone fancy a cuppa?": an offer, not an open question.
		return found{}, false
	}
	if m := didAnyoneRe.FindStringSubmatch(t); m != nil && pastimes[lower(m[1])] {
		// "Did anyone watch the baking show last night?": what people
		// did for themselves is conversation.
		return found{}, false
	}
	cw := 0
	for _, w := range contentWords(t) {
		if !vagueQuestionWords[w] {
			cw++
		}
	}
	if cw < 2 {
		return found{}, false
	}
	f := found{typ: tenure.StateQuestion, text: capitalize(t) + "?", conf: tenure.ConfidenceMedium}
	if openerRe.MatchString(t) && cw >= 3 {
		f.conf = tenure.ConfidenceHigh
	}
	if answered(mc, t) {
		f.status = "answered"
	}
	return f, true
}

// optionsQuestion returns a question that names two options and nothing
// else: no comma, a few words, content words on both sides of "or".
func optionsQuestion(t string) (string, bool) {
	body := t
	if m := topicLabelRe.FindStringSubmatch(t); m != nil {
		// "Venue: the barn at Ashcombe or the hotel in town?": the
		// label says what the choice is about.
		body = m[1]
	}
	a, b, ok := strings.Cut(body, " or ")
	if !ok || strings.ContainsAny(body, ",;:") || len(strings.Fields(t)) > 12 || !hasContentWord(a) || !hasContentWord(b) ||
		youRe.MatchString(lower(t)) || strings.Contains(lower(t), "your") || !isNounStart(articleRe.ReplaceAllString(a, "")) {
		return "", false
	}
	return t, true
}

// topicLabelRe is a one- or two-word label before the options of a
// choice; articleRe an article an option opens with.
var (
	topicLabelRe = mustPattern(`^[A-Za-z][a-z-]*(?:\s+[a-z-]+)?:\s+(.+)$`)
	articleRe    = mustPattern(`(?i)^(?:the|a|an)\s+`)
)

// isNounStart reports whether an option opens with a noun rather than a
// preposition or a verb of chat ("For walking or running?", "Got any
// advice or tips?").
func isNounStart(s string) bool {
	w := firstWord(s)
	return w != "" && !vagueObjects[w] && !stopwords[w] && !timeWords[w] && !strings.HasSuffix(w, "ing")
}

// questionClause is the clause of a question sentence that asks: the last
// one that opens with an interrogative word. A sentence with none ("a nice
// watch?", "he loves jazz right?") is a guess or an echo, not a question.
func questionClause(t string) (string, bool) {
	cs := questionCutRe.Split(t, -1)
	alternative := ""
	for i := len(cs) - 1; i >= 0; i-- {
		raw := strings.TrimSpace(cs[i])
		c := leadingConjRe.ReplaceAllString(raw, "")
		if !openerRe.MatchString(c) {
			continue
		}
		if firstWord(raw) == "or" && i > 0 && !personalRe.MatchString(c) {
			// "Do we need a solicitor, or can we sign it ourselves?" asks
			// the first; the second is its alternative.
			alternative = c
			continue
		}
		return c, true
	}
	return alternative, alternative != ""
}

// Answers that are not answers.
var (
	deferralRe = mustPattern(`(?i)\b(?:good question|not sure|no idea|don't know|dunno|idk|let me check|i'll (?:ask|check|find out)|will check|no clue)\b`)
	yesNoRe    = mustPattern(`(?i)^(?:yes|yeah|yep|yup|no|nope|nah|sure|correct|definitely|absolutely|of course|it (?:does|doesn't|is|isn't|will|won't|can|can't)|it's|they (?:do|don't|are|aren't)|we (?:do|don't|are|aren't|have|haven't))\b`)
)

// answered reports whether the next message of the batch, from someone
// else, answers question q: a yes or no to a yes/no question, or a
// statement on the question's topic. A deferral ("good question, I'll ask
// legal") or a question back leaves it open.
func answered(mc *messageContext, q string) bool {
	n := mc.next
	if n == nil || (n.Speaker == mc.msg.Speaker && n.Role == mc.msg.Role) {
		return false
	}
	c := strings.TrimSpace(plainQuotes(n.Content))
	if c == "" || strings.Contains(c, "?") || deferralRe.MatchString(c) {
		return false
	}
	if yesNoRe.MatchString(c) && !strings.HasPrefix(lower(q), "wh") && !strings.HasPrefix(lower(q), "how") {
		return true
	}
	said := contentWords(q)
	for w := range contentStems(c) {
		if slices.Contains(said, w) {
			return true
		}
	}
	return false
}

// thirdNow reads a named person's dated task in the present: "Sadia's
// sending over the flyer on Friday", "Emeka's on the hook for the
// autoclave service before the 9th". Without a date it is a report of what
// someone is doing ("Sam is visiting his mom"), not a task.
func thirdNow(mc *messageContext, t *text) (found, bool) {
	m := thirdNowRe.FindTextSubmatch(t)
	if m == nil || !properNames(m[1]) || isOrgName(m[1]) || strings.EqualFold(m[1], mc.msg.Speaker) ||
		!(dateRe.MatchString(m[4]) || bareDueRe.MatchString(m[4])) {
		return found{}, false
	}
	verb, rest := ingBase(m[2]), m[4]
	if m[2] == "" {
		// A responsibility names the work, often as a gerund.
		verb, rest, _ = strings.Cut(strings.TrimSpace(m[4]), " ")
		if strings.HasSuffix(verb, "ing") && len(verb) > 5 {
			verb = ingBase(verb)
		} else {
			verb, rest = "handle", m[4]
		}
	}
	if verb == "" || pastimes[verb] && !dueRe.MatchString(rest) {
		// "Kofi's running the half marathon on Sunday" is news; "Bram is
		// running the blots by Thursday" is due.
		return found{}, false
	}
	f, ok := prepTask(verb, rest, tenure.ConfidenceMedium)
	f.owner = m[1]
	return f, ok
}

// taskPreps may follow a verb before what it is done with: "rehearse with
// the soloists", "apply for the permit".
var taskPreps = map[string]bool{"with": true, "for": true, "to": true, "on": true, "about": true, "at": true, "into": true}

// prepTask is task, or when the object opens with a preposition, the verb
// with it: a dated task of a named person ("Gareth is rehearsing with the
// soloists on Wednesday") names what it is done with.
func prepTask(verb, rest string, conf tenure.Confidence) (found, bool) {
	if f, ok := task(verb, rest, conf); ok {
		return f, true
	}
	prep, after, ok := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok || !taskPreps[lower(prep)] || idleVerbs[lower(verb)] {
		return found{}, false
	}
	return task(lower(verb)+" "+lower(prep), after, conf)
}

// pastimes are what people do for themselves, which "Lotte is visiting
// her sister next week" reports as news, not as a task.
var pastimes = set(`go, come, visit, fly, travel, arrive, meet, play, watch, celebrate, spend, enjoy, hike, run,
	walk, swim, eat, drink, attend, stay, sleep, leave, head, relax, rest, cook, dance, sing, ride, party,
	holiday, vacation, work, move, start, finish, join, fly, drive, see, get, be, do, have`)

// relativeTaskRe is a task of a relative named by relation alone: "my
// mum needs to sign the form by the 30th", "my husband's picking up the
// crutches on Saturday".
var relativeTaskRe = mustPattern(`(?i)^my\s+` + relativeMods + `(` + relations + `)(?:(?:'s|\s+is)\s+([a-z]+ing)\b|(?:'ll|\s+will|\s+needs\s+to|\s+has\s+to|\s+is\s+going\s+to|'s\s+going\s+to)\s+([a-z][a-z-]*)\b)(.*)`)

// relativeTask reads a relative's task, whose owner is the relative: a
// progressive one only when dated, as for a named person.
func relativeTask(mc *messageContext, t *text) (found, bool) {
	m := relativeTaskRe.FindTextSubmatch(t)
	if m == nil {
		return found{}, false
	}
	verb, rest := m[3], m[4]
	if m[2] != "" {
		verb = ingBase(m[2])
		if !(dateRe.MatchString(rest) || bareDueRe.MatchString(rest)) || pastimes[verb] && !dueRe.MatchString(rest) {
			return found{}, false
		}
	}
	f, ok := task(verb, rest, tenure.ConfidenceMedium)
	f.owner = mc.subject + "'s " + strings.Join(strings.Fields(lower(m[1])), " ")
	return f, ok
}

// eVerbs are verbs whose -ing form drops an e: "updating" is "update".
var eVerbs = set(`update, write, make, take, give, drive, move, prepare, share, arrange, schedule, change,
	charge, close, organise, organize, finalise, finalize, hire, create, circulate, complete, reserve,
	produce, provide, invoice, price, quote, purchase, replace, remove, rise, issue, handle, tackle,
	settle, file, compile, source, secure, ensure, measure, approve, double-check, raise, release,
	negotiate, coordinate, translate, calculate, validate, configure, retire, restore, store,
	trace, chase, leave, serve, use, revise, analyse, analyze, decide, guide, ride, merge, manage, judge`)

// ingBase is the plain form of a verb's -ing form: "sending" is "send",
// "dropping" "drop", "updating" "update".
func ingBase(v string) string {
	stem, ok := strings.CutSuffix(lower(v), "ing")
	if !ok || len(stem) < 2 {
		return lower(v)
	}
	if eVerbs[stem+"e"] {
		return stem + "e"
	}
	if n := len(stem); n >= 3 && stem[n-1] == stem[n-2] && !strings.ContainsRune("lsfzaeiou", rune(stem[n-1])) {
		return stem[:n-1] // "dropping", "planning", but "calling", "passing"
	}
	if silentE(stem) {
		return stem + "e"
	}
	return stem
}

// silentE reports whether a stem cut from an -ing form cannot end an
// English verb without an e: "rehears", "serv", "danc", "issu", "charg".
func silentE(stem string) bool {
	n := len(stem)
	if n < 3 {
		return false
	}
	last, prev := stem[n-1], stem[n-2]
	switch last {
	case 'v', 'u':
		return true
	case 'c':
		return prev != 'i'
	case 's':
		return prev == 'r' || prev == 'n' || prev == 'l' || prev == 'p'
	case 'g':
		return prev == 'd' || prev == 'r'
	}
	return false
}
