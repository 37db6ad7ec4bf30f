package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure/wordnet"
)

// sentence is one sentence of a message, with quoted speech removed.
type sentence struct {
	text string
	// question is set when the sentence ends with a question mark.
	question bool
	// emphatic is set for "??" and "?!": exclamations more than questions.
	emphatic bool
	// todo is set for a line marked as a to-do; text is what follows the
	// marker.
	todo bool
}

// typography maps typographic quotes to ASCII so that one apostrophe
// spelling serves every pattern.
var typography = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "„", `"`, "«", `"`, "»", `"`, "\u00a0", " ")

// plainQuotes is typography.Replace(s). The replacer copies every text it
// is given, and every character it replaces is outside ASCII, so an ASCII
// text, the usual one, is returned as it is.
func plainQuotes(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return typography.Replace(s)
		}
	}
	return s
}

// todoRe marks a line as a task ("TODO: x", "- [ ] x", "Action item: x");
// todoInlineRe finds a marked task later in a line ("Also, TODO for me:
// x").
var (
	todoRe       = mustPattern(`(?i)^(?:[-*•]\s*)?(?:\[\s?\]\s*|(?:todo|to-do)\b[:\-–]?\s*|action items?\s*[:\-–]\s*)(\S.*)$`)
	todoInlineRe = mustPattern(`(?i)\b(?:todo|to-do|action item)(?:\s+for\s+(?:me|us|\w+))?\s*:\s*(\S.*)$`)
)

// splitSentences splits a message into sentences. Quoted speech is removed
// first: what someone else is quoted as saying is not the speaker's
// decision, commitment or fact.
func splitSentences(text string) []sentence {
	text = stripQuoted(plainQuotes(text))
	var out []sentence
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m := todoRe.FindStringSubmatchIndex(line)
		if m == nil {
			m = todoInlineRe.FindStringSubmatchIndex(line)
		}
		if m == nil {
			out = append(out, sentencesOf(line)...)
			continue
		}
		// The first sentence after the marker names the task; the rest of
		// the line is read as usual.
		out = append(out, sentencesOf(line[:m[0]])...)
		if s := sentencesOf(line[m[2]:]); len(s) > 0 {
			s[0] = sentence{text: s[0].text, todo: true}
			out = append(out, s...)
		}
	}
	return out
}

// abbreviations are words whose trailing period does not end a sentence.
var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true,
	"mrs": true, "ms": true, "dr": true, "st": true, "approx": true, "no": true, "inc": true, "jr": true, "sr": true}

// sentencesOf splits one line at sentence ends (., !, ?, ; and runs of
// them) followed by a space or the end of the line.
func sentencesOf(line string) []sentence {
	var out []sentence
	start := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '.' && c != '!' && c != '?' && c != ';' {
			continue
		}
		j := i
		for j < len(line) && strings.IndexByte(".!?;", line[j]) >= 0 {
			j++
		}
		if j < len(line) && line[j] != ' ' && line[j] != '\t' {
			i = j - 1
			continue // "staging.tenure-demo.io", "1.5", "/v2."
		}
		if c == '.' && j == i+1 && isAbbreviation(line[start:i]) {
			continue
		}
		run := line[i:j]
		out = appendSentence(out, line[start:i], run)
		start, i = j, j-1
	}
	return appendSentence(out, line[start:], "")
}

func isAbbreviation(before string) bool {
	k := strings.LastIndexAny(before, " \t(")
	w := strings.ToLower(before[k+1:])
	n := utf8.RuneCountInString(w)
	return abbreviations[w] || (n == 1 && unicode.IsUpper([]rune(before[k+1:])[0]))
}

func appendSentence(out []sentence, text, end string) []sentence {
	text = strings.TrimSpace(text)
	if !strings.ContainsFunc(text, unicode.IsLetter) {
		return out
	}
	q := strings.Contains(end, "?")
	return append(out, sentence{text: text, question: q, emphatic: q && len(end) > 1 && end != "?"})
}

// stripQuoted removes text between double quotes and between single
// quotes that open a word and close one ('I'll do it' but not I'll or
// kids').
func stripQuoted(s string) string {
	if !strings.ContainsAny(s, `"'`) {
		return s
	}
	var b strings.Builder
	// kept is where the text not yet written to b starts.
	kept := 0
	cut := func(from, to int) {
		b.WriteString(s[kept:from])
		b.WriteByte(' ')
		kept = to
	}
	// unclosed is where a search for a closing quote last failed: the
	// quotes that could close one are the same for every later opener
	// before it, so they need not be searched again (which would make a
	// line of many lone apostrophes quadratic).
	unclosed := -1
	for i := 0; i < len(s); {
		c := s[i]
		if c == '"' {
			// A quote closes on its own line: two inch marks lines apart
			// are not a quotation.
			if j := strings.IndexByte(s[i+1:], '"'); j >= 0 && strings.IndexByte(s[i+1:i+1+j], '\n') < 0 {
				cut(i, i+j+2)
				i += j + 2
				continue
			}
		}
		if c == '\'' && i >= unclosed && opensQuote(s, i) {
			j, end := closingQuote(s, i+1)
			if j > 0 {
				cut(i, j+1)
				i = j + 1
				continue
			}
			unclosed = end
		}
		i++
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

func opensQuote(s string, i int) bool {
	if i > 0 && !strings.ContainsRune(" \t\n(:", rune(s[i-1])) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i+1:])
	return unicode.IsLetter(r)
}

