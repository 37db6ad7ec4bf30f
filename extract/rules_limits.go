package extract

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// Risk patterns: a labelled risk ("Risk: ...", "One concern: ..."), "there
// is a risk that ...", a worried speaker, and a named thing that might
// break or fail.
var (
	riskLabelRe = mustPattern(`(?i)^(?:what\s+(?:worries|concerns|scares|bothers)\s+me(?:\s+most)?\s+is\s+(?:that\s+)?|(?:the\s+|one\s+|only\s+|main\s+|biggest\s+|big\s+|another\s+|other\s+|a\s+)+thing\s+that\s+(?:could|might|may|can|would|will)\s+[a-z]+(?:\s+(?:us|me|this|it|things|wrong|up))?\s*(?:is\s+(?:that\s+)?|:\s*|[-–]\s*)|(?:chances|odds)\s+are\s+(?:that\s+)?)(.+)|^(?:(?:the|one|a|my|our|main|big|bigger|biggest|real|key|other|greatest|only|another)\s+)*(?:risk|risks|concern|concerns|worry|caveat|danger|worst[- ]case(?:\s+scenario)?)\s*(?:is\s+(?:that\s+)?|here\s+is\s+(?:that\s+)?|:\s*|[-–]\s*|,\s*)(.+)`)
	riskThereRe = mustPattern(`(?i)\bthere(?:'s|\s+is)\s+(?:a\s+|some\s+|the\s+)?(?:real\s+|big\s+|small\s+|slight\s+|serious\s+|high\s+|good\s+|fair\s+|decent\s+|strong\s+)?(risk|danger|chance)\s+(?:that\s+|of\s+)?(.+)`)
	riskWorryRe = mustPattern(`(?i)(?:\bi(?:'m|\s+am)\s+|^)(?:a\s+bit\s+|a\s+little\s+|really\s+|quite\s+|slightly\s+|kind\s+of\s+|kinda\s+|also\s+|still\s+)?(?:worried|concerned|nervous|afraid)\s+(?:that\s+)?(.+)`)
	// riskModalRe needs the worry to be about something that may go wrong,
	// not about a person ("worried about my mom").
	riskModalRe = mustPattern(`(?i)(?:\b(?:won't|will\s+not|might|may|could|can't|cannot|isn't|aren't|wouldn't|not|will)\b|\w'll\b)`)
	riskFailRe  = mustPattern(`(?i)^(.+?)\s+(?:might|may|could|will\s+probably|would\s+probably|is\s+likely\s+to|are\s+likely\s+to)\s+(?:not\s+)?(?:break|fail|crash|slip|time\s+out|run\s+out|overflow|go\s+down|leak|regress|be\s+late|be\s+delayed|miss|not\s+be\s+ready|not\s+finish|blow\s+up|get\s+hit|take\s+(?:longer|too\s+long|much\s+longer|weeks|months)|run\s+(?:late|over)|fall\s+(?:behind|through)|(?:be|get)\s+(?:cancell?ed|postponed|stuck|blocked|locked\s+out|rejected|lost|corrupted)|stall|go\s+over\s+budget|expire|lose|break\s+down|spike|wreck|ruin|spread|flood|crack|collapse|overrun|derail|damage|sink|drag\s+on|add\s+(?:another\s+|an\s+extra\s+|\w+\s+)?(?:days?|weeks?|months?|hours?)|cost\s+(?:us\s+)?(?:more|extra|a\s+lot|a\s+fortune|twice)|not\s+be\s+(?:fixed|done|finished|delivered|approved|signed|repaired|available|open)|not\s+(?:arrive|turn\s+up|show\s+up|make\s+it|come\s+through|get\s+(?:there|back)\s+in\s+time))\b`)
)

// nameApposRe is a noun phrase with a name set off by commas after it,
// and the rest of its clause: "our largest customer, Fiação Norte, might
// churn".
var nameApposRe = mustPattern(`^((?:the|our|their|my|your)\s+[^,]{2,40}),\s+([A-Z][^,]{1,40}),\s+(.+)$`)

// leadSubjectRe is a clause that opens with a concrete subject: "the damp
// patch above the window is getting bigger, ".
var leadSubjectRe = mustPattern(`(?i)^((?:the|our|my|their|this|that)\s+[a-z][\p{L}'-]*(?:\s+[\p{L}'-]+){0,5}?)\s+(?:is|are|was|were|has|have|keeps|'s)\b[^,;]*[,;]\s*$`)

// itWillRe is a pronoun's contracted future: "it'll", "they'll".
var itWillRe = mustPattern(`(?i)^(?:it|they)(?:'ll|\s+will)\s+|^(?:it|they)\s+`)

// leadSubject is the subject of the clause a sentence opens with, when
// that clause ends where s does.
func leadSubject(s string) string {
	if m := leadSubjectRe.FindStringSubmatch(s); m != nil && concreteObject(m[1]) {
		return m[1]
	}
	return ""
}

// explainedWorries joins a worry named by a noun phrase alone to the
// condition that explains it in the next sentence, whose "it" or "they"
// stands for it: "My worry is the finds store. If it floods we lose the
// archive." is one risk, "If the finds store floods we lose the archive".
func explainedWorries(ss []sentence) []sentence {
	for i := 0; i+1 < len(ss); i++ {
		np := namedWorry(ss[i])
		if np == "" || ss[i+1].question {
			continue
		}
		if m := ifPronounRe.FindStringSubmatchIndex(ss[i+1].text); m != nil {
			ss[i+1].text = ss[i+1].text[:m[2]] + np + ss[i+1].text[m[3]:]
			ss = slices.Delete(ss, i, i+1)
		}
	}
	return ss
}

// ifPronounRe is a condition said of "it" or "they".
var ifPronounRe = mustPattern(`(?i)^if\s+(it|they)\s`)

