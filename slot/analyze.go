package slot

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// FacetKind is the kind of an explicit value.
type FacetKind string

// Facet kinds.
const (
	Quantity FacetKind = "quantity" // a number, with its unit, rate and bound
	Date     FacetKind = "date"     // a calendar date, a weekday, a month, a relative day
	Time     FacetKind = "time"     // a time of day
	Version  FacetKind = "version"  // a number that follows a name: "PostgreSQL 15"
)

// Facet is an explicit value of an item: a quantity, a date, a time of
// day or a version.
type Facet struct {
	Kind FacetKind
	// Key is what the value measures: the quantity's dimension and rate
	// ("duration", "money:usd/month", "count:seat"), "date", "time", or the
	// name a version belongs to.
	Key string
	// Value is the value in a comparable form: a number in the
	// dimension's base unit, "2025-03-14", "m:3", "wd:fri", "17:00", "16".
	Value string
	// Bound is "max" or "min" for a bounded quantity, "every" for a
	// frequency, "" otherwise.
	Bound string
	// Text is the value as written.
	Text string
	// at is the index of its first token.
	at int
	// noun is the token of the noun a count counts, which stays a word of
	// the frame ("two approvals").
	noun int
	// strict is set for a bound that excludes its value ("over 21",
	// "fewer than 3"), against one that includes it ("at least 22", "at
	// most 2").
	strict bool
}

// Word is a content word of an item.
type Word struct {
	// Stem is the form words are compared in: lowercase, spelling
	// variants and synonyms folded, stemmed (names are not stemmed).
	Stem string
	// Text is the word as written.
	Text string
	// Name is set for proper and product names ("ClickHouse", "Lena")
	// and for colours: values rather than what an item is about.
	Name bool
	// Verb is set for a verb.
	Verb bool
	// at is the index of its token.
	at int
	// counted is set for the noun a question asks the number or amount
	// of ("How many guests ...").
	counted bool
	// opens is set for a noun that opens the item as its subject: the
	// first content word, before any verb ("All riders must ...").
	opens bool
}

// Analysis is what Compare reads of an item's text.
type Analysis struct {
	typ tenure.StateType
	// Frame is the item's content words in order: what it is about, and
	// the names it chooses or mentions. Values (Facets) are not in it.
	Frame []Word
	// Facets are the explicit values, in order.
	Facets []Facet
	// Negated is set when the statement is negated ("cannot store raw IP
	// addresses", "no shellfish").
	Negated bool
	// Instead holds the phrases the text says it replaces ("instead of
	// PostgreSQL", "rather than Zendesk", "replace Jest with Vitest").
	Instead []string
	// InsteadCue is set for a bare "instead" or "after all": the text
	// replaces something without naming it.
	InsteadCue bool
	// with and without record the prepositions: "ship without DRM" says
	// no to what "ship with DRM" says yes to.
	with, without bool
	// lacking are the words of what "without" governs ("without grip
	// socks").
	lacking []Word
	// recipient is the named person the item hands something to
	// ("Assign the weekend desk to Noor"), or "".
	recipient string
	// gate is the word that opens a clause the item orders its main
	// clause by ("until", "before", "after"), or ""; gateAt is its token,
	// and negatedGate is set when a negation comes before it ("Nobody
	// uses the laser cutter until ...").
	gate        string
	gateAt      int
	negatedGate bool
}

// insteadRes find what a text says it replaces. The first submatch is the
// replaced phrase; replaceRe's second is the replacement.
var (
	insteadRe = regexp.MustCompile(`(?i)\s*\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(.+?)\s*(?:$|[,;.!?()]|\s(?:for|because|since|so|as|on|at|by|in|to|from|with|when|after|before|next|this|until|if)\s)`)
	replaceRe = regexp.MustCompile(`(?i)\breplac(?:e|es|ed|ing)\s+(.+?)\s+(?:with|by)\s+(.+)$`)
	fromToRe  = regexp.MustCompile(`(?i)\b(?:switch|switched|switching|move|moved|moving|migrate|migrated|migrating|change|changed|changing|go|going|went)\b(?:\s+\S+){0,4}?\s+(from\s+(.+?))\s+to\s+\S`)
	notRe     = regexp.MustCompile(`(?i),\s*(?:and\s+)?not\s+(.+?)\s*[.!]?$`)
)