// closingQuote is the index of the quote closing one opened before from:
// an apostrophe after a non-space and before a non-letter. When there is
// none it returns -1 and the end of the line searched.
func closingQuote(s string, from int) (int, int) {
	for j := from; j < len(s); j++ {
		if s[j] == '\n' {
			return -1, j
		}
		if s[j] != '\'' || s[j-1] == ' ' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[j+1:])
		if j+1 == len(s) || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return j, j
		}
	}
	return -1, len(s)
}

// discourseRe matches the interjections and connectives a sentence may
// open with ("Okay folks,", "Also", "Heads up:"), which an item's text
// leaves out.
var discourseRe = mustPattern(`(?i)^(?:(?:ok|okay|so|and|also|but|btw|alright|well|agreed|actually|anyway|anyways|plus|oh|hey|hi|yeah|yes|yep|sure|right|great|cool|perfect|then|now|fyi|ps|heads up|quick question|one more thing|good question|folks|guys|honestly|basically|hmm|um|uh|ah|noted|thanks|wait|lol|haha|by the way|(?:just\s+a\s+)?reminder(?:\s+that)?|note\s+that|psa)(?:[,:!.]+\s*|\s+))+`)

// timeThenEndRe is a sentence that closes with "then" standing for a
// time ("don't ship before then").
var timeThenEndRe = mustPattern(`(?i)\b(?:` + thenPreps + `)\s+then$`)

// trailingRe matches filler a sentence may close with ("then", "though").
var trailingRe = mustPattern(`(?i)(?:[\s,]+(?:then|though|anyway|anyways|too|as well|lol|haha|please|ok|okay|honestly|btw|tbh|for sure))+$`)

// clauseCutRe matches where a clause ends: a comma or dash, or a
// conjunction that starts a reason or a new statement.
var clauseCutRe = mustPattern(`(?i),\s|;\s|:\s|\s[-–—]\s|\s(?:so|because|since|but|which|although|though|whereas|cause|cuz|while)\s`)

// clauseAfter is the clause s starts with: s up to its first clause cut.
func clauseAfter(s string) string {
	if loc := clauseCutRe.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return tidy(s)
}

// clauseAround is the clause of s that holds s[start:end]: from the last
// comma or colon before start to the first clause cut after end.
func clauseAround(s string, start, end int) string {
	from := 0
	for _, sep := range []string{", ", ": ", " - ", "; "} {
		if k := strings.LastIndex(s[:start], sep); k >= 0 && k+len(sep) > from {
			from = k + len(sep)
		}
	}
	to := len(s)
	if loc := clauseCutRe.FindStringIndex(s[end:]); loc != nil {
		to = end + loc[0]
	}
	return tidy(discourseRe.ReplaceAllString(s[from:to], ""))
}