// namedWorry is the noun phrase a sentence names as a worry and says
// nothing more of ("My worry is the finds store"), its determiner in
// lower case, or "".
func namedWorry(s sentence) string {
	if s.question {
		return ""
	}
	m := riskLabelRe.FindStringSubmatch(discourseRe.ReplaceAllString(s.text, ""))
	if m == nil {
		return ""
	}
	np := tidy(m[1] + m[2])
	w := strings.Fields(np)
	if len(w) < 2 || len(w) > 4 || !determiners[lower(w[0])] || clauseAfter(np) != np || !wordnet.Known(lastWord(np), wordnet.Noun) {
		return ""
	}
	return lower(w[0]) + np[len(w[0]):]
}

// determiners open a noun phrase.
var determiners = set(`the, our, my, their, your, this, that, these, those`)

// Conditions with a harm: "if the printer misses Friday, the mailing goes
// out late and we lose a week of donations".
var (
	conditionalRe = mustPattern(`(?i)^if\s+(.{3,80}?),\s+(.+)$`)
	harmRe        = mustPattern(`(?i)\b(?:(?:'d|would|'ll|will)\s+have\s+to|lose|loses|lost|miss|misses|late|delay|delayed|cancel|cancell?ed|fail|fails|break|breaks|stuck|short|run\s+out|over\s+budget|won't|can't|cannot|no\s+longer|slip|slips|too\s+late|behind|` + lackRe + `)\b`)
	// lackRe is the means to act gone: "we'll have no way to launch",
	// "we'd have nowhere to store the boats".
	lackRe = `have\s+(?:no\s+[a-z]+|nowhere|nothing|nobody|no\s+one)\s+to`
)

// conditionalRisk reads a condition whose consequence is a harm as a
// risk. A condition about the listener ("if you need anything") is an
// offer, not a risk.
func conditionalRisk(tx *text) (found, bool) {
	m := conditionalRe.FindTextSubmatch(tx)
	if m == nil {
		// "If it rains we'll be stuck in the hall": without a comma, the
		// consequence opens with its subject and a modal.
		m = conditionalBareRe.FindTextSubmatch(tx)
	}
	if m == nil || !harmRe.MatchString(m[2]) && !riskFailRe.MatchString("it "+m[2]) || vagueCondition(m[1]) || firstWord(m[2]) == "you" ||
		countContentWords(m[0], 4) < 4 {
		return found{}, false
	}
	return found{typ: tenure.StateRisk, text: capitalize(tidy(m[0])), conf: tenure.ConfidenceMedium}, true
}

// conditionalBareRe is a condition and its consequence with no comma
// between them: the consequence opens with a subject and a modal, or with
// a subject and a harm in the present ("if the batteries die mid-search
// we lose contact", "if the mounts crack again the whole refit slips").
var conditionalBareRe = mustPattern(`(?i)^if\s+(.{3,80}?)\s+((?:we|they|it|(?:the|our|their)\s+[a-z][a-z-]*)(?:'ll|'d|\s+will|\s+would|\s+could|\s+might|\s+may|\s+won't|\s+can't)\s+.+|` +
	`(?:we|they|it|(?:the|our|their)(?:\s+[a-z][a-z-]*){1,3}?)\s+(?:lose|loses|miss|misses|fail|fails|break|breaks|slip|slips|run\s+out|runs\s+out|stop|stops|stall|stalls|collapse|collapses)\b.*)$`)

// vagueCondition reports whether a condition's subject says nothing of
// what is at stake ("if you need anything", "if I lived closer"). "It"
// and "they" may ("if it rains", "if they refuse"): the harm that
// follows says what is at stake.
func vagueCondition(c string) bool {
	w := firstWord(c)
	return vagueSubjects[w] && w != "it" && w != "they"
}

// vagueSubjects are subjects that do not say what is at risk or bound;
// "I might break my phone" is a mood, not a project risk.
var vagueSubjects = map[string]bool{"i": true, "you": true, "it": true, "this": true, "that": true,
	"he": true, "she": true, "they": true, "there": true, "which": true, "what": true}

func risk(_ *messageContext, tx *text) (found, bool) {
	t := tx.s
	f := found{typ: tenure.StateRisk, conf: tenure.ConfidenceHigh}
	switch {
	case riskLabelRe.MatchText(tx):
		m := riskLabelRe.FindStringSubmatch(t)
		rest := m[1] + m[2]
		f.text = clauseAfter(rest)
		if a := nameApposRe.FindStringSubmatch(rest); a != nil && properNames(a[2]) {
			// "The biggest risk is that our largest customer, Fiação
			// Norte, might churn": a name set off by commas belongs to
			// the clause around it.
			f.text = tidy(a[1]) + ", " + a[2] + ", " + clauseAfter(a[3])
		}
		if after := strings.TrimPrefix(strings.TrimPrefix(rest, f.text), ","); len(words(f.text)) <= 3 && after != rest {
			// "What worries me is the basses, we've only got three": the
			// clause after a short noun phrase says what the worry is.
			if c := clauseAfter(after); hasContentWord(c) {
				f.text += ", " + c
			}
		}
	case riskThereRe.MatchText(tx):
		// "There's a chance the cutover breaks email": the text keeps the
		// word that makes it a risk rather than a report.
		m := riskThereRe.FindStringSubmatch(t)
		rest := clauseAfter(m[2])
		if lower(m[1]) == "chance" {
			// "a chance of rain" is a forecast; a chance that something
			// happens, stated as a clause, is a risk.
			if len(strings.Fields(rest)) < 4 {
				return found{}, false
			}
			f.conf = tenure.ConfidenceMedium
		}
		f.text = lower(m[1]) + " that " + strings.TrimPrefix(rest, "that ")
	case riskWorryRe.MatchText(tx):
		loc := riskWorryRe.FindStringSubmatchIndex(t)
		rest := t[loc[2]:loc[3]]
		if np := leadSubject(t[:loc[0]]); np != "" && itWillRe.MatchString(rest) {
			// "The damp patch is getting bigger, I'm worried it'll
			// spread": what "it" stands for is what the sentence opened
			// with.
			rest = np + " " + itWillRe.ReplaceAllString(rest, "will ")
		}
		if w := firstWord(rest); w == "about" || vagueSubjects[w] || !riskModalRe.MatchString(rest) {
			return found{}, false
		}
		f.text, f.conf = clauseAfter(rest), tenure.ConfidenceMedium
		if after := strings.TrimPrefix(strings.TrimPrefix(rest, f.text), ","); countContentWords(f.text, 3) < 3 && after != rest {
			// "I'm worried it'll rain, the barn has no covered outdoor
			// area": a short worry is explained by the clause after it.
			if c := clauseAfter(after); countContentWords(c, 2) >= 2 {
				f.text += ", " + c
			}
		}
	case riskFailRe.MatchText(tx):
		m := riskFailRe.FindStringSubmatchIndex(t)
		if lastWord(t[:m[3]]) == "which" && strings.HasSuffix(strings.TrimSuffix(t[:m[3]], "which"), ", ") {
			// "The ferry sometimes gets cancelled in bad weather, which
			// could wreck our Oban days": what "which" stands for is the
			// clause before, and the harm is said of it.
			f.text, f.conf = tidy(t), tenure.ConfidenceMedium
			break
		}
		if vagueSubjects[lastWord(t[:m[3]])] {
			return found{}, false
		}
		f.text, f.conf = clauseAround(t, m[0], m[1]), tenure.ConfidenceMedium
	default:
		return found{}, false
	}
	if countContentWords(f.text, 2) < 2 {
		return found{}, false
	}
	f.text = capitalize(f.text)
	return f, true
}