// Analyze reads text, an item of type t, into its frame, facets, polarity
// and the values it replaces. In a question, names are part of what is
// asked about rather than values; in a decision, the verbs that state the
// choice ("use", "go with", "host") are left out of the frame.
func Analyze(t tenure.StateType, text string) Analysis {
	a := Analysis{typ: t}
	text = clip(text, maxAnalyzed)
	text = typography.Replace(text)
	text = a.cutInstead(text)
	text = rephrase(text)
	if t == tenure.StateRisk {
		// A thing that may stop working may break down; elsewhere
		// people stop working at six.
		text = stopsWorkingRe.ReplaceAllString(text, "break down")
	}
	text, a.recipient = giveTo(text)
	toks := tokenize(text)
	s := scanner{a: &a, toks: toks}
	s.scan()
	return a
}

// rephrasings rewrite phrases that say with several words what one verb
// does, so that both forms have one frame: "go to the wedding by car" is
// "drive to the wedding"; "open two engineer roles" is "hire two
// engineers".
var rephrasings = []struct {
	// needs are strings one of which a text must hold, lowercase, for re
	// to match it: most texts hold none, and the test is far cheaper
	// than the regexp's.
	needs []string
	re    *regexp.Regexp
	repl  string
}{
	{[]string{"car"}, regexp.MustCompile(`(?i)\b(?:go|goes|going|went|gone|get|gets|got|getting|come|comes|came|coming|head|heads|headed|heading|travel|travels|travelled|traveled|travelling|traveling)\b([^.;!?]{0,60}?)\s+(?:by\s+car|in\s+the\s+car)\b`), "drive$1"},
	{[]string{"bike", "bicycle"}, regexp.MustCompile(`(?i)\b(?:go|goes|going|went|gone|get|gets|got|getting|come|comes|came|coming|head|heads|headed|heading|travel|travels|travelled|traveled|travelling|traveling)\b([^.;!?]{0,60}?)\s+(?:by\s+bike|by\s+bicycle)\b`), "cycle$1"},
	{[]string{"foot"}, regexp.MustCompile(`(?i)\b(?:go|goes|going|went|gone|get|gets|got|getting|come|comes|came|coming|head|heads|headed|heading|travel|travels|travelled|traveled|travelling|traveling)\b([^.;!?]{0,60}?)\s+on\s+foot\b`), "walk$1"},
	{[]string{"plane", "air"}, regexp.MustCompile(`(?i)\b(?:go|goes|going|went|gone|get|gets|got|getting|come|comes|came|coming|head|heads|headed|heading|travel|travels|travelled|traveled|travelling|traveling)\b([^.;!?]{0,60}?)\s+(?:by\s+plane|by\s+air)\b`), "fly$1"},
	{[]string{"pull"}, regexp.MustCompile(`(?i)\bpull\s+requests?\b`), "PR"},
	{[]string{"o'clock"}, regexp.MustCompile(`(?i)\b(\d{1,2})\s+o'clock\b`), "$1:00"},
	{[]string{"what", "which"}, regexp.MustCompile(`(?i)\b(?:at\s+)?(?:what|which)\s+(?:time|date|day)\b`), "when"},
	{[]string{"due to", "owing to"}, regexp.MustCompile(`(?i)\b(?:due|owing)\s+to\b`), "because of"},
	{[]string{"look"}, regexp.MustCompile(`(?i)\b(?:have|has|had|having|take|takes|took|taking)\s+an?\s+(?:quick\s+|close\s+|proper\s+)?look\s+(?:at|into|over)\b`), "check"},
	{[]string{"call", "ring"}, regexp.MustCompile(`(?i)\b(?:give|gives|gave|giving)\s+(\S+(?:\s+\S+){0,4}?)\s+an?\s+(?:quick\s+)?(?:call|ring)\b`), "call $1"},
	{[]string{"fortnight"}, regexp.MustCompile(`(?i)\bfortnightly\b`), "every two weeks"},
	{[]string{"all times"}, regexp.MustCompile(`(?i)\bat\s+all\s+times\b`), "always"},
	{[]string{"place"}, regexp.MustCompile(`(?i)\b(?:takes|took|taking|take)\s+place\b`), "is held"},
	{[]string{"ahead", "beforehand"}, regexp.MustCompile(`(?i)\b(?:ahead\s+of\s+time|beforehand)\b`), "in advance"},
	{[]string{"role", "position", "req", "vacanc", "opening", "headcount"}, regexp.MustCompile(`(?i)\b(?:open|opens|opened|opening|fill|fills|filled|filling|post|posts|posted|posting)\s+((?:\S+\s+){0,4}?)(?:roles?|positions?|reqs?|vacanc(?:y|ies)|openings?|headcount)\b`), "hire $1"},
}

