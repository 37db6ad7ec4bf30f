package extract

import (
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// DefaultAssistantName is the owner of a commitment said in an assistant
// message that has no speaker.
const DefaultAssistantName = "assistant"

// Commitments of the assistant side of a conversation: a support agent's
// or an assistant's "I'll email you a prepaid return label today". They
// are read apart from the user's, because most of what an assistant says
// in the first person is conversation, not a task: it offers ("I can send
// you …"), is polite ("I'll be happy to help", "let me know if …"),
// describes the answer it is giving ("I'll walk you through the steps",
// "here are some tips:") or does now what it says it will ("I'll escalate
// this now"). What is left is a promise to do something after the turn.
var (
	// letMeRe is "let me <verb> …", a commitment only when it promises to
	// come back (getBackRe): "let me check with the warehouse and get back
	// to you by Friday". "Let me check the account" is done in the next
	// turn.
	letMeRe   = mustPattern(`(?i)\blet\s+me\s+([a-z][a-z-]*)\b(.*)`)
	getBackRe = mustPattern(`(?i)\b(?:get|come|circle|report)\s+back\s+to\s+you\b|\bfollow\s+up\s+with\s+you\b`)
	// inTurnRe says the commitment is kept in the turn itself: now, or in
	// what follows the sentence.
	inTurnRe = mustPattern(`(?i)\b(?:now|right\s+away|straight\s+away|immediately|in\s+a\s+(?:moment|sec|second|minute|bit)|below|here|as\s+follows|the\s+following|in\s+this\s+(?:message|reply|answer|chat|conversation|thread))\b`)
	// unlessRe is a condition anywhere in the clause: "I'll send it if
	// the photos show damage".
	unlessRe = mustPattern(`(?i)\b(?:if|unless|in\s+case|provided|assuming|as\s+long\s+as|whether|should\s+you)\b`)
	// laterRe is when a promise is to be kept, said as a time to do it
	// ("today", "tomorrow", "on Friday", "within 24 hours"), not as what
	// it is for ("a plan for next week": laterAt).
	laterRe = mustPattern(`(?i)\b(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week)|later\s+today|(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|next\s+(?:week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:within|in)\s+(?:the\s+next\s+)?(?:\d+|an?|one|two|three|four|five|a\s+few|a\s+couple\s+of)\s+(?:business\s+|working\s+)?(?:hours?|days?|weeks?)|asap|eod|eow|end\s+of\s+(?:the\s+)?(?:day|week))\b`)
	// listLineRe opens a line of a list: "1. ", "- ", "• ".
	listLineRe = mustPattern(`^\s*(?:\d{1,2}[.)]|[-*•])\s`)
	// antecedentRe is a noun phrase a pronoun may stand for: "the
	// duplicate charge", "your order".
	antecedentRe = mustPattern(`(?i)\b(the|your|our)\s+([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3})`)
	// apologyRe opens a sentence that names nothing to act on: "sorry
	// about the delay", "thanks for your patience".
	apologyRe = mustPattern(`(?i)\b(?:sorry|apolog|thanks|thank\s+you|appreciate)`)
)

// clauseOpeners may stand before the subject of an assistant's
// commitment: "Understood, I'll …", "Of course, we'll …". Anything else
// before it ("If you want, I'll …", "I think I'll …", "Once you confirm,
// I'll …") makes it no plain promise.
var clauseOpeners = set(`understood, ok, okay, sure, certainly, absolutely, of, course, no, problem, got,
	it, alright, right, great, perfect, noted, thanks, thank, you, sorry, yes, done, and, so, then, also,
	hi, hello, fine, good, excellent, gladly, will, do, in, the, meantime, meanwhile, first, next, finally`)

// talkVerbs act on the conversation itself: an assistant that will
// explain, outline or walk through something does it in its answer.
var talkVerbs = set(`explain, walk, break, outline, summarize, summarise, describe, list, suggest, recommend,
	clarify, elaborate, answer, help, assist, point, highlight, show, tell, mention, focus, address, guide,
	start, begin, continue, cover, recap, rephrase, repeat, dive, consider, go, look, take, note, reply,
	respond, think, try, do, keep, stay, remember, be, ensure, proceed, rewrite`)

// chatObjects are what an assistant gives in its answer, or takes in
// it: "I'll give you some tips", "I'll send you a summary", "I'll make a
// note of it".
var chatObjects = set(`tip, tips, idea, ideas, suggestion, suggestions, option, options, example, examples,
	overview, summary, rundown, breakdown, step, steps, advice, explanation, recommendation,
	recommendations, pointer, pointers, insight, insights, thought, thoughts, hand, look, moment, note, notes`)

// handoffVerbs pass something on: "I'll escalate this to our billing
// team" says what is done without saying what "this" is.
var handoffVerbs = set(`escalate, forward, pass, refer, hand, transfer, send, submit, flag, raise, report, assign`)

// genericSpeakers name an assistant without naming a person.
var genericSpeakers = set(`assistant, ai, bot, chatbot, chatgpt, claude, gemini, copilot, gpt, llm, model`)

// vagueAntecedents are nouns a pronoun seldom stands for in a promise:
// what an apology or a greeting names.
var vagueAntecedents = set(`delay, patience, trouble, inconvenience, confusion, wait, issue, problem, question,
	message, team, account, time, day, week`)

// assistantCommitment reads a promise of the assistant side of a
// conversation: an "I'll …", "I will …", "I'm going to …" or "we'll …"
// that opens its clause, or a "let me … and get back to you", whose verb
// does something after the turn to a thing it names. An agent with a name
// (a speaker who is no generic assistant) commits as a person does; an
// assistant without one only with a time to keep it ("today", "by
// Friday") or a promise to come back, because what a chat assistant will
// put together it puts together in its next answer. The owner is the
// speaker, or DefaultAssistantName; "you" is the user the assistant
// answers, when that user has a name, and is left out before what is
// sent ("email you a label" → "Email a label") when not. A "we" is the
// agent's side, whom the agent answers for. Questions, offers ("I can
// …"), conditions, what is done already ("I've sent …") and what is done
// now are none.
func assistantCommitment(mc *messageContext, t *text) (found, bool) {
	verbAt, restAt := 4, 6
	m := commitRe.FindTextSubmatchIndex(t)
	if m == nil {
		if m = letMeRe.FindTextSubmatchIndex(t); m == nil {
			return found{}, false
		}
		verbAt, restAt = 2, 4
	}
	clause := clauseAfter(t.s[m[0]:])
	back := getBackRe.MatchString(clause)
	if verbAt == 2 && !back || !opensClause(t.s[:m[0]]) {
		return found{}, false
	}
	if strings.HasSuffix(strings.TrimSpace(t.s), ":") || inTurnRe.MatchString(clause) || unlessRe.MatchString(clause) || mc.writtenAnswer() {
		return found{}, false
	}
	name := mc.msg.Speaker
	if !back && (name == "" || genericSpeakers[lower(name)]) && !dueRe.MatchString(clause) && !laterAt(clause) {
		return found{}, false
	}
	verb, rest := lower(t.s[m[verbAt]:m[verbAt+1]]), t.s[m[restAt]:m[restAt+1]]
	if ls := wordnet.Lemmas(verb, wordnet.Verb); len(ls) == 0 || ls[0] != verb {
		return found{}, false // "I'll personally …", "I'll probably …"
	}
	var f found
	switch {
	case back:
		// "I'll get back to you tomorrow" promises to come back; in "Let
		// me check with the warehouse and get back to you" what is
		// checked may go unnamed ("let me look into this and …").
		f = found{typ: tenure.StateAction, text: capitalize(verb + " " + clauseAfter(rest))}
	case talkVerbs[verb] || chatObject(rest):
		return found{}, false
	default:
		var ok bool
		if f, ok = task(verb, rest, tenure.ConfidenceMedium); !ok {
			if f, ok = pronounTask(mc, t.s[m[0]:m[verbAt+1]], verb, rest); !ok {
				return found{}, false
			}
		}
	}
	f.conf = tenure.ConfidenceMedium
	f.owner = name
	if f.owner == "" {
		f.owner = DefaultAssistantName
	}
	f.text = toUser(f.text, answeredUser(mc))
	return f, true
}

// maxTurnSentences is the most sentences a turn of a chat may have. A
// longer assistant message, or one with a list, is an answer written for
// the user: a plan, a letter, a story, whose "I'll" and "we'll" belong to
// what it writes ("I'll add cat shampoo to your list. Here's your updated
// list: …", "Dear Client, … we'll handle all aspects of the production").
const maxTurnSentences = 6

// writtenAnswer reports whether the message is such an answer. It is
// read once a message, when a sentence of it first commits.
func (mc *messageContext) writtenAnswer() bool {
	if mc.answer == 0 {
		mc.answer = 1
		if len(splitSentences(mc.msg.Content)) > maxTurnSentences {
			mc.answer = 2
		}
		for line := range strings.SplitSeq(mc.msg.Content, "\n") {
			if listLineRe.MatchString(line) {
				mc.answer = 2
				break
			}
		}
	}
	return mc.answer == 2
}

// opensClause reports whether before, what stands before a commitment's
// subject, is empty or only words that may open a clause.
func opensClause(before string) bool {
	for _, w := range words(before) {
		if !clauseOpeners[w] {
			return false
		}
	}
	return true
}

// laterAt reports whether s says when to keep a promise: a time that is
// not what something is for or of ("a plan for next week").
func laterAt(s string) bool {
	for _, loc := range laterRe.re.FindAllStringIndex(s, -1) {
		if p := lastWord(s[:loc[0]]); p != "for" && p != "of" && p != "from" && p != "since" {
			return true
		}
	}
	return false
}

// chatObject reports whether a verb's object is something an assistant
// gives in its answer: its first words name tips, a summary, options.
func chatObject(rest string) bool {
	w := words(clauseAfter(rest))
	for i := 0; i < len(w) && i < 4; i++ {
		if chatObjects[w[i]] {
			return true
		}
	}
	return false
}

// pronounTask is a promise whose object is a pronoun: "I'll refund it
// today" after "I can see the duplicate charge" refunds the charge, the
// one thing the text before it in the message names; "I'll escalate this
// to our billing team" hands it on, whatever it is. promise is the
// commitment's words up to its verb ("I'll refund").
func pronounTask(mc *messageContext, promise, verb, rest string) (found, bool) {
	obj := clauseAfter(rest)
	p, after, _ := strings.Cut(obj, " ")
	if !pronounObjects[lower(p)] {
		return found{}, false
	}
	if np := antecedent(mc, promise); np != "" {
		return task(verb, np+" "+after, tenure.ConfidenceMedium)
	}
	to := after
	if q, a, ok := strings.Cut(to, " "); ok && particles[lower(q)] {
		to = a // "pass it on to", "hand it over to"
	}
	if q, a, ok := strings.Cut(to, " "); ok && handoffVerbs[verb] && (lower(q) == "to" || lower(q) == "with") && concreteObject(a) {
		return found{typ: tenure.StateAction, text: capitalize(verb + " " + obj), conf: tenure.ConfidenceMedium}, true
	}
	return found{}, false
}

// antecedent is what a pronoun object of a promise stands for: the one
// noun phrase with "the", "your" or "our" that the clause or sentence
// before the promise in the message names, or "". Two are one too many
// to choose from; an apology or a thanks names nothing to act on.
func antecedent(mc *messageContext, promise string) string {
	content := plainQuotes(mc.msg.Content)
	k := strings.Index(content, promise)
	if k <= 0 {
		return ""
	}
	before := strings.TrimRight(content[:k], ".!?;,: \t\n")
	if k := strings.LastIndexAny(before, ".!?;\n"); k >= 0 {
		before = before[k+1:]
	}
	if apologyRe.MatchString(before) {
		return ""
	}
	ms := antecedentRe.re.FindAllStringSubmatch(before, -1)
	if len(ms) != 1 {
		return ""
	}
	var np []string
	for _, w := range strings.Fields(ms[0][2]) {
		w = strings.TrimRight(w, ",.;:!?")
		if stopwords[lower(w)] || !wordnet.Known(w, wordnet.Noun) && !wordnet.Known(w, wordnet.Adjective) {
			break
		}
		np = append(np, w)
	}
	for len(np) > 0 && !wordnet.Known(np[len(np)-1], wordnet.Noun) {
		np = np[:len(np)-1]
	}
	if len(np) == 0 || vagueAntecedents[lower(np[len(np)-1])] {
		return ""
	}
	return "the " + strings.Join(np, " ")
}

// answeredUser is the name of the user the assistant answers: the other
// speaker of a two-person conversation, or the speaker of the nearest
// user message before, or "" when that one has none.
func answeredUser(mc *messageContext) string {
	if mc.addressee != "" {
		return mc.addressee
	}
	for i := len(mc.before) - 1; i >= 0; i-- {
		if b := &mc.before[i]; b.Role == "user" {
			return b.Speaker
		}
	}
	return ""
}

// toUser writes "you" and "your" in a commitment's text as the user they
// stand for. Without a name, "you" before what is sent is left out
// ("email you a prepaid label" → "Email a prepaid label") and "your" is
// "the".
func toUser(s, name string) string {
	ws := strings.Fields(s)
	out := ws[:0]
	for i, w := range ws {
		core := strings.TrimRight(w, ",.;:!?")
		punct := w[len(core):]
		switch lower(core) {
		case "you":
			if name != "" {
				out = append(out, name+punct)
				continue
			}
			if i+1 < len(ws) && (determiners[lower(ws[i+1])] || lower(ws[i+1]) == "a" || lower(ws[i+1]) == "an" || isNumber(lower(ws[i+1]))) && punct == "" {
				continue
			}
		case "your":
			if name != "" {
				out = append(out, name+"'s"+punct)
			} else {
				out = append(out, "the"+punct)
			}
			continue
		}
		out = append(out, w)
	}
	return capitalize(strings.Join(out, " "))
}