// Constraint patterns.
var (
	// limitRe is a bound on a number: "at most 300 ms", "under $500",
	// "can't exceed 2 vCPUs".
	limitRe = mustPattern(`(?i)\b(at\s+most|at\s+least|no\s+more\s+than|not\s+more\s+than|no\s+less\s+than|fewer\s+than|less\s+than|up\s+to|a\s+maximum\s+of|maximum\s+of|max(?:imum)?|min(?:imum)?|(?:a\s+)?hard\s+limit\s+of|limit(?:ed)?\s+(?:of|to|at)|can(?:'t|not|\s+not)\s+(?:be|cost|go|run|take)\s+(?:more|longer|over|above)(?:\s+than)?|(?:must|should|may)(?:n't|\s+not)\s+(?:be|cost|go|run|take)\s+(?:more|longer|over|above)(?:\s+than)?|cap(?:s|ped)?\s+(?:\w+\s+)?(?:at|to)|can(?:'t|not|\s+not)\s+exceed|(?:must|should|may|will)\s+not\s+exceed|never\s+exceed|(?:do|does)(?:n't|\s+not)\s+exceed|within|under|below)\s+(?:a\s+|an\s+|the\s+)?[$€£¥]?\s?\d`)
	// weakLimits are bounds that also occur in plain description ("we had
	// at least 50 people"); they need a modal to be a constraint.
	weakLimits = mustPattern(`(?i)^(?:at\s+least|no\s+less\s+than|fewer\s+than|less\s+than|up\s+to|min(?:imum)?|within|under|below)$`)
	datePart   = `(?:the\s+)?(?:\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|noon\b|midnight\b|end\s+of\s+(?:the\s+)?(?:day|week|month|quarter|sprint|year)|eod|eow|tomorrow|tonight|today|(?:next|this)\s+(?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|monday|tuesday|wednesday|thursday|friday|saturday|sunday|q[1-4]\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d{1,2}(?:st|nd|rd|th)?\b|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}|the\s+\d{1,2}(?:st|nd|rd|th)\b)`
	// dueRe is a deadline: "by Friday", "before 1 June", "no later than Q3".
	dueRe = mustPattern(`(?i)\b(?:by|before|until|till|no\s+later\s+than|due(?:\s+(?:by|on|before))?)\s+` + datePart)
	// dateRe is a date anywhere, for sentences about a deadline.
	dateRe = mustPattern(`(?i)\b` + datePart)
	// deadlineRe names a date that binds: a deadline, a freeze, an expiry.
	deadlineRe = mustPattern(`(?i)\b(?:deadline|frozen|freeze|expires|expiry|expiring)\b`)
	budgetRe   = mustPattern(`(?i)\bbudget\b(?:\s+\w+){0,4}?\s+(?:is|of|at)\s+(?:about\s+|around\s+)?[$€£¥]?\s?\d`)
	modalRe    = mustPattern(`(?i)\b(must(?:n't|\s+not|\s+never)?|has\s+to|have\s+to|needs?\s+to\s+be|shall(?:\s+not)?|should\s+never|(?:is|are|'re|'s)(?:n't|\s+not)\s+(?:allowed|permitted|invited|welcome)(?:\s+to)?|not\s+(?:allowed|permitted)\s+to|(?:is|are|'re|'s)\s+(?:strictly\s+|absolutely\s+|completely\s+|totally\s+)?(?:prohibited|forbidden|banned|mandatory|compulsory|required)|(?:is|are|'re)\s+only\s+(?:allowed|permitted)|(?:is|are|'re|'s)\s+required\s+to|can(?:'t|not|\s+not)|may\s+not|can\s+only|may\s+only|(?:is|are|'re|'s)\s+not\s+to\s+be|(?:isn't|aren't)\s+to\s+be|(?:won't|will\s+not)\s+be\s+(?:allowed|permitted|accepted|tolerated)|(?:is|are|'re|'s|am|'m)(?:n't|\s+not)\s+supposed\s+to)\b`)
	// strongModalRe are the modals that bind without a number or date.
	strongModalRe = mustPattern(`(?i)^(?:must(?:n't|\s+not|\s+never)?|shall(?:\s+not)?|should\s+never|not\s+(?:allowed|permitted)\s+to|(?:is|are|'re|'s)(?:n't|\s+not)\s+(?:allowed|permitted|invited|welcome)(?:\s+to)?|(?:is|are|'re|'s)\s+(?:strictly\s+|absolutely\s+|completely\s+|totally\s+)?(?:prohibited|forbidden|banned|mandatory|compulsory|required)|(?:is|are|'re)\s+only\s+(?:allowed|permitted)|(?:is|are|'re|'s)\s+required\s+to|can\s+only|may\s+only|(?:is|are|'re|'s)\s+not\s+to\s+be|(?:isn't|aren't)\s+to\s+be|(?:won't|will\s+not)\s+be\s+(?:allowed|permitted|accepted|tolerated)|(?:is|are|'re|'s|am|'m)(?:n't|\s+not)\s+supposed\s+to)$`)
	// mustBeRe is a requirement on a thing: "has to be step-free",
	// "needs to be signed".
	mustBeRe = mustPattern(`(?i)^(?:has|have|needs?)\s+to\s+be\s+[a-z]`)
	// cannotRe is a prohibition: "we cannot store raw IP addresses". It
	// binds when someone other than the speaker or the listener cannot do
	// something a rule can forbid (not "we can't wait").
	cannotRe = mustPattern(`(?i)^(?:can(?:'t|not|\s+not)|may\s+not)$`)
	// dontRe is a prohibition said as an order: "don't share passwords in
	// tickets", "do not email customers".
	dontRe = mustPattern(`(?i)(?:^|,\s+|;\s+)(?:(?:please|pls|plz)\s+)?(?:don't|do\s+not)\s+(?:ever\s+)?([a-z]+)\s+\S`)
	// noRe is a prohibition said as "no X during Y": "no laptops during
	// the session", "no deploys on Fridays".
	noRe = mustPattern(`(?i)(?:^|,\s+)no\s+([a-z][a-z-]*)(?:\s+[a-z][a-z-]*)?\s+(?:(?:during|on|after|before|at|in|inside|near|without|past|until|while)\s+\S|for\s+(?:(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a\s+few|the\s+first|the\s+next)\s+)?(?:days?|weeks?|months?|hours?|minutes?|years?)\b)`)
	// avoidRe is an order to keep away from something: "avoid scheduling
	// anything after 6 pm".
	avoidRe = mustPattern(`(?i)(?:^|,\s+)(?:please\s+)?(?:avoid|refrain\s+from)\s+\S`)
	// neverHabitRe is a standing rule said of a group or oneself: "we
	// never share attendee lists".
	neverHabitRe = mustPattern(`(?i)\b(?:we|i|they)\s+(?:always\s+)?never\s+([a-z]+)\s+\S`)
	// capacityRe is a limit something holds: "the package includes up to
	// 40 guests".
	capacityRe = mustPattern(`(?i)\b(?:includes?|allows?|supports?|covers?|holds?|fits?|seats?|comes\s+with|gets?)\s+(?:up\s+to|at\s+most|a\s+maximum\s+of|no\s+more\s+than)\s+[$€£¥]?\d`)
	// needDoneRe is a deadline said as a need: "we need this fixed by 2
	// pm".
	needDoneRe = mustPattern(`(?i)\b(?:we|they|i)\s+need\s+(?:this|it|that|the\s+[a-z]+(?:\s+[a-z]+)?)\s+(?:done|fixed|ready|finished|working|live|sorted|resolved|shipped|deployed|signed|approved|back\s+up)\b`)
	// epistemicRe is "must" as a guess: "we must have watched it ten
	// times", "you must be tired".
	epistemicRe = mustPattern(`(?i)\bmust(?:'ve|\s+have)\b|\bmust\s+be\s+(?:so|really|very|such|a|an|the|nice|fun|hard|tough|great|amazing|lovely|awesome|cool|crazy|scary|tired|exhausted|exhausting|bored|worried|excited|stressed|joking|kidding|broken|down|wrong|gone|lost|stuck|busy|dead|\w+ing)\b|\bmust\b.*\bagain\b`)
	neverRe     = mustPattern(`(?i)(?:^|\band\s+)(?:(?:please|pls)\s+)?(?:never|don't\s+ever|do\s+not\s+ever)\s+([a-z]+(?:-[a-z]+)?)\s+\S`)
	// noOneRe is a prohibition on everyone: "under no circumstances should
	// anyone restart the gateway", "no one may deploy on Fridays".
	noOneRe = mustPattern(`(?i)^under\s+no\s+circumstances\b|\b(?:no\s+one|nobody|no-one)\s+(?:should|may|can|must|is\s+allowed|is\s+permitted|gets\s+to)\s+[a-z]|^nothing\s+(?:gets|is|may\s+be|can\s+be|should\s+be|must\s+be)\s+[a-z]+(?:ed|en)\b`)
	// restrictedRe is access or use limited to someone or something:
	// "production access is limited to the on-call engineer".
	restrictedRe = mustPattern(`(?i)\b(?:is|are)\s+(?:limited|restricted|reserved)\s+(?:to|for)\s+(?:the\s+|our\s+)?[a-z]`)
	// requiresRe is what a named thing requires: "the landlord needs four
	// weeks' notice", "the venue requires a deposit".
	requiresRe = mustPattern(`(?i)^(?:the|our|their|this|that)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:needs|requires)\s+(?:a|an|at\s+least|\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b`)
	// disallowRe is a rule stated as what something does not allow: "the
	// venue doesn't allow open flames".
	disallowRe = mustPattern(`(?i)\b(?:doesn't|does\s+not|don't|do\s+not|won't|will\s+not)\s+(?:allow|permit|accept|tolerate)\s+(?:any\s+)?[a-z]`)
)

