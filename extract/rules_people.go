package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
)

// relativePatterns are statements about a relative, matched on what
// follows "my sister (Ana)" or "she".
var relativePatterns = append([]factPattern{
	{re: mustPattern(`(?i)^(?:still\s+|now\s+|also\s+)?lives(?:\s+(?:on\s+(?:his|her|their)\s+own|alone|nearby|happily|there))?\s+in\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s lives in %s"},
	{re: mustPattern(`(?i)^(?:just\s+|recently\s+)?moved\s+to\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s lives in %s", change: true},
	{re: mustPattern(`(?i)^(?:is|are|'s)\s+(?:now\s+|currently\s+)?(?:based\s+)?in\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceMedium, text: "%s lives in %s"},
	{re: mustPattern(`(?i)^(?:is|are|'s)\s+(?:visiting|coming\s+over|coming)\s+(?:us\s+|me\s+)?from\s+(.+)`), attr: "lives_in", kind: properValue, conf: tenure.ConfidenceMedium, text: "%s lives in %s"},
	{re: mustPattern(`(?i)^(?:is|are|'s)\s+(?:originally\s+)?from\s+(.+)`), attr: "from", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s is from %s"},
	{re: mustPattern(`(?i)^(?:` + workAdverbs + `)?works?\s+(?:` + workAdverbs + `)?(?:at|for)\s+(.+)`), attr: "works_at", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"},
	// "works in fundraising at the Ashdown Foundation"
	{re: mustPattern(`(?i)^works?\s+in\s+[\p{L}-]+(?:\s+[\p{L}-]+)?\s+(?:at|for)\s+(.+)`), attr: "works_at", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s works at %s"},
	{re: mustPattern(`(?i)^(?:` + workAdverbs + `)?works?\s+as\s+(?:an?\s+)?(.+)`), attr: "job", kind: jobValue, conf: tenure.ConfidenceHigh, text: "%s works as %s"},
	{re: mustPattern(`(?i)^teach(?:es)?\s+(\w+)`), attr: "job", kind: teachValue, conf: tenure.ConfidenceMedium, text: "%s works as %s"},
	{re: mustPattern(`(?i)^(?:loves|likes|enjoys|adores)\s+(.+)`), attr: "likes", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s likes %s"},
	{re: mustPattern(`(?i)^(?:hates|dislikes)\s+(.+)`), attr: "dislikes", kind: anyValue, conf: tenure.ConfidenceHigh, text: "%s dislikes %s"},
	{re: mustPattern(`(?i)^(?:is|'s)\s+(?:turning\s+|about\s+to\s+turn\s+)?(` + numberWords + `)(?:\s+years?\s+old)?\b`), attr: "age", kind: ageValue, conf: tenure.ConfidenceHigh, text: "%s is %s years old"},
	{re: mustPattern(`(?i)^(?:just\s+)?turned\s+(` + numberWords + `)\b`), attr: "age", kind: ageValue, conf: tenure.ConfidenceHigh, text: "%s is %s years old", change: true},
	{re: mustPattern(`(?i)^(?:is\s+named|is\s+called|'s\s+name\s+is|name\s+is)\s+(.+)`), attr: "name", kind: properValue, conf: tenure.ConfidenceHigh, text: "%s is named %s"},
	{re: mustPattern(`(?i)^(?:has|have)\s+(.+)`), attr: "has", kind: hasValue, conf: tenure.ConfidenceHigh, text: "%s has %s"},
	{re: mustPattern(`(?i)^(?:` + workAdverbs + `)?works?\s+(?:at|for)\s+.+?\s+as\s+(?:an?\s+)?(.+)`), attr: "job", kind: jobValue, conf: tenure.ConfidenceHigh, text: "%s works as %s"},
	// "my partner is Alex"
	{re: mustPattern(`^is\s+([A-Z][\p{L}-]+(?:\s+[A-Z][\p{L}-]+)?)$`), attr: "name", kind: nameValue, conf: tenure.ConfidenceHigh, text: "%s is named %s"},
}, otherStates...)

// workAdverbs say how or since when one works, between the subject,
// "works" and the employer: "he now works remotely for an insurer".
const workAdverbs = `(?:(?:now|still|also|currently|remotely|part-time|full-time|part\s+time|full\s+time|freelance|mostly|occasionally|nights|days|weekends|evenings|mornings|(?:night\s+|day\s+|early\s+|late\s+)?shifts)\s+)*`

// isAJob is "my sister is a nurse": kept only when X is an occupation.
var isAJob = mustPattern(`(?i)^(?:is|'s)\s+an?\s+(.+)`)

const relations = `(?:brother|sister|mother|father|son|daughter)-in-law|sister|brother|mom|mum|mother|dad|father|wife|husband|partner|son|daughter|boyfriend|girlfriend|fianc[ée]e?|friend|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|boss|roommate|flatmate|neighbou?r|colleague|parents|kids|children|grandparents|niece|nephew|co-?founder|business\s+partner|manager|supervisor|co-?worker|teammate|mentor|landlord|landlady|doctor|therapist|lawyer|accountant|stepmom|stepdad|stepmother|stepfather|stepson|stepdaughter|ex`

// relativeOwner is whose relative a phrase names: "my", or a name and 's
// ("Alex's sister").
const relativeOwner = `(my|[A-Z][\p{L}-]+'s)`

const relativeMods = `(?:(?:older|younger|big|little|baby|twin|best|oldest|youngest|eldest|step|new|old|former|current)\s+)?`

var (
	// relativeRe ends the relation at a space, a comma or the end, not
	// at \b, which is ASCII-only: "fiancé" ends in a letter it does not
	// know.
	relativeRe    = mustPattern(`(?i)^` + relativeOwner + `\s+` + relativeMods + `(` + relations + `)('s)?(?:\s*,\s*|\s+|$)(.*)$`)
	relativeInvRe = mustPattern(`(?i)^(\S+)\s+is\s+` + relativeOwner + `\s+` + relativeMods + `(` + relations + `)$`)
	pronounRe     = mustPattern(`(?i)^(she|he)((?:'s)?\s+.+)$`)
	andSubjectRe  = mustPattern(`(?i)\s+and\s+((?:i|i'm|i've|my|she|he|we|we're|we've|they|they're|they've)\s)`)
	// andNameRe is "and" before a name and a verb: "Emeka heads the
	// surgical team and Lotte manages the front desk" is two clauses.
	andNameRe = mustPattern(`\s+and\s+([A-Z][\p{L}'-]+\s+(?:is|was|has|[a-z]+s)\s)`)
)

// cutClauses splits a sentence into the clauses facts are read from, at a
// comma, semicolon or colon before spaces, at a dash between spaces, and at
// a conjunction between spaces. It is, written out, the split of
//
//	(?i),\s+|;\s+|:\s+|\s+[-–—]\s+|\s+(?:but|so|because|although|though|while|whereas)\s+
//
// (FuzzCutClauses holds the two equal): Go's regexp engine tries that at
// every byte of every sentence, which was a sixth of the extractor's time.
func cutClauses(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		// A cut starts at punctuation or a space.
		k := strings.IndexAny(s[i:], ",;: \t\n\f\r")
		if k < 0 {
			break
		}
		i += k
		end, next := clauseCut(s, i)
		if end < 0 {
			i = next
			continue
		}
		out = append(out, s[start:i])
		start, i = end, end
	}
	return append(out, s[start:])
}

// clauseSeparators are what a cut between spaces is at, in the regexp's
// order.
var clauseSeparators = []string{"-", "–", "—", "but", "so", "because", "although", "though", "while", "whereas"}

// clauseCut returns the end of the cut that starts at s[i], or -1 and
// where the next cut may start.
func clauseCut(s string, i int) (end, next int) {
	if c := s[i]; c == ',' || c == ';' || c == ':' {
		if j := skipSpaces(s, i+1); j > i+1 {
			return j, 0
		}
		return -1, i + 1
	}
	k := skipSpaces(s, i)
	if k == i {
		return -1, i + 1
	}
	r, _ := utf8.DecodeRuneInString(s[k:])
	for _, sep := range clauseSeparators {
		if w, _ := utf8.DecodeRuneInString(sep); w != foldRune(r) {
			continue
		}
		if n := foldedPrefix(s[k:], sep); n > 0 {
			if j := skipSpaces(s, k+n); j > k+n {
				return j, 0
			}
		}
	}
	// A cut from inside the spaces would end where one from their start
	// does.
	return -1, k
}

// skipSpaces returns the end of the run of \s characters at s[i].
func skipSpaces(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// foldedPrefix returns the length of the prefix of s that (?i)word
// matches, or 0. The word is of lowercase ASCII letters and caseless runes,
// whose (?i) matches are the runes that fold to them.
func foldedPrefix(s, word string) int {
	n := 0
	for _, w := range word {
		r, size := utf8.DecodeRuneInString(s[n:])
		if size == 0 || foldRune(r) != w {
			return 0
		}
		n += size
	}
	return n
}

// female and male relations, for resolving "she" and "he".
var (
	femaleRelations = map[string]bool{"sister": true, "mom": true, "mum": true, "mother": true, "wife": true,
		"daughter": true, "girlfriend": true, "aunt": true, "grandma": true, "grandmother": true, "niece": true, "fiancee": true, "fiancée": true}
	maleRelations = map[string]bool{"brother": true, "dad": true, "father": true, "husband": true, "son": true,
		"boyfriend": true, "uncle": true, "grandpa": true, "grandfather": true, "nephew": true, "fiance": true, "fiancé": true}
)

// relativeSubject is the subject of a relative's facts: "Caroline's
// sister" for "my sister" said by Caroline, "Alex's sister" for "Alex's
// sister".
func (fb *factBuilder) relativeSubject(owner, rel string) string {
	rel = strings.Join(strings.Fields(lower(rel)), " ")
	if lower(owner) == "my" {
		return fb.mc.subject + "'s " + rel
	}
	return strings.TrimSuffix(owner, "'s") + "'s " + rel
}

// relative reads a clause about a relative: "my sister (Ana) ...", "Ana is
// my sister", "Alex's sister Mia ...", "Claire is Alex's mother", or "she
// ..." after a relative named earlier in the message.
func (fb *factBuilder) relative(c *text) {
	mc := fb.mc
	if m := relativeInvRe.FindTextSubmatch(c); m != nil && isProperName(m[1]) {
		mc.relation, mc.relSubject, mc.person = lower(m[3]), fb.relativeSubject(m[2], m[3]), ""
		fb.add(FactPerson, mc.relSubject, nameFact, "name", m[1])
		return
	}
	conf := tenure.ConfidenceHigh
	var subject, rest string
	if m := relativeRe.FindTextSubmatch(c); m != nil {
		subject, rest = fb.relativeSubject(m[1], m[2]), m[4]
		mc.relation, mc.relSubject, mc.person = lower(m[2]), subject, ""
		if m[3] != "" {
			rest = "'s " + rest
		} else if name, after, ok := leadingName(rest); ok {
			fb.add(FactPerson, subject, nameFact, "name", name)
			rest = after
		}
	} else if m := pronounRe.FindTextSubmatch(c); m != nil && mc.relation != "" && mc.person == "" {
		he := lower(m[1]) == "he"
		if (he && femaleRelations[mc.relation]) || (!he && maleRelations[mc.relation]) {
			return
		}
		subject, rest, conf = mc.relSubject, strings.TrimSpace(m[2]), tenure.ConfidenceMedium
	} else {
		return
	}
	rt := newText(rest)
	for _, p := range relativePatterns {
		if m := p.re.FindTextSubmatch(rt); m != nil {
			p.conf = weaker(p.conf, conf)
			fb.add(FactPerson, subject, p, p.attr, m[1])
		}
	}
	if _, second, ok := strings.Cut(rest, " and "); ok {
		// "My dad is 82 and lives on his own in Harrogate": a second
		// predicate of the same subject.
		st := newText(second)
		for _, p := range relativePatterns {
			if m := p.re.FindTextSubmatch(st); m != nil && p.attr != "name" && p.attr != "has" {
				p.conf = weaker(p.conf, conf)
				fb.add(FactPerson, subject, p, p.attr, m[1])
			}
		}
	}
	if m := isAJob.FindTextSubmatch(rt); m != nil {
		if p, ok := classifyNoun(m[1]); ok && p.attr == "job" {
			p.conf = weaker(p.conf, conf)
			fb.add(FactPerson, subject, p, p.attr, m[1])
		}
	} else if m := isTheRe.FindTextSubmatch(rt); m != nil {
		// "my partner is Leon, he's the head chef"
		if v := titleOf(m[1]); isRole(v) && !relationWords[firstWord(v)] {
			fb.add(FactPerson, subject, factPattern{kind: titleValue, conf: conf, text: "%s is the %s"}, "role", v)
		}
	}
	fb.leads(subject, rt)
}

var nameFact = factPattern{kind: properValue, conf: tenure.ConfidenceHigh, text: "%s is named %s"}

// leadingName splits a relative's name off the front of rest ("Ana is
// coming" gives "Ana"), when rest starts with one.
func leadingName(rest string) (name, after string, ok bool) {
	name, after, _ = strings.Cut(rest, " ")
	name = strings.TrimRight(name, ",")
	if !isProperName(name) {
		return "", rest, false
	}
	// A second name: "Beth Howell approves the budget".
	if second, more, _ := strings.Cut(after, " "); isProperName(strings.TrimRight(second, ",")) && !predicateStart(after) {
		name, after = name+" "+strings.TrimRight(second, ","), more
	}
	if !predicateStart(after) {
		return "", rest, false
	}
	return name, strings.TrimLeft(after, ", "), true
}

// predicateStart reports whether s reads as a predicate, so that a
// capitalised word before it is a name and not the start of a new thought.
func predicateStart(s string) bool {
	if w := strings.Fields(s); len(w) > 0 && strings.HasSuffix(w[0], "s") && !strings.HasSuffix(w[0], "'s") &&
		strings.ToLower(w[0]) == w[0] && len(w[0]) > 3 && !stopwords[w[0]] {
		return true // a verb in the third person: "approves", "runs"
	}
	if w := strings.Fields(s); len(w) > 0 && strings.ToLower(w[0]) == w[0] && pastForm(w[0]) {
		return true // a verb in the past: "ran", "started"
	}
	switch firstWord(s) {
	case "is", "was", "lives", "works", "loves", "likes", "hates", "has", "just", "moved", "turned",
		"and", "who", "", "still", "now", "also", "enjoys", "adores", "dislikes", "recently",
		"will", "can", "could", "should", "would", "might", "may", "must":
		return true
	}
	return false
}

// isProperName reports whether w is a capitalised word that is not a
// pronoun, a date or a common sentence opener.
func isProperName(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) || len(w) < 2 || calendarWords[lower(w)] {
		return false
	}
	switch lower(w) {
	case "i", "i'm", "i've", "i'll", "she", "he", "they", "we", "it", "my", "the", "and", "but", "our", "your",
		"their", "his", "her", "its", "this", "that", "these", "those", "there", "here", "what", "who", "where",
		"when", "why", "how", "yes", "no", "ok", "okay", "thanks", "hi", "hey", "also", "so", "just", "a", "an",
		"if", "then", "sure", "great", "good", "please", "let's", "lol", "haha", "oh", "wow", "well", "not",
		"everyone", "anyone", "someone", "nobody", "we're", "they're", "it's", "that's", "there's":
		return false
	}
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) < 0
}

// pluralRelation matches the subjects that take a plural verb.
var pluralRelation = mustPattern(`'s (?:parents|kids|children|grandparents)$`)

var pluralVerbs = strings.NewReplacer("%s lives", "%s live", "%s works", "%s work", "%s has", "%s have",
	"%s is", "%s are", "%s likes", "%s like", "%s dislikes", "%s dislike")

// pastForm reports whether w is a verb's past form that WordNet knows
// ("ran", "started"), not its base.
func pastForm(w string) bool {
	if stopwords[w] || len(w) < 3 {
		return false
	}
	ls := wordnet.Lemmas(w, wordnet.Verb)
	if len(ls) == 0 || ls[0] == w {
		return false
	}
	return strings.HasSuffix(w, "ed") || !strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ing")
}