// stopsWorkingRe finds a thing that stops working, which in a risk
// breaks down.
var stopsWorkingRe = regexp.MustCompile(`(?i)\b(?:stop|stops|stopped|stopping|cease|ceases|ceased)\s+(?:working|functioning|operating)\b`)

// rephrase applies rephrasings to text.
func rephrase(text string) string {
	low := strings.ToLower(text)
	for _, r := range rephrasings {
		if slices.ContainsFunc(r.needs, func(n string) bool { return strings.Contains(low, n) }) {
			text = r.re.ReplaceAllString(text, r.repl)
			low = strings.ToLower(text)
		}
	}
	return text
}

// Two sides of a handing over: the thing given to a named person ("Give
// the Portuguese manuals to Lucia", "Hand the session to Bruno"), and the
// person who receives it ("Lucia handles the Portuguese manuals", "Bruno
// will take over the session"). The names are capitalised words, so these
// match without (?i) and lower the case of the verbs only.
var (
	giveToRe  = regexp.MustCompile(`^\s*(?i:give|gives|hand|hands|allocate|allocates|delegate|delegates|assign|assigns|reassign|reassigns)\s+(.+?)\s+to\s+((?:[A-Z][\p{L}'.-]*)(?:\s+[A-Z][\p{L}'.-]*)?)\s*[.!]?$`)
	receiveRe = regexp.MustCompile(`^\s*((?:[A-Z][\p{L}'.-]*)(?:\s+[A-Z][\p{L}'.-]*)?)\s+(?i:(?:will|is\s+going\s+to|can|shall)\s+)?(?i:take|takes|took|get|gets|got|cover|covers|handle|handles|own|owns)(?i:\s+over)?\s+(.+?)\s*[.!]?$`)
)

// giveTo reads a thing given to a named person as "assign <thing> to
// <person>", whichever verb of giving it has, and returns the person.
func giveTo(text string) (string, string) {
	if m := giveToRe.FindStringSubmatch(text); m != nil {
		return "assign " + m[1] + " to " + m[2], m[2]
	}
	return text, ""
}

// received rewrites a text that says a person receives something ("Lucia
// handles the Portuguese manuals") as that thing handed to the person
// ("assign the Portuguese manuals to Lucia"). A text that opens with a
// word that names no one ("The", "We") is not one. Whether the opening
// capital is a name ("Customers can get a refund") the text does not
// say, so the rewriting is read only against an item that hands something
// to a named person (Compare).
func received(text string) (string, bool) {
	m := receiveRe.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	first := strings.ToLower(strings.Fields(m[1])[0])
	if stopwords[first] || determiners[first] || modals[first] || negations[first] {
		return "", false
	}
	return "assign " + m[2] + " to " + m[1], true
}

// typography maps typographic quotes to ASCII.
var typography = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "\u00a0", " ")

// maxAnalyzed is how much of an item's text Analyze reads: an item is a
// line, and what follows a few thousand bytes of one is not what it is
// about.
const maxAnalyzed = 2048

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutInstead records and removes what text says it replaces.
func (a *Analysis) cutInstead(text string) string {
	if m := replaceRe.FindStringSubmatchIndex(text); m != nil && !deadline(text[m[3]:]) {
		a.Instead = append(a.Instead, text[m[2]:m[3]])
		text = text[:m[0]] + "use " + text[m[4]:m[5]]
	}
	for {
		m := insteadRe.FindStringSubmatchIndex(text)
		if m == nil {
			break
		}
		a.Instead = append(a.Instead, text[m[2]:m[3]])
		text = text[:m[0]] + " " + text[m[3]:]
	}
	if m := fromToRe.FindStringSubmatchIndex(text); m != nil {
		a.Instead = append(a.Instead, text[m[4]:m[5]])
		text = text[:m[2]] + text[m[3]:]
	}
	if m := notRe.FindStringSubmatchIndex(text); m != nil {
		a.Instead = append(a.Instead, text[m[2]:m[3]])
		text = text[:m[0]]
	}
	return text
}