// unruledVerbs are what "can't" says someone is unable to do, not
// forbidden to: "we can't wait", "we can't log in".
var unruledVerbs = map[string]bool{"wait": true, "believe": true, "find": true, "remember": true, "imagine": true,
	"tell": true, "see": true, "hear": true, "get": true, "help": true, "thank": true, "complain": true, "say": true,
	"understand": true, "figure": true, "decide": true, "make": true, "reproduce": true, "log": true, "login": true,
	"access": true, "connect": true, "load": true, "reach": true, "afford": true, "stand": true, "sleep": true,
	"focus": true, "think": true, "stop": true, "seem": true, "work": true, "do": true, "be": true,
	"miss": true, "agree": true, "read": true, "open": true, "sign": true, "install": true, "update": true}

// noThings are what "no" opens without forbidding anything: "no worries",
// "no idea".
// noSubjectRe is a negated subject with a passive or a modal: "no
// alcohol is to be served", "no pets are allowed", "no visitors may stay".
// The second submatch is the modal, when one governs the verb (the third).
var noSubjectRe = mustPattern(`(?i)^no\s+([a-z][a-z-]*)(?:\s+[a-z][a-z-]*){0,2}?\s+(?:(?:is|are)\s+(?:to\s+be\s+)?|(?:is|are)\s+to\s+|(may|can|shall|should|must|will)\s+(?:be\s+)?)([a-z]+)\b`)