// tidy trims filler words, spaces and closing punctuation.
func tidy(s string) string {
	for {
		t := strings.TrimRight(strings.TrimSpace(s), ".,;:!?-–— ")
		if !timeThenEndRe.MatchString(t) {
			// ("before then" names a time: its "then" is no filler.)
			t = trailingRe.ReplaceAllString(t, "")
		}
		if t == s {
			return s
		}
		s = t
	}
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func lower(s string) string { return strings.ToLower(s) }

// words splits s into lowercase words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// firstWord is the first word of s, lowercase.
func firstWord(s string) string {
	if w := words(s); len(w) > 0 {
		return w[0]
	}
	return ""
}

// coordinatedRe joins two statements in one sentence, the second with a
// subject and a modal of its own: ", and I'll send you a postmortem", ";
// Ruth will ...", ", and the API must respond in under 200 ms", ", and
// visitors can't park on the verge". A subject with a determiner is a
// noun phrase of at most four words, so that "and the rest of the team
// said it must ..." is no clause of its own. A condition after ", and",
// ", but", ", so" or ";" is a clause of its own too: "The lease runs out in
// March, and if the council doesn't renew it we lose the site".
var coordinatedRe = mustPattern(`(?:,\s+and|;|,\s+then)\s+((?:I|we|We|[A-Z][\p{L}'-]+)(?:'ll|\s+will|\s+is\s+going\s+to|'s\s+going\s+to|'m\s+going\s+to|\s+are\s+going\s+to)\s+[a-z]|` +
	`(?:I|we|you|they|(?:the|our|their|your|all|every|each|any)(?:\s+[\p{L}\d][\p{L}\d-]*){1,3}?|[A-Z][\p{L}'-]+)\s+` + coordinatedModals + `\s+[a-z])` +
	`|(?:,\s+(?:and|but|so)|;)\s+(if\s+[a-z])`)

// coordinatedModals bind a coordinated clause: a rule or a limit.
const coordinatedModals = `(?:must(?:n't|\s+not|\s+never)?|can(?:'t|not)|can\s+only|should(?:n't|\s+not|\s+never)|has\s+to|have\s+to|needs?\s+to|may\s+not|(?:is|are)(?:n't|\s+not)\s+allowed\s+to)`

// coordinated splits a statement into the commitments it joins, each
// read on its own: "We'll ship a fix by Wednesday, and I'll send you a
// postmortem by Friday" is two tasks. A question or a to-do line is one.
func coordinated(s sentence) []sentence {
	if s.question || s.todo {
		return []sentence{s}
	}
	locs := coordinatedRe.re.FindAllStringSubmatchIndex(s.text, -1)
	if len(locs) == 0 {
		return []sentence{s}
	}
	var out []sentence
	start := 0
	for _, loc := range locs {
		part := s
		part.text = strings.TrimSpace(s.text[start:loc[0]])
		out = append(out, part)
		start = loc[2]
		if start < 0 {
			start = loc[4] // a condition
		}
	}
	last := s
	last.text = s.text[start:]
	return append(out, last)
}

// pronounObjectRe is the first "it" or "one" after a verb: an object that
// stands for something named before.
var pronounObjectRe = mustPattern(`^((?:[^.?!]*?[a-z]\s+))(?:it|one)(\s|[.!,;]|$)`)

// askedNPRe is the thing a question asks about: "do we have a rollback
// plan for the pricing page?", "what's your budget for the dinner?", "is
// the water trough by the gate still
// leaking?", "when is the gas safety check due?".
var askedNPRe = mustPattern(`(?i)(?:(?:^|\b(?:when|where|how)\s+)(?:is|are|was|were|has|have|does|did|will|(?:do|does|did)\s+(?:we|you|they)\s+(?:have|need|want))|^what(?:'s|\s+is|\s+are))\s+((?:the|a|an|our|your|their)\s+[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,5}?)\s*(?:\?|\s+(?:still|going|due|ready|done|fixed|working|booked|sorted|set|if|when|for\s+(?:the|this|next)\s+(?:opening|launch|event|day|week))\b)`)

// askedAbout is what the question just before asks about, when another
// speaker asked it: its noun phrase, or "".
func askedAbout(mc *messageContext) string {
	if len(mc.before) == 0 {
		return ""
	}
	b := &mc.before[len(mc.before)-1]
	if b.Speaker == mc.msg.Speaker && b.Role == mc.msg.Role || !strings.HasSuffix(strings.TrimSpace(b.Content), "?") {
		return ""
	}
	q := b.Content
	if k := strings.LastIndexAny(strings.TrimSuffix(strings.TrimSpace(q), "?"), ".!?"); k >= 0 {
		q = q[k+1:]
	}
	m := askedNPRe.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil || !hasContentWord(m[1]) {
		return ""
	}
	if rest, ok := strings.CutPrefix(m[1], "your "); ok {
		// The asker's "your budget" is the answerer's own: "Let's keep
		// it under 300 dollars" keeps the budget under 300 dollars.
		return "the " + rest
	}
	return m[1]
}

// weObjectRe is the object of what a question asks the group to do:
// "should we send the deck ahead of the first meeting or present it
// live?". The object's words follow the determiner.
var weObjectRe = mustPattern(`(?i)\b(?:should|shall|do|can|could|will)\s+(?:we|i)\s+[a-z]+\s+(the|our|their|your)\s+([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})`)

// choiceAskedAbout is the object of the nearest either-or question of
// the few messages before, whoever asked it (one may ask an assistant and
// then decide), or "": what "it" stands for in the choice that settles it
// ("OK, we'll send it ahead rather than holding it back"). The object
// ends at its last noun.
func choiceAskedAbout(mc *messageContext) string {
	options, ok := askedOptions(mc)
	if !ok {
		return ""
	}
	m := weObjectRe.FindStringSubmatch(options)
	if m == nil {
		return ""
	}
	ws := strings.Fields(m[2])
	n := 0
	for n < len(ws) && wordnet.Known(ws[n], wordnet.Noun) && !stopwords[lower(ws[n])] {
		n++
	}
	if n == 0 {
		return ""
	}
	return lower(m[1]) + " " + strings.Join(ws[:n], " ")
}
