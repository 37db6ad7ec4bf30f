package extract

import (
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// Sentences that commit the speaker to nothing: conditions and wishes,
// reported speech, and jokes.
var (
	hypotheticalRe = mustPattern(`(?i)^(?:if|unless|suppose|supposing|imagine|what if|even if|in case|assuming)\b|\b(?:would|wish|i'd|we'd|you'd|hypothetically)\b`)
	reportedRe     = mustPattern(`(?i)\b(?:said|says|told|tells|asked|wrote|writes|claims|claimed)\b`)
	jokingRe       = mustPattern(`(?i)\b(?:kidding|jk|joking)\b`)
	// clauseVerbRe is a verb that makes a phrase a clause.
	clauseVerbRe = mustPattern(`(?i)\b(?:is|are|was|were|that)\b`)
	// asSaysRe is a source cited for comparison: "like the forecast
	// says", "as Sam said".
	asSaysRe = mustPattern(`(?i),?\s+(?:just\s+)?(?:like|as)\s+(?:the\s+|my\s+|our\s+|your\s+|his\s+|her\s+|their\s+)?[\p{L}'-]+(?:\s+[\p{L}'-]+)?\s+(?:says|said)\b`)
	// likeToRe is a wish that asks for something rather than imagines
	// it: "we'd like to move to annual billing", or a preference between
	// options: "we'd rather run two concepts than three", "I'd prefer a
	// refund instead". It is no
	// hypothetical unless a condition comes with it (conditionRe).
	likeToRe    = mustPattern(`(?i)\b(?:i'd|we'd|i\s+would|we\s+would)\s+(?:like\s+to|rather|prefer)\b`)
	conditionRe = mustPattern(`(?i)^(?:if|unless|suppose|supposing|imagine|what if|even if|in case|assuming)\b|\b(?:wish|hypothetically|if)\b`)
)

// matchItem recognises at most one state item in a sentence, trying the
// most specific patterns first: a to-do line, a question, then decisions,
// risks, constraints and actions.
func (r *Rules) matchItem(mc *messageContext, s sentence) (found, bool) {
	if mc.joking {
		return found{}, false
	}
	if s.todo {
		// "Action item: Elif to add cert expiry alerts": Elif's.
		if f, ok := named(mc, newText(tidy(s.text))); ok {
			f.conf = tenure.ConfidenceHigh
			return f, true
		}
		if t := tidy(s.text); hasContentWord(t) {
			return found{typ: tenure.StateAction, text: capitalize(t), conf: tenure.ConfidenceHigh}, true
		}
		return found{}, false
	}
	t := discourseRe.ReplaceAllString(s.text, "")
	// "If the rain arrives like the forecast says, we could lose the
	// Syrah": a source cited for comparison reports nothing.
	t = asSaysRe.ReplaceAllString(t, "")
	if loc := reportedRe.FindStringIndex(t); loc != nil {
		if f, ok := r.relayedRule(mc, t[loc[0]:]); ok && !s.question {
			return f, true
		}
		// "Invoices can only be reissued by billing, so I've asked them":
		// what comes before a report in a clause of its own is the
		// speaker's; the report is not.
		cut := strings.LastIndex(t[:loc[0]], ", ")
		if cut < 0 {
			return found{}, false
		}
		t = t[:cut]
	}
	if t == "" {
		return found{}, false
	}
	if s.question {
		return r.question(mc, s, t)
	}
	// "Dr. Okafor, our facilitator, will send ...": the apposition says
	// who, the rest what.
	t = asClauses(t)
	if m := whoRe.FindStringSubmatch(t); m != nil {
		t = m[1] + " " + m[3]
	} else if m := appositionRe.FindStringSubmatch(t); m != nil {
		t = m[1] + " " + m[3]
	} else if m := appositionFirstRe.FindStringSubmatch(t); m != nil && !clauseVerbRe.MatchString(m[1]) {
		// "Our practice manager, Greta Holm, will sign off the rota".
		// ("Our main risk is that the landlord, Mr Doyle, could sell"
		// opens with a clause, not a noun phrase.)
		t = m[2] + " " + m[4]
	}
	if f, ok := r.matchClause(mc, newText(t)); ok {
		return f, true
	}
	// A sentence that states nothing as a whole may state it in a clause
	// of its own after a contrast, a colon or a consequence: "Paint is
	// fine, but you can't drill into the tiled walls", "The nurse was
	// clear: no stairs for six weeks", "He's diabetic, so no sugary
	// snacks in the care packages". What comes before is the setting.
	for _, loc := range tailClauseRe.re.FindAllStringSubmatchIndex(t, -1) {
		tail := t[loc[2]:]
		if countContentWords(tail, 2) < 2 {
			continue
		}
		if f, ok := r.matchClause(mc, newText(tail)); ok {
			return f, true
		}
	}
	return found{}, false
}

// relayRe is a report of what someone said, wrote or told, and what
// they said: "the warden said no fires are allowed past the car park",
// "the council told us dogs must be kept on leads".
var relayRe = mustPattern(`(?i)^(?:said|says|told|tells|wrote|writes)(?:\s+(?:me|us|them|you|everyone|everybody))?(?:\s+that)?\s+(\S.*)$`)

// relayedRule reads a rule someone is reported to have stated ("Fiona
// said nothing can be sold before probate"): a rule passed on binds as
// much as one stated. Only a rule is read from a report: a task or a
// choice someone else said is theirs to keep.
func (r *Rules) relayedRule(mc *messageContext, report string) (found, bool) {
	m := relayRe.FindStringSubmatch(report)
	if m == nil {
		return found{}, false
	}
	return r.constraint(mc, newText(m[1]))
}

// tailClauseRe opens a clause that can stand alone: after ", but", a
// colon, a semicolon, ", so" or a dash.
var tailClauseRe = mustPattern(`(?:,\s+(?:but|so)\s+|:\s+|;\s+|\s+[-–—]\s+)(\S)`)

// matchClause recognises an item in a clause that stands alone.
func (r *Rules) matchClause(mc *messageContext, tx *text) (found, bool) {
	if hypotheticalRe.MatchText(tx) && !(likeToRe.MatchText(tx) && !conditionRe.MatchText(tx)) {
		// "If the printer misses Friday, we lose a week": a condition
		// with a harm that follows is a risk. So is what a speaker
		// says worries them, however hypothetical: "My worry is the
		// forecast, if the wind gets up we'd have to cancel".
		if riskLabelRe.MatchText(tx) {
			return risk(mc, tx)
		}
		return conditionalRisk(tx)
	}
	if f, ok := contactRule(mc, tx.s); ok {
		// "I'd rather you text me than call" is how to reach the
		// speaker, not a choice.
		return f, true
	}
	for _, match := range []func(*messageContext, *text) (found, bool){decision, risk, r.constraint, action} {
		if f, ok := match(mc, tx); ok {
			return f, true
		}
	}
	return found{}, false
}

// verbPhrase is a pattern whose match names a verb and its object: the
// item's text is the verb, capitalised, and the object's clause.
type verbPhrase struct {
	re *pattern
	// verb maps the submatches to the imperative verb; object is the
	// submatch that holds the object.
	verb   func(m []string) string
	object int
	conf   tenure.Confidence
}

// group returns submatch i as the verb.
func group(i int) func([]string) string { return func(m []string) string { return m[i] } }

// fixed returns v as the verb whatever matched.
func fixed(v string) func([]string) string { return func([]string) string { return v } }

// baseVerbs are the imperative forms of the inflected verbs decisions use.
var baseVerbs = map[string]string{"switching": "switch", "migrating": "migrate", "moving": "move", "going with": "go with", "going for": "go for", "gone for": "go for", "went for": "go for",
	"landed on": "go with", "landing on": "go with",
	"sticking with": "stick with", "switching to": "switch to", "standardizing on": "standardize on", "standardising on": "standardise on",
	"switched": "switch to", "migrated": "migrate to", "chose": "choose", "chosen": "choose",
	"opted for": "opt for", "settled on": "settle on", "went with": "go with", "gone with": "go with",
	"picked": "pick", "selected": "select", "decided on": "go with",
	"booked": "book", "reserved": "reserve", "confirmed": "confirm", "ordered": "order", "hired": "hire", "locked in": "lock in",
	"signed off on": "go with", "signed up for": "sign up for", "committed to": "commit to",
	"put a deposit on": "book", "put a deposit down on": "book"}

func base(i int) func([]string) string {
	return func(m []string) string {
		v := strings.Join(strings.Fields(lower(m[i])), " ")
		if b, ok := baseVerbs[v]; ok {
			return b
		}
		return v
	}
}

const decisionVerbs = `use|go with|stick with|switch to|move to|migrate to|adopt|keep|pick|choose|standardi[sz]e on|drop|deploy|host|ship|start with|settle on|store`

// decisionPhrases are the ways a settled choice is stated.
var decisionPhrases = []verbPhrase{
	{re: mustPattern(`(?i)\blet'?s\s+(` + decisionVerbs + `)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bwe(?:'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to|\s+shall)\s+(use|go with|go for|stick with|switch to|migrate to|adopt|keep|standardi[sz]e on|drop)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bwe(?:'ve|\s+have)?\s+(?:decided|agreed)\s+to\s+(go\s+with|stick\s+with|switch\s+to|move\s+to|migrate\s+to|[a-z]+)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bi(?:'ve|\s+have)?\s+decided\s+to\s+(go\s+with|stick\s+with|switch\s+to|[a-z]+)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceMedium},
	// "switching the dashboards to Superset": what changes, and to what.
	{re: mustPattern(`(?i)^(?:we(?:'re|\s+are|'ll|\s+will)\s+|let'?s\s+)?(switch|switching|move|moving|migrate|migrating)\s+((?:the|our)\s+[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?\s+(?:over\s+)?to\s+.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\b(?:we|i)(?:'ve|\s+have)?\s+(?:decided|agreed|settled)\s+on\s+(.+)`), verb: fixed("go with"), object: 1, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bwe(?:'re|\s+are)\s+(?:now\s+)?(switching|migrating|moving|going\s+with|sticking\s+with|standardi[sz]ing\s+on)\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bwe(?:'ve|\s+have)?\s+(switched|migrated)\s+(?:over\s+)?to\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bwe(?:'ve|\s+have)?\s+(chose|chosen|opted\s+for|settled\s+on|went\s+with|gone\s+with|picked|selected|decided\s+on|went\s+for|gone\s+for|landed\s+on)\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bwe(?:'re|\s+are)\s+(?:now\s+)?(going\s+for|landing\s+on)\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\bi(?:'ve|\s+have)?\s+(chose|chosen|opted\s+for|settled\s+on|went\s+with|gone\s+with|picked|selected|decided\s+on)\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceMedium},
	{re: mustPattern(`(?i)\bi(?:'ll|\s+will)\s+(go with|stick with)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceMedium},
	{re: mustPattern(`(?i)\b(?:everyone|everybody|we\s+all|all\s+of\s+us|the\s+team|the\s+group)\s+agreed\s+to\s+([a-z]+)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceHigh},
	{re: mustPattern(`(?i)\b(?:the|our)\s+(?:decision|plan)\s+is\s+to\s+([a-z]+)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceHigh},
	// "we'd like to move from monthly to annual billing": a change of plan
	// asked for.
	{re: mustPattern(`(?i)\b(?:we|i)(?:'d|\s+would)\s+like\s+to\s+(switch|move|upgrade|downgrade|change|cancel|migrate)\s+(.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceMedium},
	{re: mustPattern(`(?i)^(going\s+with|sticking\s+with|switching\s+to)\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceMedium},
	// "we'd rather run two concepts than three", "I'd rather have a
	// refund instead of the replacement": a preference between two
	// options is a choice.
	{re: mustPattern(`(?i)\b(?:we|i)(?:'d|\s+would)\s+(?:rather|prefer\s+to)\s+([a-z]+)\s+(.+?\s+(?:than|instead\s+of)\s+.+)`), verb: group(1), object: 2, conf: tenure.ConfidenceMedium},
	// "I'd prefer a refund instead", "we'd rather have the blue one
	// instead": one option preferred over the one on the table.
	{re: mustPattern(`(?i)\b(?:we|i)(?:'d|\s+would)\s+(?:prefer|rather\s+(?:have|get|take))\s+((?:a|an|the)\s+.+?\s+instead)\b`), verb: fixed("take"), object: 1, conf: tenure.ConfidenceMedium},
}

// bookedPhrases are a commitment already made, which settles the choice:
// "we've booked the electrician for the 20th", "we signed off on the
// Unox". A purchase told as news ("we ordered pizza last night") is not.
var bookedPhrases = []verbPhrase{
	{re: mustPattern(`(?i)\bwe(?:'ve|\s+have)?\s+(?:just\s+|now\s+|already\s+|finally\s+|also\s+)?(booked|reserved|confirmed|ordered|hired|locked\s+in|signed\s+off\s+on|signed\s+up\s+for|committed\s+to|put\s+a\s+deposit\s+(?:on|down\s+on))\s+(.+)`), verb: base(1), object: 2, conf: tenure.ConfidenceHigh},
}

// pastTimeRe dates a sentence in the past: what it tells is news.
var pastTimeRe = mustPattern(`(?i)\b(?:yesterday|last\s+(?:night|week|weekend|month|year|time|summer|winter|spring|autumn|fall|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|ago|earlier\s+today|this\s+morning|back\s+then|once)\b`)

// Decisions stated as a change: a labelled decision, "we replaced X with
// Y", and "we're no longer using X" next to the choice that replaced it.
var (
	// decisionLabelRe is a labelled decision; the label may say whose it
	// is ("decision from the board:") or what it settles ("final answer on
	// the start time:"), which the item's text keeps.
	decisionLabelRe = mustPattern(`(?i)^(?:decision|decided|final decision|final call|final answer|verdict|conclusion|resolution|outcome|consensus)(?:\s+(from|of|on|for|about)\s+([^:]{2,30}))?\s*[:\-–]\s*(.+)`)
	replacedRe      = mustPattern(`(?i)\bwe(?:'ve|\s+have)?\s+replaced\s+(.+?)\s+with\s+(.+)`)
	subjectRe       = mustPattern(`(?i)^(?:we|i)(?:'ll|\s+will)?\s+`)
	noLongerRe      = mustPattern(`(?i)\bno\s+longer\s+(?:using|use|on|with|going\s+with)\s+([^\s,;.!?]+)`)
)

// Decisions stated as a standing policy ("Going forward, certificates are
// renewed automatically"), and as a choice against something followed by
// what is done instead ("we decided against a van hire, we'll pay for a
// mover").
var (
	policyRe  = mustPattern(`(?i)^(?:going\s+forward|from\s+now\s+on|moving\s+forward|henceforth|as\s+of\s+(?:today|now))\s*,?\s+(.+)`)
	againstRe = mustPattern(`(?i)\b(?:we|i)(?:'ve|\s+have)?\s+decided\s+against\s+(.+?)(?:,|;|\s+and|\s+so)\s+(?:we|i)(?:'ll|\s+will|'re\s+going\s+to)\s+(.+)`)
)

// Choices between alternatives: what is done "instead of" or "rather
// than" something else is decided, whoever does it ("we'll hire a
// contractor instead of a designer"); and "X it is".
var (
	alternativeRe = mustPattern(`(?i)\b(?:instead\s+of|rather\s+than)\s+\S`)
	itIsRe        = mustPattern(`(?i)^([^,;]{2,40}?)\s+it\s+is(?:\s+then)?\s*(?:[,;]|$)`)
)

// thenItsRe is a conclusion: "then it's Copperline", "so it's the
// Unox".
var (
	thenItsRe = mustPattern(`(?i)(?:^|[.!?]\s+)(?:then|so)\s*,?\s+it(?:'s|\s+is)\s`)
	itsRe     = mustPattern(`(?i)^it(?:'s|\s+is)\s+([^,;.!?]{2,40}?)(?:[,;.!]|$)`)
)

// groupChoiceRe is a choice made by a body that decides for the group.
var groupChoiceRe = mustPattern(`(?i)^(?:the|our|their)\s+(?:board|committee|team|client|council|panel|trustees|partners|management|leadership|steering\s+group|owners?)\s+(?:has\s+|have\s+)?(approved|chose|picked|selected|went\s+with|opted\s+for|agreed\s+on|signed\s+off\s+on|settled\s+on|decided\s+on|voted\s+for)\s+(.+)`)

// weChoiceRe is a first-person plural subject and its verb in any tense
// but the past: "we're using", "we shoot", "we'll take".
var weChoiceRe = mustPattern(`(?i)\bwe(?:'re|\s+are|'ll|\s+will)?\s+(?:(?:now|also|just|definitely)\s+)?([a-z]+)\b(.*)`)

// notOtherRe is the option a choice sets aside after a comma: ", not the
// widefield scope".
var notOtherRe = mustPattern(`(?i),\s+not\s+(\S.*)$`)

// modalWords end a subject before a negated verb: "must not", "is not".
var modalWords = set(`must, can, could, should, would, might, may, will, shall, is, are, was, were, am, do, does, did`)

// auxiliaries are verbs that do not choose: "we can", "we need".
var auxiliaries = set(`can, could, should, would, might, may, must, need, have, had, has, do, did, does, be,
	been, being, get, got, were, was, think, hope, want, feel, know, love, like, see, are, will, shall, not,
	never, still, really, always, usually, often, probably, maybe, all, both, too, went, said, saw, made, had`)

// weChoice reads a choice the group makes against an alternative it
// names: "we're using the confocal, not the widefield scope", "we're
// ordering from Abcam rather than Sigma". The verb commits the group; the
// alternative makes it a choice rather than a task.
func weChoice(t *text) (found, bool) {
	m := weChoiceRe.FindTextSubmatchIndex(t)
	if m == nil {
		return found{}, false
	}
	verb := lower(t.s[m[2]:m[3]])
	if strings.HasSuffix(verb, "ing") {
		verb = ingBase(verb)
	}
	if auxiliaries[verb] || idleVerbs[verb] || strings.HasSuffix(verb, "ed") || stopwords[verb] && verb != "use" && verb != "go" {
		return found{}, false
	}
	rest := t.s[m[4]:m[5]]
	if n := notOtherRe.FindStringSubmatchIndex(rest); n != nil {
		obj, other := clauseAfter(rest[:n[0]]), clauseAfter(rest[n[2]:])
		if stripPrep(obj) != obj && stanceVerb(verb) {
			return found{}, false // "we care about design, not syntax"
		}
		if !concreteObject(stripPrep(obj)) || !concreteObject(stripPrep(other)) || len(words(other)) > 6 {
			return found{}, false
		}
		return found{typ: tenure.StateDecision, text: capitalize(verb + " " + obj + ", not " + other), conf: tenure.ConfidenceMedium}, true
	}
	if !alternativeRe.MatchString(rest) && !insteadRe.MatchString(rest) {
		return found{}, false
	}
	// "we're launching the guide a week later instead": the option set
	// aside may go unnamed.
	obj := clauseAfter(rest)
	if !concreteObject(obj) || !alternativeRe.MatchString(obj) && !insteadRe.MatchString(obj) {
		return found{}, false
	}
	return found{typ: tenure.StateDecision, text: capitalize(verb + " " + obj), conf: tenure.ConfidenceMedium}, true
}

// letsAltRe is a proposal, and insteadRe the word that sets an option
// aside at its end: "let's swap Pitlochry for Oban instead".
var (
	letsAltRe = mustPattern(`(?i)\blet'?s\s+([a-z]+)\s+(.+)`)
	insteadRe = mustPattern(`(?i)\binstead\s*[.!]?$`)
)

// letsInstead reads a proposal that sets an option aside as a choice,
// whatever its verb: "let's go to the botanical garden rather than the
// museum", "let's do Edinburgh and then Pitlochry, not the Isle of Skye",
// "let's swap Pitlochry for Oban instead".
func letsInstead(t *text) (found, bool) {
	m := letsAltRe.FindTextSubmatch(t)
	if m == nil {
		return found{}, false
	}
	verb := lower(m[1])
	if verb == "be" || verb == "see" || verb == "wait" || verb == "not" || auxiliaries[verb] && verb != "do" && verb != "have" {
		return found{}, false
	}
	obj := choiceObject(m[2])
	switch {
	case strings.Contains(obj, ", not "), alternativeRe.MatchString(obj):
	case insteadRe.MatchString(m[2]) && concreteObject(stripPrep(obj)):
	default:
		return found{}, false
	}
	if !concreteObject(stripPrep(obj)) {
		return found{}, false
	}
	return found{typ: tenure.StateDecision, text: capitalize(verb + " " + obj), conf: tenure.ConfidenceHigh}, true
}

// stripPrep drops the preposition an object of a choice may open with:
// "(we shoot) on the Alexa Mini, not (on) the RED".
func stripPrep(obj string) string {
	if p, rest, ok := strings.Cut(obj, " "); ok && (choicePreps[lower(p)] || tailPreps[lower(p)]) {
		return rest
	}
	return obj
}

// stanceVerb reports whether a verb says how one feels or thinks rather
// than what one does (WordNet's verb.emotion and verb.cognition).
func stanceVerb(v string) bool {
	c := wordnet.Class(v, wordnet.Verb)
	return c == "verb.emotion" || c == "verb.cognition"
}

// plannedRe is a plan said without a subject that acts: "laundry is
// going to be outsourced to Lavanda", "it's going to be fortnightly
// episodes".
var plannedRe = mustPattern(`(?i)^(?:(it)(?:'s|\s+is)\s+(?:going\s+to|gonna)\s+be|it(?:'ll|\s+will)\s+be|([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)\s+(?:is|are)\s+(?:going\s+to|gonna)\s+be|([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)\s+will\s+be)\s+(.+)`)

// plannedChoice reads a plan that names the option it sets aside: "it's
// going to be fortnightly episodes rather than weekly", "laundry is going
// to be outsourced to Lavanda, not done in-house". Without the
// alternative it is a forecast ("it's going to be hot").
func plannedChoice(t *text) (found, bool) {
	m := plannedRe.FindTextSubmatch(t)
	if m == nil {
		return found{}, false
	}
	subject, rest := m[2]+m[3], m[4]
	if subject != "" && (vagueSubjects[lastWord(subject)] || itIsNotChoice[firstWord(subject)]) {
		return found{}, false
	}
	if subject != "" && !passiveAfter("be "+rest) {
		return found{}, false // "the party will be fun, not boring"
	}
	obj := choiceObject(rest)
	if !strings.Contains(obj, ", not ") && !alternativeRe.MatchString(obj) {
		return found{}, false
	}
	if !concreteObject(obj) {
		return found{}, false
	}
	text := obj
	if subject != "" {
		text = subject + " " + obj
	}
	return found{typ: tenure.StateDecision, text: capitalize(text), conf: tenure.ConfidenceMedium}, true
}

// itIsNotChoice open what "X it is" does not choose: "I love how simple
// it is", "that's how it is".
var itIsNotChoice = map[string]bool{"i": true, "we": true, "you": true, "he": true, "she": true, "they": true,
	"it": true, "that": true, "that's": true, "this": true, "how": true, "what": true, "which": true, "who": true,
	"so": true, "there": true, "here": true, "such": true, "whatever": true, "however": true, "as": true,
	"no": true, "not": true, "i'm": true, "it's": true}

// decision recognises a settled choice. When the message also says what
// is no longer used, the text names it ("Switch to ECharts instead of
// Recharts"), so the item is understood without the message.
func decision(mc *messageContext, t *text) (found, bool) {
	f, ok := decisionOf(t)
	if !ok && alternativeRe.MatchText(t) {
		if c, _, isTask := commitment(t); isTask {
			f, ok = c, true
			f.typ, f.conf, f.owner = tenure.StateDecision, tenure.ConfidenceHigh, ""
		}
	}
	if !ok {
		f, ok = letsInstead(t)
	}
	if !ok {
		f, ok = weChoice(t)
	}
	if !ok {
		f, ok = plannedChoice(t)
	}
	if !ok {
		f, ok = replacing(t)
	}
	if !ok {
		f, ok = fragmentChoice(mc, t)
	}
	if !ok {
		if m := groupChoiceRe.FindTextSubmatch(t); m != nil && concreteObject(clauseAfter(m[2])) {
			// "The board approved the smaller catalogue over the full
			// one": a body that decides for the group.
			f, ok = found{typ: tenure.StateDecision, text: capitalize(clauseAfter(m[2])), conf: tenure.ConfidenceHigh}, true
		}
	}
	if !ok {
		if m := itsRe.FindTextSubmatch(t); m != nil && concreteObject(m[1]) && len(words(m[1])) <= 4 && isProperName(strings.Fields(m[1])[0]) &&
			thenItsRe.MatchString(mc.msg.Content) {
			// "Then it's Copperline, the extra €7k buys us faster
			// repairs": a conclusion that names what was weighed.
			f, ok = found{typ: tenure.StateDecision, text: capitalize(tidy(m[1])), conf: tenure.ConfidenceMedium}, true
		}
	}
	if !ok {
		if m := itIsRe.FindTextSubmatch(t); m != nil && hasContentWord(m[1]) && len(words(m[1])) <= 5 && !itIsNotChoice[firstWord(m[1])] {
			f, ok = found{typ: tenure.StateDecision, text: capitalize(tidy(m[1])), conf: tenure.ConfidenceMedium}, true
		}
	}
	if !ok {
		// A rule said as policy ("going forward, don't share passwords")
		// is a constraint, read after.
		if m := policyRe.FindTextSubmatch(t); m != nil && countContentWords(m[1], 3) >= 3 && !ruleLike(m[1]) {
			f, ok = found{typ: tenure.StateDecision, text: capitalize(clauseAfter(m[1])), conf: tenure.ConfidenceMedium}, true
		}
	}
	if !ok {
		if m := againstRe.FindTextSubmatch(t); m != nil && concreteObject(m[1]) && concreteObject(m[2]) {
			f, ok = found{typ: tenure.StateDecision, text: capitalize(clauseAfter(m[2])) + " instead of " + tidy(m[1]), conf: tenure.ConfidenceHigh}, true
		}
	}
	if !ok {
		f, ok = imperativeChoice(mc, t)
	}
	if !ok {
		f, ok = answerChoice(mc, t)
	}
	if !ok {
		f, ok = answerShould(mc)
	}
	if !ok {
		f, ok = answerWe(mc, t)
	}
	if !ok {
		return f, false
	}
	if m := noLongerRe.FindStringSubmatch(mc.msg.Content); m != nil && tenure.SupersessionTrigger(f.text) != "instead" &&
		!strings.Contains(lower(f.text), lower(m[1])) {
		f.text += " instead of " + m[1]
	}
	return f, true
}

// imperativeChoiceRe is a choice said as an instruction, its topic
// perhaps put first: "Use Stripe for payments", "For billing, use
// MongoDB".
var imperativeChoiceRe = mustPattern(`(?i)^(?:for\s+([^,]{2,40}),\s+)?(use|go\s+with|switch\s+to|stick\s+with|opt\s+for)\s+(\S.*)`)

// imperativeChoice reads an instruction to use a named option as a
// decision. The option must be a name ("use MongoDB", not "use a sharp
// knife"), and the instruction the user's or a participant's: an
// assistant that says "Use Flask-Login" recommends.
func imperativeChoice(mc *messageContext, t *text) (found, bool) {
	m := imperativeChoiceRe.FindTextSubmatch(t)
	if m == nil || mc.msg.Role == "assistant" || !isProperName(strings.Fields(m[3])[0]) {
		return found{}, false
	}
	obj := clauseAfter(m[3])
	if !concreteObject(obj) {
		return found{}, false
	}
	text := capitalize(strings.Join(strings.Fields(m[2]), " ") + " " + obj)
	if m[1] != "" {
		text += " for " + tidy(m[1])
	}
	return found{typ: tenure.StateDecision, text: text, conf: tenure.ConfidenceMedium}, true
}

// ruleLike reports whether s states a rule: an order not to, a binding
// modal, a "never".
func ruleLike(s string) bool {
	return dontRe.MatchString(s) || modalRe.MatchString(s) || neverRe.MatchString(s) || noRe.MatchString(s)
}

func decisionOf(t *text) (found, bool) {
	if m := replacedRe.FindTextSubmatch(t); m != nil {
		old, obj := clauseAfter(m[1]), clauseAfter(m[2])
		if concreteObject(old) && concreteObject(obj) {
			return found{typ: tenure.StateDecision, text: "Use " + obj + " instead of " + old, conf: tenure.ConfidenceHigh}, true
		}
	}
	if m := decisionLabelRe.FindTextSubmatch(t); m != nil {
		if f, ok := matchPhrases(decisionPhrases, newText(m[3])); ok {
			f.conf = tenure.ConfidenceHigh
			return f, true
		}
		rest := clauseAfter(subjectRe.ReplaceAllString(m[3], ""))
		if n := notOtherRe.FindStringSubmatch(m[3]); n != nil && rest != "" {
			// "7 to 3, not 8 to 4": the option set aside stays.
			rest += ", not " + clauseAfter(n[1])
		}
		if lower(m[1]) != "from" && lower(m[1]) != "of" && m[2] != "" {
			// "Final answer on the start time: 5:30": what it settles.
			rest = strings.TrimPrefix(strings.TrimPrefix(tidy(m[2]), "the "), "our ") + ": " + rest
		}
		if hasContentWord(rest) {
			return found{text: capitalize(rest), conf: tenure.ConfidenceHigh, typ: tenure.StateDecision}, true
		}
	}
	if f, ok := matchPhrases(decisionPhrases, t); ok {
		return f, true
	}
	if pastTimeRe.MatchText(t) {
		return found{}, false
	}
	return matchPhrases(bookedPhrases, t)
}

func matchPhrases(ps []verbPhrase, t *text) (found, bool) {
	for _, p := range ps {
		m := p.re.FindTextSubmatch(t)
		if m == nil {
			continue
		}
		verb, obj := p.verb(m), choiceObject(m[p.object])
		if to, ok := strings.CutPrefix(obj, "to "); ok && (verb == "switch" || verb == "migrate" || verb == "move") {
			// "we're switching to the annual plan"
			verb, obj = verb+" to", to
		}
		if from, to, ok := strings.Cut(strings.TrimPrefix(obj, "from "), " to "); ok && strings.HasPrefix(obj, "from ") &&
			(verb == "switch" || verb == "migrate" || verb == "move" || verb == "change") && concreteObject(to) && hasContentWord(from) &&
			!(verb == "move" && isProperName(strings.Fields(to)[0])) {
			// "move from monthly to annual billing"; moving to a place
			// ("from Leeds to Bristol") is a life event.
			return found{typ: tenure.StateDecision, text: capitalize(verb + " " + obj), conf: p.conf}, true
		}
		if prep, rest, ok := strings.Cut(obj, " "); ok && !concreteObject(obj) && choicePreps[lower(prep)] && concreteObject(rest) {
			// "decided to ask for a three-year term": the preposition is
			// the verb's.
			verb, obj = verb+" "+lower(prep), rest
		}
		if !concreteObject(obj) && !timedChoice(obj) {
			continue
		}
		return found{typ: tenure.StateDecision, text: capitalize(verb + " " + obj), conf: p.conf}, true
	}
	return found{}, false
}

// timedChoiceRe is an object that is only when: "on Saturday and
// Sunday", "at 7 pm".
var timedChoiceRe = mustPattern(`(?i)^(?:on|at|from|every|in|for)\s+\S`)

// timedChoice reports whether a chosen verb's object says only when,
// and names a date or a time: "decided to open on Saturday and Sunday"
// chooses the days.
func timedChoice(obj string) bool {
	return timedChoiceRe.MatchString(obj) && dateRe.MatchString(obj)
}

// choiceObject is the object of a chosen verb: its first clause, the
// value after a colon ("locked in the programme: the Rutter"), and the
// option set aside after a comma (", not the Britten").
func choiceObject(raw string) string {
	obj := clauseAfter(raw)
	rest := strings.TrimSpace(strings.TrimPrefix(raw, obj))
	if v, ok := strings.CutPrefix(rest, ": "); ok && obj != "" {
		if v = clauseAfter(v); hasContentWord(v) {
			obj += ": " + v
		}
	}
	if n := notOtherRe.FindStringSubmatch(raw); n != nil && obj != "" {
		if other := clauseAfter(n[1]); concreteObject(other) && len(words(other)) <= 6 {
			obj += ", not " + other
		}
	}
	return obj
}

// choicePreps are the prepositions a chosen verb may take before its
// object: "ask for", "apply to", "go with", "wait for".
var choicePreps = map[string]bool{"for": true, "with": true, "on": true, "into": true, "about": true}

// objectPronouns may stand before a direct object ("lend you my copy").
var objectPronouns = map[string]bool{"you": true, "me": true, "him": true, "her": true, "them": true, "us": true}

// vagueObjects are objects that name nothing to act on.
var vagueObjects = map[string]bool{"it": true, "that": true, "this": true, "them": true, "those": true,
	"these": true, "one": true, "some": true, "something": true, "anything": true, "everything": true,
	"what": true, "whatever": true, "so": true, "sure": true, "there": true, "here": true, "home": true,
	"soon": true, "later": true, "now": true, "too": true, "again": true, "away": true, "back": true,
	"ahead": true, "along": true, "from": true, "to": true, "at": true, "in": true, "on": true, "by": true,
	"for": true, "with": true, "around": true, "about": true, "over": true, "into": true, "through": true,
	"up": true, "out": true, "down": true, "off": true, "an": true, "you": true, "me": true, "us": true}

// timeWords open a time, not an object ("circle back next week").
var timeWords = map[string]bool{"next": true, "last": true, "this": true, "tomorrow": true, "today": true,
	"tonight": true, "yesterday": true, "every": true, "early": true, "late": true}

// vaguePhrases are idioms that look like objects ("take a look").
var vaguePhrases = []string{"a look", "a try", "a shot", "a stab", "a peek", "a break", "care", "my best",
	"a bit", "a while", "a minute", "a second", "the time", "my time", "a chance"}

// concreteObject reports whether obj names something: it does not start
// with a preposition, an adverb or a pronoun, is not an idiom, and holds a
// content word.
func concreteObject(obj string) bool {
	w := words(obj)
	for len(w) > 1 && objectPronouns[w[0]] {
		w = w[1:]
	}
	if len(w) == 0 || vagueObjects[w[0]] || timeWords[w[0]] || calendarWords[w[0]] {
		return false
	}
	rest := strings.Join(w, " ")
	for _, p := range vaguePhrases {
		if rest == p || strings.HasPrefix(rest, p+" ") {
			return false
		}
	}
	return hasContentWord(rest)
}