// permitWords say what a rule allows.
var permitWords = set(`allowed, permitted, welcome, tolerated, accepted`)

var noThings = map[string]bool{"worries": true, "worry": true, "idea": true, "problem": true, "problems": true,
	"way": true, "one": true, "clue": true, "rush": true, "pressure": true, "need": true, "longer": true,
	"more": true, "thanks": true, "doubt": true, "matter": true, "kidding": true}

// pastVerbs are verbs in the past tense that "never" reports rather than
// rules ("we never knew").
var pastVerbs = map[string]bool{"knew": true, "thought": true, "saw": true, "went": true, "had": true, "got": true,
	"did": true, "made": true, "said": true, "told": true, "took": true, "came": true, "found": true, "heard": true,
	"met": true, "left": true, "ate": true, "been": true, "seen": true, "gave": true, "felt": true, "meant": true}

// unruledOrders are what "don't" tells someone not to feel or forget, not
// a rule: "don't worry", "don't forget to ...".
var unruledOrders = map[string]bool{"worry": true, "forget": true, "mind": true, "bother": true, "hesitate": true,
	"know": true, "think": true, "get": true, "miss": true, "be": true, "care": true, "wait": true, "panic": true,
	"stress": true, "rush": true, "feel": true, "judge": true, "laugh": true, "tell": true, "remind": true,
	"want": true, "need": true, "like": true, "have": true, "see": true, "say": true, "believe": true,
	"let": true, "stop": true, "lose": true, "give": true, "quit": true, "doubt": true, "change": true,
	"take": true, "settle": true, "hold": true, "underestimate": true, "regret": true,
	"fail": true, "cease": true, "back": true}

// unruledSubjects are subjects whose "can't" is no rule: "people who can't
// have lactose", "others can't".
var unruledSubjects = map[string]bool{"who": true, "others": true, "nobody": true, "everyone": true,
	"everybody": true, "someone": true, "somebody": true, "one": true}

// passiveAfter reports whether s opens with a passive ("be refunded",
// "be shared"): "annual plans can't be refunded" forbids, where "we can't
// be late" does not.
func passiveAfter(s string) bool {
	w := words(s)
	return len(w) > 1 && w[0] == "be" && (strings.HasSuffix(w[1], "ed") || strings.HasSuffix(w[1], "en")) && !pastVerbs[w[1]]
}