// deadline reports whether rest, what follows a replaced phrase, is a
// date or a time it is due by ("replace the valve by Wednesday", "... by
// 5 pm") rather than what replaces it ("replace the valve by a new one").
func deadline(rest string) bool {
	rest = strings.TrimSpace(rest)
	low := strings.ToLower(rest)
	if !strings.HasPrefix(low, "by ") {
		return false
	}
	var a Analysis
	s := scanner{a: &a, toks: tokenize(rest)}
	if len(s.toks) < 2 || s.facetAt(1) == 0 {
		return false
	}
	return a.Facets[0].Kind == Date || a.Facets[0].Kind == Time
}

// tok is a token of a text.
type tok struct {
	raw  string // as written, outer punctuation trimmed
	low  string // lowercase, without a possessive 's
	used bool
}

// tokenize splits text at white space, trims outer punctuation and splits
// a number from a unit written against it ("300ms", "5pm", "20MB").
func tokenize(text string) []tok {
	var out []tok
	add := func(raw string) {
		low := strings.ToLower(raw)
		low = strings.TrimSuffix(strings.TrimSuffix(low, "'s"), "'")
		if acronymPlural(raw) {
			// "SLAs" are SLAs as "SLA" is one: the stemmer keeps a
			// plural "s" after a vowel.
			low = strings.TrimSuffix(low, "s")
		}
		if low == "a.m" || low == "p.m" {
			low = strings.ReplaceAll(low, ".", "")
		}
		out = append(out, tok{raw: raw, low: low})
	}
	for _, f := range strings.Fields(text) {
		f = strings.TrimLeft(f, `"'([{<*_`)
		f = strings.TrimRight(f, `"')]}>.,;:!?*_`)
		if f == "" {
			continue
		}
		if num, suffix, ok := splitNumber(f); ok {
			add(num)
			add(suffix)
			continue
		}
		add(f)
	}
	return out
}

// acronymPlural reports whether raw is an acronym with a plural "s":
// two or more capitals or digits, then "s" ("SLAs", "KPIs").
func acronymPlural(raw string) bool {
	body, ok := strings.CutSuffix(raw, "s")
	if !ok || len(body) < 2 {
		return false
	}
	return strings.IndexFunc(body, func(r rune) bool { return !unicode.IsUpper(r) && !unicode.IsDigit(r) }) < 0 &&
		strings.IndexFunc(body, unicode.IsUpper) >= 0
}

// splitNumber splits "300ms" into "300" and "ms" when the suffix is a unit
// or am/pm.
func splitNumber(f string) (string, string, bool) {
	i := 0
	for i < len(f) && strings.ContainsRune("$€£¥", rune(f[i])) {
		i++
	}
	if strings.HasPrefix(f, "€") || strings.HasPrefix(f, "£") || strings.HasPrefix(f, "¥") {
		_, n := utf8.DecodeRuneInString(f)
		i = n
	}
	j := i
	for j < len(f) && (f[j] >= '0' && f[j] <= '9' || f[j] == ',' || f[j] == '.') {
		j++
	}
	if j == i || j == len(f) {
		return "", "", false
	}
	suffix := strings.ToLower(f[j:])
	if _, ok := units[suffix]; ok || suffix == "am" || suffix == "pm" {
		if suffix == "k" && i > 0 {
			return "", "", false // "$12k" is a number, kept whole
		}
		return f[:j], f[j:], true
	}
	return "", "", false
}

// scanner walks a text's tokens, recognising facets first and reading the
// rest as words.
type scanner struct {
	a    *Analysis
	toks []tok
	neg  int
	// withoutAt is the token of the last "without".
	withoutAt int
	// numbered are the tokens of house numbers, part of the name after
	// them ("at 12 Rose Lane").
	numbered map[int]bool
}

// scan reads the facets first, so that the words of a bound ("must not
// exceed 64 KB") are the bound's, then the remaining words.
func (s *scanner) scan() {
	for i := 0; i < len(s.toks); {
		if n := s.facetAt(i); n > 0 && !s.toks[i].used {
			i += n
			continue
		}
		i++
	}
	for i := range s.toks {
		s.word(i)
	}
	s.a.Negated = s.neg%2 == 1
	if s.a.without {
		for _, w := range s.a.Frame {
			if w.at > s.withoutAt && w.at <= s.withoutAt+maxWithoutWords && !w.Verb {
				s.a.lacking = append(s.a.lacking, w)
			}
		}
	}
	if s.a.Negated && s.a.without {
		// "Nobody climbs without a helmet" says what "climb with a
		// helmet" does.
		s.a.Negated, s.a.without, s.a.with = false, false, true
	}
	s.findGate()
	s.limits()
	s.measureNouns()
	s.markCounted()
	if len(s.a.Frame) > 0 && !s.a.Frame[0].Verb && !s.a.Frame[0].Name {
		s.a.Frame[0].opens = true
	}
}

