package extract

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// Action patterns: a first-person commitment ("I'll send the draft"), a
// need ("need to rotate the keys") and a request with a deadline ("can you
// send me the estimate by Wednesday?").
var (
	commitRe     = mustPattern(`(?i)\b(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to)\s+(?:(?:also|then|first|just|quickly|now|go\s+ahead\s+and)\s+)?([a-z][a-z-]*)\b(.*)`)
	needRe       = mustPattern(`(?i)(?:^|\b(?:i|we|you)\s+)(?:really\s+|still\s+|also\s+|just\s+|definitely\s+|first\s+)?(?:need|have|'ve\s+got|got|gotta)\s+to\s+([a-z][a-z-]*)\b(.*)`)
	letsRe       = mustPattern(`(?i)\blet'?s\s+([a-z][a-z-]*)\b(.*)`)
	gottaRe      = mustPattern(`(?i)(?:^|\bi\s+)gotta\s+([a-z][a-z-]*)\b(.*)`)
	requestRe    = mustPattern(`(?i)^(?:can|could|would|will)\s+(?:you|someone|somebody|anyone)\s+(?:please\s+)?([a-z][a-z-]*)\b(.*)$`)
	asksListener = mustPattern(`(?i)^\w+\s+you\b`)
	vocative     = mustPattern(`,\s*[A-Z][\p{L}-]*$`)
	meRe         = mustPattern(`(?i)\bme\b`)
)

// idleVerbs take no task: "I'll be there", "I'll see", "gotta run", and
// hedges standing where the verb would ("we'll probably ...").
var idleVerbs = map[string]bool{"be": true, "have": true, "see": true, "try": true, "think": true,
	"let": true, "get": true, "keep": true, "miss": true, "need": true, "love": true, "like": true,
	"bet": true, "probably": true, "maybe": true, "definitely": true, "never": true, "not": true,
	"always": true, "still": true, "go": true, "come": true, "wait": true, "pass": true, "survive": true,
	"manage": true, "say": true, "admit": true, "talk": true, "relax": true, "sleep": true, "rest": true,
	"leave": true, "know": true, "feel": true, "guess": true, "hope": true, "stay": true,
	"mind": true, "eat": true, "grab": true, "die": true}

// particles complete phrasal verbs ("write up", "send over").
var particles = map[string]bool{"up": true, "over": true, "out": true, "back": true, "off": true, "down": true}

// lifeVerbs start personal plans ("I'm going to start volunteering"),
// which are profile facts rather than tasks.
var lifeVerbs = map[string]bool{"start": true, "move": true, "adopt": true, "visit": true, "travel": true,
	"learn": true, "study": true, "quit": true, "join": true, "volunteer": true, "buy": true,
	"marry": true, "retire": true, "become": true, "fly": true}

func action(mc *messageContext, t *text) (found, bool) {
	if !mc.human {
		// An assistant's "I'll ..." is done in its next turn.
		return found{}, false
	}
	f, ok := commitment(t)
	if !ok {
		return f, false
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

func commitment(t *text) (found, bool) {
	if m := commitRe.FindTextSubmatch(t); m != nil {
		going := strings.Contains(lower(m[0]), "going")
		if !(going && lifeVerbs[lower(m[1])]) {
			if f, ok := task(m[1], m[2], tenure.ConfidenceHigh); ok {
				return f, true
			}
		}
	}
	// "Let's <verb>" that is not a decision (those are matched first)
	// proposes a task to the group.
	for _, re := range []*pattern{needRe, gottaRe, letsRe} {
		if m := re.FindTextSubmatch(t); m != nil {
			return task(m[1], m[2], tenure.ConfidenceMedium)
		}
	}
	return found{}, false
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
	if idleVerbs[verb] || !concreteObject(obj) {
		return found{}, false
	}
	return found{typ: tenure.StateAction, text: capitalize(verb + " " + obj), conf: conf}, true
}

// request is "can you <verb> ... by <date>?": a task handed to someone with
// a deadline. Without a deadline it is too often a favour asked in passing
// ("can you help me plan a trip?"). "me" is the speaker.
func request(mc *messageContext, t string) (found, bool) {
	m := requestRe.FindStringSubmatch(t)
	if m == nil || !dueRe.MatchString(m[2]) {
		return found{}, false
	}
	rest := vocative.ReplaceAllString(strings.TrimSpace(m[2]), "")
	if mc.msg.Speaker != "" {
		rest = meRe.ReplaceAllString(rest, mc.msg.Speaker)
		rest = myRe.ReplaceAllString(rest, "${1}"+mc.msg.Speaker+"'s${2}")
	}
	return task(m[1], rest, tenure.ConfidenceMedium)
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

// vagueQuestionWords carry no topic of their own in a question.
var vagueQuestionWords = map[string]bool{"happen": true, "awesom": true, "cool": true, "thing": true, "fun": true}

// question recognises a real question addressed to someone, or a request
// for a task.
func (r *Rules) question(mc *messageContext, s sentence, t string) (found, bool) {
	if !mc.human || s.emphatic {
		return found{}, false
	}
	t = vocative.ReplaceAllString(tidy(t), "")
	if m := requestRe.FindStringSubmatch(t); m != nil && (dueRe.MatchString(m[2]) || asksListener.MatchString(t)) {
		// A request with a deadline is a task; a favour asked of the
		// listener ("can you help me plan a trip?") is neither a task nor
		// an open question. "Can anyone explain ...?" is a question.
		return request(mc, t)
	}
	t, ok := questionClause(t)
	if !ok || smallTalkRe.MatchString(t) || personalRe.MatchString(t) {
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

// questionClause is the clause of a question sentence that asks: the last
// one that opens with an interrogative word. A sentence with none ("a nice
// watch?", "he loves jazz right?") is a guess or an echo, not a question.
func questionClause(t string) (string, bool) {
	cs := questionCutRe.Split(t, -1)
	for i := len(cs) - 1; i >= 0; i-- {
		c := leadingConjRe.ReplaceAllString(strings.TrimSpace(cs[i]), "")
		if openerRe.MatchString(c) {
			return c, true
		}
	}
	return "", false
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