// constraint recognises a rule the work must keep: a modal with a bound or
// deadline, a binding modal ("must", "should never", "cannot store") with a
// named subject, an order not to ("don't share"), a numeric bound, a
// budget or a deadline.
func (r *Rules) constraint(mc *messageContext, tx *text) (found, bool) {
	t := tx.s
	high := func(start, end int) (found, bool) { return ruleAround(t, start, end, 2, tenure.ConfidenceHigh) }
	lim := limitRe.FindTextSubmatchIndex(tx)
	due := dueRe.FindTextIndex(tx)
	if m := modalRe.FindTextSubmatchIndex(tx); m != nil && !epistemicRe.MatchText(tx) {
		subject := t[:m[0]]
		if k := strings.LastIndex(subject, ", "); k >= 0 {
			subject = subject[k+2:]
		}
		sw := lastWord(subject)
		switch {
		case sw == "i" || sw == "":
		case personsDuty(subject, t[m[2]:m[3]]):
			// "Hugh has to return the signed lease by Friday" is Hugh's
			// task, read as an action.
			// "I have to ..." is the speaker's task, not a rule; a modal
			// with no subject is a fragment.
		case lim != nil:
			return high(m[0], max(m[1], lim[1]))
		case classDuty(subject, t[m[2]:m[3]], t[m[1]:]):
			// "Guests have to sign the release form before we record":
			// a duty of a class of people, within a scope, is a rule.
			return high(m[0], len(t))
		case due != nil:
			return high(m[0], max(m[1], due[1]))
		case strongModalRe.MatchString(t[m[2]:m[3]]) && (sw == "you" || !vagueSubjects[sw]):
			return high(m[0], m[1])
		case mustBeRe.MatchString(t[m[0]:]) && thingSubject(subject):
			// "The Edinburgh flat has to be step-free": what a thing
			// must be is a requirement.
			return high(m[0], len(t))
		case cannotRe.MatchString(t[m[2]:m[3]]) && sw == "you" && youCannot(t[m[1]:]):
			// "You can't drill into the tiled walls": what anyone
			// addressed may not do to a thing.
			return high(m[0], m[1])
		case cannotRe.MatchString(t[m[2]:m[3]]) && sw != "you" && !vagueSubjects[sw] && !unruledSubjects[sw] &&
			!strings.HasSuffix(sw, "ly") && firstWord(t[m[1]:]) != "" &&
			(!unruledVerbs[firstWord(t[m[1]:])] || passiveAfter(t[m[1]:])):
			return high(m[0], m[1])
		}
		// "I can't do calls after 5 pm": what the speaker cannot do at a
		// time binds their plans.
		if v := firstWord(t[m[1]:]); sw == "i" && cannotRe.MatchString(t[m[2]:m[3]]) && v != "" && (v == "do" || !unruledVerbs[v]) &&
			dateRe.MatchText(tx) {
			if loc := dateRe.FindTextIndex(tx); loc != nil {
				return high(m[0], max(m[1], loc[1]))
			}
		}
	}
	if f, ok := availabilityRule(mc, t); ok {
		return f, true
	}
	if f, ok := secretRule(mc, t); ok {
		return f, true
	}
	if m := dontRe.FindTextSubmatchIndex(tx); m != nil && !unruledOrders[lower(t[m[2]:m[3]])] {
		return high(m[0], m[1])
	}
	if m := noRe.FindTextSubmatchIndex(tx); m != nil && !noThings[lower(t[m[2]:m[3]])] {
		return high(m[0], m[1])
	}
	if m := noSubjectRe.FindTextSubmatchIndex(tx); m != nil && !noThings[lower(t[m[2]:m[3]])] {
		if v := lower(t[m[6]:m[7]]); permitWords[v] || strings.HasSuffix(v, "ed") || strings.HasSuffix(v, "en") ||
			m[4] >= 0 && !strings.HasSuffix(v, "ing") && !stopwords[v] {
			// "No alcohol is to be served before 5pm", "no visitors may
			// stay overnight": a rule of a negated subject.
			return high(m[0], len(t))
		}
	}
	if m := avoidRe.FindTextIndex(tx); m != nil {
		return high(m[0], m[1])
	}
	if f, ok := negatedRule(tx); ok {
		return f, true
	}
	if m := neverHabitRe.FindTextSubmatchIndex(tx); m != nil {
		if v := lower(t[m[2]:m[3]]); !pastVerbs[v] && (!unruledVerbs[v] || concreteObject(clauseAfter(t[m[3]:])) && ruledVerb(v)) && !unruledOrders[v] && !strings.HasSuffix(v, "ed") {
			return high(m[0], m[1])
		}
	}
	if m := capacityRe.FindTextIndex(tx); m != nil {
		return high(m[0], m[1])
	}
	if m := needDoneRe.FindTextIndex(tx); m != nil && due != nil {
		return high(m[0], max(m[1], due[1]))
	}
	if lim != nil && !weakLimits.MatchString(t[lim[2]:lim[3]]) {
		return high(lim[0], lim[1])
	}
	if m := budgetRe.FindTextIndex(tx); m != nil {
		return high(m[0], m[1])
	}
	if m := deadlineRe.FindTextIndex(tx); m != nil && !pronounObjects[lastWord(lower(t[:m[0]]))] && (dateRe.MatchText(tx) || len(r.resolve(t, mc.msg.CreatedAt)) > 0) {
		// (What "it expires in July" is about was said before it: the
		// clause is context, not a rule of its own.)
		return high(m[0], m[1])
	}
	if m := neverRe.FindTextSubmatchIndex(tx); m != nil && !strings.EqualFold(t[m[2]:m[3]], "mind") {
		if k := strings.Index(lower(t[m[0]:m[1]]), "and "); k == 0 {
			// "Keep it in a vault and never commit it to git": the
			// order not to is the rule, read from where it starts.
			return ruleAround(t[m[0]+4:], 0, m[1]-m[0]-4, 2, tenure.ConfidenceHigh)
		}
		return high(m[0], m[1])
	}
	if m := noOneRe.FindTextIndex(tx); m != nil {
		return high(m[0], m[1])
	}
	if m := restrictedRe.FindTextIndex(tx); m != nil {
		if sw := lastWord(t[:m[0]]); sw != "" && sw != "i" && !vagueSubjects[sw] {
			return high(m[0], m[1])
		}
	}
	if m := requiresRe.FindTextIndex(tx); m != nil {
		return high(m[0], m[1])
	}
	if m := disallowRe.FindTextIndex(tx); m != nil {
		if sw := lastWord(t[:m[0]]); sw != "" && sw != "i" && !vagueSubjects[sw] {
			return high(m[0], m[1])
		}
	}
	return found{}, false
}

// dutyRe is an obligation whose verb agrees with one person: "has to",
// "needs to". "Visitors must sign in" binds a class; "Hugh has to sign"
// gives Hugh a task.
var dutyRe = mustPattern(`(?i)^(?:has\s+to|needs?\s+to\s+be)$`)

// personsDuty reports whether a modal is a named person's obligation: a
// task rather than a rule.
func personsDuty(subject, modal string) bool {
	subject = strings.TrimSpace(subject)
	return dutyRe.MatchString(modal) && properNames(subject) && !isOrgName(subject) && len(strings.Fields(subject)) <= 3
}

// haveToRe is an obligation that binds a person or a rule alike.
var haveToRe = mustPattern(`(?i)^(?:has\s+to|have\s+to)$`)

// classDuty reports whether a "have to" binds a class ("guests", "all
// drivers") within a scope ("before we record"), which makes it a rule
// rather than someone's task.
func classDuty(subject, modal, rest string) bool {
	w := words(subject)
	if !haveToRe.MatchString(modal) || len(w) == 0 || len(w) > 4 || !scopeRe.MatchString(rest) {
		return false
	}
	head := w[len(w)-1]
	return len(head) > 3 && strings.HasSuffix(head, "s") && !strings.HasSuffix(head, "ss") && !vagueSubjects[head] &&
		!unruledSubjects[head] && !isProperName(lastWord(subject)) && !relationWords[strings.TrimSuffix(head, "s")]
}