// markCounted marks the noun after "how many" or "how much" in a
// question as what it asks the number of.
func (s *scanner) markCounted() {
	if s.a.typ != tenure.StateQuestion {
		return
	}
	for i := range s.toks {
		if s.low(i) != "how" || s.low(i+1) != "many" && s.low(i+1) != "much" {
			continue
		}
		// The phrase right after "how many", and its head, its last
		// word ("how many security staff"); "how much is the fee" asks
		// no number of a thing.
		head := -1
		for k, w := range s.a.Frame {
			next := i + 2
			if head >= 0 {
				next = s.a.Frame[head].at + 1
			}
			if w.at == next && w.at <= i+1+maxCountedWords && !w.Verb && !w.Name {
				head = k
			}
		}
		if head >= 0 {
			s.a.Frame[head].counted = true
		}
	}
}

// maxCountedWords is how many tokens after "how many" the counted noun
// may stand ("how many security staff").
const maxCountedWords = 3

// measureNouns drops the nouns that only name the kind of a value the
// item states: "Chat support hours are 9 am to 5 pm" says with "hours"
// what its times say, as "Chat support is available from 9 am to 5 pm"
// says it without.
func (s *scanner) measureNouns() {
	s.a.Frame = slices.DeleteFunc(s.a.Frame, func(w Word) bool {
		if w.Name || w.Verb {
			return false
		}
		k, ok := measureNounKinds[strings.ToLower(w.Text)]
		return ok && slices.ContainsFunc(s.a.Facets, func(f Facet) bool { return f.Kind == k })
	})
}

// measureNounKinds are the nouns that name a kind of value.
var measureNounKinds = map[string]FacetKind{"hours": Time, "hour": Time, "time": Time, "times": Time,
	"date": Date, "dates": Date}

// maxWithoutWords is how many tokens after "without" the phrase it
// governs is read in.
const maxWithoutWords = 3

// limits reads a limit noun as the bound of the measures the item states
// without one: "the weight limit for the small ferry is 2,000 kg" says
// what "vehicles must weigh under 2,000 kg" does. The noun then says
// nothing more and leaves the frame.
func (s *scanner) limits() {
	bound := ""
	s.a.Frame = slices.DeleteFunc(s.a.Frame, func(w Word) bool {
		low := strings.ToLower(w.Text)
		switch {
		case w.Name:
		case limitNouns[low]:
			bound = boundMax
			return slices.ContainsFunc(s.a.Facets, unbounded)
		case minimumNouns[low]:
			bound = boundMin
			return slices.ContainsFunc(s.a.Facets, unbounded)
		}
		return false
	})
	if bound == "" {
		return
	}
	for i := range s.a.Facets {
		if f := &s.a.Facets[i]; unbounded(*f) {
			f.Bound = bound
			if bound == boundMax {
				f.Text = "at most " + f.Text
			} else {
				f.Text = "at least " + f.Text
			}
		}
	}
}

// unbounded reports whether f is a measure or a count without a bound,
// not a bare number, an ordinal or a frequency.
func unbounded(f Facet) bool {
	return f.Kind == Quantity && f.Bound == "" && !strings.HasPrefix(f.Key, "#") && f.Key != "ordinal" &&
		f.Key != "times"
}

// low is the lowercase form of token i, or "" past either end.
func (s *scanner) low(i int) string {
	if i < 0 || i >= len(s.toks) {
		return ""
	}
	return s.toks[i].low
}

// prepBefore reports whether the word before token i makes a weekday or
// month at i a date.
func (s *scanner) prepBefore(i int) bool {
	// "Move the book club to Thursdays": a weekday or a month a thing is
	// moved to is its date.
	return temporalPreps[s.low(i-1)] || s.low(i-1) == "to" && (weekdays[s.low(i)] != "" || months[s.low(i)] != 0)
}