// Rules said by negating the subject or the verb rather than with a
// modal: "controlled drugs never leave the cabinet unsigned", "nobody
// takes the X-ray room without telling Emeka", "a new unit is off the
// table until the autumn".
var (
	// neverThingRe is "never" after a subject that is a thing or a class
	// ("controlled drugs"), not a person or a pronoun.
	neverThingRe = mustPattern(`(?i)^((?:(?:the|our|all|any|every|each)\s+)?[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)\s+(?:(?:must|should|can|may|will)\s+)?never\s+([a-z]+)\b`)
	// nobodyRe is a negative subject with a verb in the present: "nobody
	// takes", "nothing gets".
	nobodyRe = mustPattern(`(?i)(?:^|,\s+|\band\s+|\b(?:make\s+sure|ensure)\s+(?:that\s+)?)(?:nobody|no\s+one|no-one|nothing|none\s+of\s+(?:us|you|them|the\s+[a-z]+))\s+([a-z]+)\b(.*)`)
	// scopeRe is the scope of a rule: when, where or on what condition it
	// holds.
	scopeRe = mustPattern(`(?i)\b(?:without|before|after|until|till|unless|while|during|outside|inside|past|beyond|into|from|in\s+the|on\s+the|at\s+the|near\s+the)\b`)
	// insistsRe is a demand that a clause hold: "insists that", "requires
	// that".
	insistsRe  = mustPattern(`(?i)\b(?:insists?|insisted|requires?|required|demands?|stipulates?)\s+that\s+`)
	negationRe = mustPattern(`(?i)\b(?:never|not|no|nobody|nothing)\b|n't\b`)
	// thereToBeNoRe is "there's to be no food past the foyer".
	thereToBeNoRe = mustPattern(`(?i)\bthere(?:'s|\s+is|\s+are)\s+to\s+be\s+no\s+`)
	// noPolicyRe is a rule named as a policy: "a strict no-food policy".
	noPolicyRe = mustPattern(`(?i)\bno-([a-z]+(?:-[a-z]+)*)\s+(?:policy|rule|zone)\b`)
	// staysRe is a state kept within a scope: "the freezer stays locked
	// outside working hours".
	staysRe = mustPattern(`(?i)\b(?:stays?|remains?|must\s+stay|must\s+remain|has\s+to\s+stay|needs\s+to\s+stay)\s+(?:locked|closed|shut|off|empty|clear|unplugged|switched\s+off|turned\s+off|muted|private|confidential|internal|offline)\b`)
	// onlyRe restricts who or what may: "only the account lead can send
	// files".
	onlyRe = mustPattern(`(?i)^only\s+(?:the\s+|our\s+|their\s+)?[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?\s+(?:can|may|should|are\s+allowed\s+to|is\s+allowed\s+to|get\s+to|gets\s+to)\s+[a-z]`)
	// againstRulesRe is something against a rule: "using client fonts
	// without a licence is against our policy".
	againstRulesRe = mustPattern(`(?i)\b(?:is|are|'s|'re)\s+against\s+(?:the\s+|our\s+|company\s+|house\s+|their\s+)?(?:rules|policy|law|regulations|code\s+of\s+conduct)\b`)
	// shouldNotRe is advice against, a rule when it is said of a class or
	// a thing ("kitchen staff shouldn't wear rings"), not of a person.
	shouldNotRe = mustPattern(`(?i)\b(?:shouldn't|should\s+not)\s+[a-z]`)
	// offLimitsRe is a predicate that rules something out.
	offLimitsRe = mustPattern(`(?i)\b(?:is|are|'s|'re|stays?|remains?)\s+(?:strictly\s+|completely\s+)?(?:off[-\s]limits|off\s+the\s+(?:table|menu)|out\s+of\s+bounds|out\s+of\s+the\s+question|not\s+an\s+option|a\s+no[-\s]go|a\s+(?:hard|firm|flat|definite|big)\s+no|non[-\s]negotiable|not\s+negotiable)\b`)
)

// statives are verbs whose "nobody ..." or "... never ..." is an opinion
// or a report, not a rule: "nobody knows", "nothing beats it".
var statives = set(`know, care, like, love, want, think, believe, seem, beat, compare, matter, feel, look,
	sound, say, remember, understand, deserve, expect, need, happen, come, notice, mind, ask, tell, listen,
	stop, change, last, end, fail, work, help, get, see, hear, win, lose, die`)

// presentBase is the plain form of a verb in the third person present
// ("takes" is "take"), or "" for another form.
func presentBase(v string) string {
	v = lower(v)
	switch {
	case v == "gets" || v == "goes" || v == "does" || v == "has":
		return map[string]string{"gets": "get", "goes": "go", "does": "do", "has": "have"}[v]
	case strings.HasSuffix(v, "ies") && len(v) > 4:
		return v[:len(v)-3] + "y"
	case strings.HasSuffix(v, "ches") || strings.HasSuffix(v, "shes") || strings.HasSuffix(v, "sses") || strings.HasSuffix(v, "xes"):
		return v[:len(v)-2]
	case strings.HasSuffix(v, "s") && !strings.HasSuffix(v, "ss") && len(v) > 3:
		return v[:len(v)-1]
	}
	return ""
}

// ruleAround is the constraint stated by the clause of t around
// t[start:end], when it has at least minWords content words.
func ruleAround(t string, start, end, minWords int, conf tenure.Confidence) (found, bool) {
	text := clauseAround(t, start, end)
	if countContentWords(text, minWords) < minWords {
		return found{}, false
	}
	return found{typ: tenure.StateConstraint, text: capitalize(text), conf: conf}, true
}

// negatedRule reads a rule from a negated subject or verb.
func negatedRule(tx *text) (found, bool) {
	t := tx.s
	rule := func(start, end int) (found, bool) { return ruleAround(t, start, end, 3, tenure.ConfidenceMedium) }
	if m := neverThingRe.FindTextSubmatchIndex(tx); m != nil {
		subject, v := t[m[2]:m[3]], lower(t[m[4]:m[5]])
		if w := words(subject); len(w) > 0 && !vagueSubjects[w[0]] && !vagueSubjects[w[len(w)-1]] &&
			!isPronounOrPerson(subject) && !pastVerbs[v] && !strings.HasSuffix(v, "ed") && !statives[presentBase(v)] && !statives[v] {
			return rule(m[0], len(t))
		}
	}
	if m := nobodyRe.FindTextSubmatchIndex(tx); m != nil {
		v := presentBase(t[m[2]:m[3]])
		if v != "" && !statives[v] && scopeRe.MatchString(t[m[4]:m[5]]) {
			return rule(m[0], len(t))
		}
	}
	if m := insistsRe.FindTextIndex(tx); m != nil && negationRe.MatchString(t[m[1]:]) {
		// "The lender insists that the panels never be exposed to
		// sunlight": what is insisted on is the rule.
		return rule(m[1], len(t))
	}
	if m := thereToBeNoRe.FindTextIndex(tx); m != nil {
		return rule(m[1]-len("no "), len(t))
	}
	if m := noPolicyRe.FindTextSubmatchIndex(tx); m != nil {
		// "a strict no-food policy in the lab" is "no food in the lab".
		rest := t[m[1]:]
		if loc := clauseCutRe.FindStringIndex(rest); loc != nil {
			rest = rest[:loc[0]]
		}
		return found{typ: tenure.StateConstraint, text: capitalize(tidy("No " + strings.ReplaceAll(t[m[2]:m[3]], "-", " ") + rest)), conf: tenure.ConfidenceHigh}, true
	}
	if m := staysRe.FindTextIndex(tx); m != nil {
		if subject := t[:m[0]]; !isPronounOrPerson(subject) && !vagueSubjects[lastWord(subject)] && scopeRe.MatchString(t[m[1]:]) {
			return rule(m[0], len(t))
		}
	}
	if m := onlyRe.FindTextIndex(tx); m != nil {
		return rule(m[0], m[1])
	}
	if m := againstRulesRe.FindTextIndex(tx); m != nil {
		if sw := lastWord(t[:m[0]]); sw != "" && !vagueSubjects[sw] && !personWords[sw] {
			return rule(m[0], m[1])
		}
	}
	if m := shouldNotRe.FindTextIndex(tx); m != nil {
		if subject := t[:m[0]]; !isPronounOrPerson(subject) && !vagueSubjects[lastWord(subject)] {
			return rule(m[0], len(t))
		}
	}
	if m := offLimitsRe.FindTextIndex(tx); m != nil {
		if sw := lastWord(t[:m[0]]); sw != "" && sw != "i" && !vagueSubjects[sw] && sw != "we" {
			return rule(m[0], m[1])
		}
	}
	return found{}, false
}

// personWords open a subject that is a person: "my dad", "we".
var personWords = set(`i, we, you, he, she, they, my, your, his, her, their, our, everyone, everybody, someone,
	somebody, people, mom, mum, dad, kids, he's, she's, it, that, this`)

// isPronounOrPerson reports whether a subject names a person: a pronoun, a
// possessive, a relative or a name.
func isPronounOrPerson(subject string) bool {
	w := words(subject)
	if len(w) == 0 {
		return true
	}
	if personWords[w[0]] || properNames(strings.TrimSpace(subject)) {
		return true
	}
	for _, x := range w {
		if relationWords[x] {
			return true
		}
	}
	return false
}

// relationWords are the relations of relativeRe, one word each.
var relationWords = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Split(relations, "|") {
		if !strings.ContainsAny(r, `\[]?()`) {
			m[r] = true
		}
	}
	return m
}()

// ruledVerb reports whether a verb does something a rule can forbid: a
// deal signed, a door opened, a file read (WordNet's verb classes of
// contact, possession, creation, communication and change), where "find"
// or "see" happen to one.
func ruledVerb(v string) bool {
	switch wordnet.Class(v, wordnet.Verb) {
	case "verb.contact", "verb.possession", "verb.creation", "verb.communication", "verb.change", "verb.social":
		return true
	}
	return false
}

// youCannot reports whether what follows "you can't" is an act on a
// thing a rule can forbid: a verb of contact, creation, possession,
// communication or change with a concrete object, after an optional
// preposition ("drill into the tiled walls").
func youCannot(rest string) bool {
	v := firstWord(rest)
	if v == "" || unruledVerbs[v] || unruledOrders[v] || idleVerbs[v] || !ruledVerb(v) {
		return false
	}
	obj := clauseAfter(strings.TrimSpace(rest[len(v):]))
	return concreteObject(stripPrep(obj)) && !pronounObject(obj)
}

// thingSubject reports whether a subject names a thing, not a person, a
// pronoun or a vague "one": "the flat there", "so the Edinburgh flat".
func thingSubject(subject string) bool {
	w := words(subject)
	for len(w) > 0 && (w[0] == "so" || w[0] == "and" || w[0] == "but" || w[0] == "then") {
		w = w[1:]
	}
	for len(w) > 0 && (w[len(w)-1] == "there" || w[len(w)-1] == "here" || w[len(w)-1] == "too") {
		w = w[:len(w)-1]
	}
	if len(w) == 0 {
		return false
	}
	s := strings.Join(w, " ")
	last := w[len(w)-1]
	return last != "one" && !vagueSubjects[last] && !isPronounOrPerson(s) && concreteObject(s)
}
