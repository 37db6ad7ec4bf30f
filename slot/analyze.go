package slot

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/wordnet"
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
	s.limits()
	s.measureNouns()
	s.markCounted()
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

// facetAt recognises a facet starting at token i and returns how many
// tokens it took, or 0.
func (s *scanner) facetAt(i int) int {
	if s.toks[i].used {
		return 0
	}
	for _, f := range []func(int) (Facet, int){s.dateAt, s.timeAt, s.relativeDateAt, s.quantityAt} {
		if fc, n := f(i); n > 0 {
			if fc.Kind == Version {
				fc.at = i - 1
			} else {
				fc.at = i
			}
			s.a.Facets = append(s.a.Facets, fc)
			for k := i; k < i+n; k++ {
				s.toks[k].used = true
			}
			return n
		}
	}
	return 0
}

// dayOfMonth reads "12", "1st", "14th" as a day of the month.
func dayOfMonth(w string) (int, bool) {
	w = strings.TrimRight(w, "stndrh")
	d, err := strconv.Atoi(w)
	return d, err == nil && d >= 1 && d <= 31
}

func year(w string) (int, bool) {
	y, err := strconv.Atoi(w)
	return y, err == nil && len(w) == 4 && y >= 1900 && y <= 2200
}

// dateAt reads a calendar date: "12 May 2023", "Saturday 12 August", "March
// 14", "1st of June", "June 2023", "Friday March 14".
func (s *scanner) dateAt(i int) (Facet, int) {
	j := i
	if _, ok := weekdays[s.low(j)]; ok {
		if _, ok := months[s.low(j+1)]; ok {
			j++
		} else if _, ok := dayOfMonth(s.low(j + 1)); ok {
			j++
		}
	}
	var d, m, n int
	if day, ok := dayOfMonth(s.low(j)); ok {
		k := j + 1
		if s.low(k) == "of" {
			k++
		}
		if mo, ok := months[s.low(k)]; ok {
			d, m, n = day, mo, k+1-i
		}
	} else if mo, ok := months[s.low(j)]; ok {
		if day, ok := dayOfMonth(s.low(j + 1)); ok {
			d, m, n = day, mo, j+2-i
		} else if yr, ok := year(s.low(j + 1)); ok {
			return Facet{Kind: Date, Key: "date", Value: strconv.Itoa(yr) + "-" + two(mo), Text: s.text(i, j+2)}, j + 2 - i
		}
	}
	if n == 0 {
		return Facet{}, 0
	}
	v := two(m) + "-" + two(d)
	if yr, ok := year(s.low(i + n)); ok {
		v = strconv.Itoa(yr) + "-" + v
		n++
	}
	return Facet{Kind: Date, Key: "date", Value: v, Text: s.text(i, i+n)}, n
}

func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// text is tokens [i, j) as written.
func (s *scanner) text(i, j int) string {
	var b strings.Builder
	for k := i; k < j && k < len(s.toks); k++ {
		if k > i {
			b.WriteByte(' ')
		}
		b.WriteString(s.toks[k].raw)
	}
	return b.String()
}

// timeAt reads a time of day: "7:40", "18:05", "9 am", "5 pm", "noon".
func (s *scanner) timeAt(i int) (Facet, int) {
	w := s.low(i)
	switch w {
	case "noon", "midday":
		return Facet{Kind: Time, Key: "time", Value: "12:00", Text: s.toks[i].raw}, 1
	case "midnight":
		return Facet{Kind: Time, Key: "time", Value: "00:00", Text: s.toks[i].raw}, 1
	}
	h, m, n := -1, 0, 1
	if hh, mm, ok := strings.Cut(w, ":"); ok {
		hv, err1 := strconv.Atoi(hh)
		mv, err2 := strconv.Atoi(mm)
		if err1 != nil || err2 != nil || hv > 24 || mv > 59 || len(mm) != 2 {
			return Facet{}, 0
		}
		h, m = hv, mv
	}
	ampm := s.low(i + 1)
	if ampm == "am" || ampm == "pm" {
		if h < 0 {
			hv, err := strconv.Atoi(w)
			if err != nil || hv < 1 || hv > 12 {
				return Facet{}, 0
			}
			h = hv
		}
		if ampm == "pm" && h < 12 {
			h += 12
		} else if ampm == "am" && h == 12 {
			h = 0
		}
		n = 2
	}
	if h < 0 {
		return Facet{}, 0
	}
	return Facet{Kind: Time, Key: "time", Value: two(h) + ":" + two(m), Text: s.text(i, i+n)}, n
}

// number reads a number: digits with thousands separators and a decimal
// point, an optional currency sign and k or m suffix, or a number word.
func number(w string) (v float64, currency string, ok bool) {
	if n, ok := numberWords[w]; ok {
		return n, "", true
	}
	for sign, code := range map[string]string{"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"} {
		if rest, found := strings.CutPrefix(w, sign); found {
			w, currency = rest, code
			break
		}
	}
	mult := 1.0
	if currency != "" {
		switch {
		case strings.HasSuffix(w, "k"):
			w, mult = strings.TrimSuffix(w, "k"), 1e3
		case strings.HasSuffix(w, "m"):
			w, mult = strings.TrimSuffix(w, "m"), 1e6
		}
	}
	w = strings.ReplaceAll(w, ",", "")
	if w == "" || !unicode.IsDigit(rune(w[0])) {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(w, 64)
	if err != nil {
		return 0, "", false
	}
	return f * mult, currency, true
}

// houseNumber reports whether token i, a number, is the number of a
// place whose name follows it ("at 12 Rose Lane", "to 14 Orchard Road"):
// it says which place, as the name does, and measures nothing. It is
// recorded as part of the name.
func (s *scanner) houseNumber(i int) bool {
	if _, err := strconv.Atoi(s.toks[i].raw); err != nil || i+1 >= len(s.toks) || !placePreps[s.low(i-1)] ||
		!s.isName(i+1) || months[s.low(i+1)] != 0 {
		return false
	}
	if s.numbered == nil {
		s.numbered = map[int]bool{}
	}
	s.numbered[i] = true
	return true
}

// placePreps are the prepositions before a place.
var placePreps = fields(`at on to from in near outside opposite`)

// isNumber reports whether w reads as a number.
func isNumber(w string) bool {
	_, _, ok := number(w)
	return ok
}

// ordinal reads "60th", "1st" as a number.
func ordinal(w string) (float64, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if rest, ok := strings.CutSuffix(w, suf); ok && rest != "" {
			if n, err := strconv.Atoi(rest); err == nil {
				return float64(n), true
			}
		}
	}
	return 0, false
}

// quantityAt reads a number with what qualifies it: the bound before it
// ("at most", "under"), its unit, currency or counted noun after it, and a
// rate ("a month", "per hour"). A bare number after a name is the name's
// version ("PostgreSQL 15").
func (s *scanner) quantityAt(i int) (Facet, int) {
	w := s.low(i)
	if v, ok := ordinal(w); ok {
		return Facet{Kind: Quantity, Key: "ordinal", Value: fmtNum(v), Text: s.toks[i].raw}, 1
	}
	v, currency, ok := number(w)
	if !ok {
		return Facet{}, 0
	}
	if currency == "" && s.houseNumber(i) {
		return Facet{}, 0
	}
	if _, word := numberWords[w]; word && (s.low(i+1) == "" || stopwords[s.low(i+1)] && s.low(i+1) != "more") && w != "once" && w != "twice" {
		return Facet{}, 0 // "write one", "the two of us"
	}
	if w == "once" && s.low(i-1) == "at" {
		return Facet{}, 0 // "at once" is "at the same time"
	}
	n := 1
	head := -1 // the counted noun's token, when there is one
	f := Facet{Kind: Quantity, Text: s.toks[i].raw}
	switch u, isUnit := units[s.low(i+1)]; {
	case currency != "":
		f.Key = "money:" + currency
	case currencyWords[s.low(i+1)] != "":
		// "500 dollars" is "$500".
		f.Key = "money:" + currencyWords[s.low(i+1)]
		n++
	case isUnit:
		f.Key, v = u.dim, v*u.size
		if u.dim == "percent" || u.dim == "times" || u.dim == "person" || u.dim == "night" {
			f.Key = u.dim
		}
		n++
	case frequencyWords[w]:
		// "twice a day" counts times, whatever word stands before it.
		f.Key = "times"
	case s.low(i+1) != "" && !stopwords[s.low(i+1)] && !temporalPreps[s.low(i+1)] && isWordy(s.low(i+1)) &&
		!(strings.HasSuffix(s.low(i+1), "ed") && verbStems[stem(s.low(i+1))]):
		// ("order 4471 refunded" counts nothing: the word after the
		// number is a participle.)
		// The counted noun stays a word of the frame: two engineers
		// and two designers are not one slot. It is the head of the
		// phrase after the number, not its first modifier: "5,000
		// hardcover copies" counts copies, as "5,000 copies" does.
		head = s.countedHead(i + 1)
		f.Key = "count:" + stem(s.low(head))
	case i > 0 && s.isName(i-1):
		return Facet{Kind: Version, Key: s.canon(i - 1), Value: w, Text: s.text(i-1, i+1)}, 1
	case (s.low(i+1) == "to" || s.low(i+1) == "and") && isNumber(s.low(i+2)):
		// The low end of a range ("2 to 8 degrees", "between 2 and 8
		// degrees"), however it is introduced.
		f.Key = "#range"
	default:
		f.Key = "#" + s.low(i-1)
	}
	// A rate: "$500 a month", "5 times a week", "1,000 emails per hour",
	// "7 hours of sleep a night".
	k := i + n
	if s.low(k) == "of" && s.low(k+1) != "" {
		k += 2
	}
	if r := s.low(k); r == "in" && (s.low(k+1) == "a" || s.low(k+1) == "an" || s.low(k+1) == "one" || s.low(k+1) == "any") &&
		rateUnits[s.low(k+2)] {
		// "9 hours in a day" is "9 hours a day".
		f.Key += "/" + s.low(k+2)
		if k == i+n {
			n += 3
		} else {
			s.toks[k].used, s.toks[k+1].used, s.toks[k+2].used = true, true, true
		}
	} else if r == "a" || r == "an" || r == "per" || r == "each" || r == "every" {
		if p := strings.TrimSuffix(s.low(k+1), "s"); rateUnits[p] {
			f.Key += "/" + p
			if k == i+n {
				n += 2
			} else {
				s.toks[k].used, s.toks[k+1].used = true, true
			}
		}
	} else if p, ok := rateAdverbs[r]; ok {
		// "twice daily" is "twice a day".
		f.Key += "/" + p
		if k == i+n {
			n++
		} else {
			s.toks[k].used = true
		}
	}
	f.Value = fmtNum(v)
	var from int
	var flipped bool
	f.Bound, from, flipped = s.boundBefore(i)
	if f.Bound != "" && from < i && strings.HasPrefix(f.Key, "#") {
		// A bare number is keyed by the word before it, and the bound's
		// words are not that word: "must be over 16" and "must be at
		// least 16" measure one thing.
		f.Key = "#" + s.low(from-1)
	}
	f.Text = s.text(from, i+n)
	if flipped {
		f.Text = "at most " + s.text(i, i+n)
	}
	if f.Bound == "" {
		// "16 or older", "3 kW or more", "50 items max": the bound
		// written after the number, or after the noun it counts, which
		// stays a word of the frame.
		at := i + n
		if head >= at {
			at = head + 1
		}
		if _, isUnit := units[s.low(i+1)]; isUnit && dimensionAdjectives[s.low(at)] {
			// "90 cm wide at most": the adjective stays a word of the
			// frame, the bound after it is the measure's.
			at++
		}
		if b, m, ok := s.boundAfter(at); ok {
			f.Bound = b
			if strings.HasPrefix(f.Key, "#") && (ageWords[s.low(at+m-1)] || ageWords[s.low(i-1)]) {
				f.Key, v = "duration", v*units["year"].size
				f.Value = fmtNum(v)
			}
			if at == i+n {
				n += m
				f.Text = s.text(i, i+n)
			} else {
				for k := at; k < at+m; k++ {
					s.toks[k].used = true
				}
				f.Text = s.text(i, at+m)
			}
		}
	}
	return f, n
}

// countedHead is the index of the head of the noun phrase that starts at
// token i: the last of up to three words before a stopword, a preposition,
// a number, a verb or the end ("hardcover copies", "backend engineers").
func (s *scanner) countedHead(i int) int {
	head := i
	for k := i + 1; k < i+3 && k < len(s.toks); k++ {
		w := s.low(k)
		if w == "" || stopwords[w] || temporalPreps[w] || modals[w] || negations[w] || !isWordy(w) {
			break
		}
		if _, ok := units[w]; ok || phrasePreps[w] || verbStems[stem(w)] || boundAfterPhrases[w] != "" || participle(w) {
			break
		}
		head = k
	}
	return head
}

// participle reports whether w is a verb's past participle, which ends
// the counted phrase it follows: "30 boxes delivered by Thursday" counts
// boxes.
func participle(w string) bool {
	if _, ok := irregulars[w]; ok {
		return true
	}
	return strings.HasSuffix(w, "ed") && wordnet.Known(w, wordnet.Verb)
}

// boundAfter reads a bound written after a quantity at token i ("or
// more", "or older", "at the latest", "max") and returns it and how many
// tokens it takes.
func (s *scanner) boundAfter(i int) (string, int, bool) {
	if i >= len(s.toks) || s.toks[i].used {
		return "", 0, false
	}
	for n := 3; n >= 1; n-- {
		if i+n > len(s.toks) {
			continue
		}
		var ws []string
		for k := i; k < i+n; k++ {
			ws = append(ws, s.toks[k].low)
		}
		if b, ok := boundAfterPhrases[strings.Join(ws, " ")]; ok {
			return b, n, true
		}
	}
	return "", 0, false
}

// isWordy reports whether w is a word of letters (a counted noun).
func isWordy(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) < 0
}

// boundBefore finds a bound phrase that ends just before token i, marks
// its tokens used and returns the bound, where the phrase starts (i when
// there is none) and whether a negation made a minimum of it a maximum.
func (s *scanner) boundBefore(i int) (string, int, bool) {
	for n := 4; n >= 1; n-- {
		if i-n < 0 {
			continue
		}
		var ws []string
		free := true
		for k := i - n; k < i; k++ {
			ws = append(ws, s.toks[k].low)
			free = free && !s.toks[k].used
		}
		if b, ok := boundPhrases[strings.Join(ws, " ")]; ok && free {
			for k := i - n; k < i; k++ {
				s.toks[k].used = !dimensionComparatives[s.toks[k].low]
			}
			// "cannot cost more than" is a maximum: the negation is the
			// bound's, not the statement's.
			flipped := false
			for k := i - n - 1; k >= 0 && k >= i-n-maxNegationBefore; k-- {
				if negations[s.toks[k].low] && !s.toks[k].used && b == boundMin {
					s.toks[k].used = true
					b, flipped = boundMax, true
					break
				}
			}
			// "refunds over $200 cannot be issued" is "cannot issue
			// refunds above $200": the negation after the bound is the
			// bound's too.
			for k := i + 1; !flipped && b == boundMin && k < len(s.toks) && k <= i+maxNegationAfter; k++ {
				if negations[s.toks[k].low] && !s.toks[k].used {
					s.toks[k].used = true
					b, flipped = boundMax, true
				}
			}
			if s.low(i-n-1) == "every" {
				return "every", i - n, false
			}
			return b, i - n, flipped
		}
	}
	if s.low(i-1) == "every" && !s.toks[i-1].used {
		s.toks[i-1].used = true
		return "every", i - 1, false
	}
	return "", i, false
}

// maxNegationBefore is how many tokens before an upper bound a negation
// may stand and still make it a lower one ("No episode may run longer
// than 45 minutes").
const maxNegationBefore = 4

// maxNegationAfter is how many tokens after a lower bound a negation may
// stand and still make it an upper one.
const maxNegationAfter = 5

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// relativeDateAt reads a date without a number after a temporal
// preposition: "on Friday", "in June", "by tomorrow", "next week", "by the
// end of the month", "in Q3", "in 2024"; and "every week" as a frequency.
func (s *scanner) relativeDateAt(i int) (Facet, int) {
	w := s.low(i)
	date := func(v string, n int) (Facet, int) {
		return Facet{Kind: Date, Key: "date", Value: v, Text: s.text(i, i+n)}, n
	}
	switch {
	case (w == "every" || w == "each") && periods[strings.TrimSuffix(s.low(i+1), "s")]:
		u := units[s.low(i+1)]
		return Facet{Kind: Quantity, Key: u.dim, Value: fmtNum(u.size), Bound: "every", Text: s.text(i, i+2)}, 2
	case (w == "next" || w == "this" || w == "last") && (periods[s.low(i+1)] || weekdays[s.low(i+1)] != "" || dayParts[s.low(i+1)]):
		v := s.low(i + 1)
		if wd := weekdays[v]; wd != "" {
			v = "wd:" + wd
		}
		return date(w+":"+v, 2)
	case w == "end" && s.low(i+1) == "of":
		k := i + 2
		if s.low(k) == "the" || s.low(k) == "this" || s.low(k) == "next" {
			k++
		}
		if periods[s.low(k)] {
			return date("end:"+s.low(k), k+1-i)
		}
	case dayWords[w]:
		// "today", "tomorrow" are dates wherever they stand.
		return date("rel:"+w, 1)
	case !s.prepBefore(i) && !(weekdays[w] != "" && (s.low(i-1) == "a" || s.low(i-1) == "the") && s.prepBefore(i-1)):
		// "on a Friday" is a date as "on Friday" is.
	case weekdays[w] != "":
		n := 1
		if dayParts[s.low(i+1)] {
			n = 2
		}
		return date("wd:"+weekdays[w], n)
	case months[w] != 0:
		return date("m:"+strconv.Itoa(months[w]), 1)
	case relativeDays[w] && !dayWords[w]:
		return date("rel:"+w, 1)
	case len(w) == 2 && w[0] == 'q' && w[1] >= '1' && w[1] <= '4':
		return date(w, 1)
	default:
		if y, ok := year(w); ok {
			return date("y:"+strconv.Itoa(y), 1)
		}
	}
	return Facet{}, 0
}

// word reads token i as a content word, a negation, a cue or nothing.
func (s *scanner) word(i int) {
	t := &s.toks[i]
	w := t.low
	switch {
	case w == "no" && s.low(i+1) == "longer", w == "after" && s.low(i+1) == "all":
		t.used, s.toks[i+1].used = true, true
		s.a.InsteadCue = true
		return
	case t.used:
		return
	case passiveModals[w] && beForms[s.low(i-1)]:
		// "are accepted", "is expected": what may or must be done.
		return
	case w == "instead":
		s.a.InsteadCue = true
		return
	case w == "with":
		s.a.with = true
		return
	case w == "off" && (s.low(i+1) == "limits" || s.low(i+1) == "limit"):
		// "off limits" is "not allowed".
		s.toks[i+1].used = true
		s.neg++
		return
	case w == "off-limits":
		s.neg++
		return
	case w == "time" && s.low(i-1) == "a" && s.low(i-2) == "at":
		return // "at a time" is "at once"
	case w == "without":
		s.a.without = true
		s.withoutAt = i
		return
	case negations[w]:
		s.neg++
		return
	case cessations[w] && (i == 0 || stopwords[s.low(i-1)] || modals[s.low(i-1)]) && !determiners[s.low(i-1)]:
		// "stop sending the report", not "the bus stop".
		s.neg++
		return
	case s.cancels(i):
		s.neg++
		return
	}
	name := s.isName(i) || s.numbered[i]
	if (w == "to" || w == "from") && s.nameAhead(i+1) {
		// A direction to or from a place or person is part of what the
		// item is about: the train to Leeds is not the one from Leeds.
		s.a.Frame = append(s.a.Frame, Word{Stem: w, Text: t.raw, at: i})
		return
	}
	if !name && (modals[w] || stopwords[w] || w == "") {
		return
	}
	if !name && s.a.typ == tenure.StateDecision && choiceVerbs[w] {
		return
	}
	if !name && s.a.typ == tenure.StateRisk && riskVerbs[w] {
		return
	}
	if _, ok := numberWords[w]; ok && !name {
		return
	}
	if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return
	}
	if p := s.low(i + 1); !name && particles[p] && !s.toks[i+1].used {
		if v, ok := verbCanon[stem(w)+"_"+p]; ok {
			s.toks[i+1].used = true
			s.a.Frame = append(s.a.Frame, Word{Stem: v, Text: t.raw + " " + s.toks[i+1].raw, Verb: true, at: i})
			return
		}
		if st := s.phrasal(i, p); st != "" {
			// A phrasal verb WordNet knows ("held up" is "hold up"), so
			// that it meets its synonyms ("delay"). It is a verb where
			// its verb would be one.
			s.toks[i+1].used = true
			verb := !articles[s.low(i-1)] && !beForms[s.low(i+2)] && !modals[s.low(i+2)] &&
				(verbStems[s.canon(i)] || i == 0 && s.imperative())
			s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: strings.ReplaceAll(st, "_", " "), Verb: verb, at: i})
			return
		}
	}
	if k := s.splitParticle(i); !name && k > 0 {
		// "Pass the ticket on to engineering" passes it on.
		if st := s.phrasal(i, s.low(k)); st != "" {
			s.toks[k].used = true
			s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: t.raw + " " + s.toks[k].raw,
				Verb: verbStems[s.canon(i)] || i == 0 && s.imperative(), at: i})
			return
		}
	}
	if colors[w] || (w == "light" || w == "dark" || w == "pale") && colors[s.low(i+1)] {
		name = true
	}
	if !name && s.compound(i) {
		return
	}
	st := s.canon(i)
	// After an article a verb's form is a noun or its modifier ("the
	// draft contract", "the water bill"), and before "is" or "must" it
	// is the subject ("Rent is due").
	verb := !name && !articles[s.low(i-1)] && !beForms[s.low(i+1)] && !modals[s.low(i+1)] &&
		(verbStems[st] || i == 0 && s.imperative() || s.afterModal(i))
	s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: t.raw, Name: name && s.a.typ != tenure.StateQuestion,
		Verb: verb, at: i})
}

// afterModal reports whether token i follows a modal or a negated
// auxiliary ("may fill", "must not leave", "won't take") and WordNet
// knows it as a verb: then it is one, whatever the lexicon knows.
func (s *scanner) afterModal(i int) bool {
	prev := s.low(i - 1)
	if prev == "not" || prev == "never" {
		prev = s.low(i - 2)
	}
	return (modalVerbs[prev] || negatedAux[prev]) && wordnet.Known(s.low(i), wordnet.Verb)
}

// modalVerbs are the modal auxiliaries, after which a verb comes.
var modalVerbs = fields(`must should shall can could may might would will cannot`)

// negatedAux are the negated auxiliaries, after which a verb comes.
var negatedAux = fields(`can't won't don't doesn't didn't mustn't shouldn't couldn't wouldn't`)

// phrasal returns the comparison form of the verb at token i with the
// particle p when they make a phrasal verb the lexicon or WordNet knows,
// or "". The verb is read as written and as its group's verb ("ring
// back" is "call back").
func (s *scanner) phrasal(i int, p string) string {
	w, canon := s.low(i), s.canon(i)
	for _, v := range []string{stem(w), canon} {
		if st, ok := verbCanon[v+"_"+p]; ok {
			return st
		}
	}
	for _, v := range []string{w, canon} {
		if base := phrasalVerb(v, p); base != "" {
			return base + "_" + p
		}
	}
	return ""
}

// splitParticle returns the token of the particle that closes the object
// of a verb at token i ("pass the ticket on to engineering", "take the
// recycling out"), or 0: the object opens with a determiner and holds a
// few plain words, and the particle ends the text or comes before a
// preposition, where it cannot open a phrase of its own.
func (s *scanner) splitParticle(i int) int {
	if !determiners[s.low(i+1)] || articles[s.low(i-1)] || determiners[s.low(i-1)] {
		return 0
	}
	for k := i + 2; k < len(s.toks) && k <= i+1+maxSplitObject; k++ {
		w := s.low(k)
		if particles[w] && !s.toks[k].used {
			if next := s.low(k + 1); k > i+2 && (next == "" || afterParticle[next]) {
				return k
			}
			return 0
		}
		if s.toks[k].used || stopwords[w] || !isWordy(w) {
			return 0
		}
	}
	return 0
}

// maxSplitObject is how many words the object between a verb and its
// particle may have.
const maxSplitObject = 3

// afterParticle are the words that may follow a particle that closes a
// verb's object.
var afterParticle = fields(`to at by for on in before after until till from with this next tonight today
	tomorrow every each`)

// cancels reports whether token i cancels what a decision or an action
// governs: an order ("Cancel the matinee", "we should scrap the paper
// timesheets") or a passive ("the class is cancelled", "get rid of the
// membership"). "Drop" cancels only as an order of an item that states no
// quantity: "drop the price to £1" lowers it.
func (s *scanner) cancels(i int) bool {
	w, prev := s.low(i), s.low(i-1)
	if !cancellations[w] || s.a.typ != tenure.StateDecision && s.a.typ != tenure.StateAction {
		return false
	}
	if w == "drop" {
		return i == 0 && !slices.ContainsFunc(s.a.Facets, func(f Facet) bool { return f.Kind == Quantity })
	}
	return i == 0 || modals[prev] || beForms[prev] || prev == "to" || prev == "get" || prev == "got" || prev == "let's"
}

// compound reads token i, when it is a hyphenated word of plain parts, as
// the words it joins, so that a modifier reads the same before a noun and
// after it ("the third-floor corridor", "the corridor on the third
// floor") and a noun made of a phrasal verb as the verb ("check-out" is
// "check out"). It reports whether it did.
func (s *scanner) compound(i int) bool {
	parts := strings.Split(s.toks[i].low, "-")
	if len(parts) < 2 || slices.ContainsFunc(parts, func(p string) bool { return len(p) < 2 || !isWordy(p) }) {
		return false
	}
	if len(parts) == 2 && particles[parts[1]] {
		st := s.canonOf(i, parts[0])
		if v, ok := verbCanon[stem(parts[0])+"_"+parts[1]]; ok {
			st = v
		} else if base := phrasalVerb(parts[0], parts[1]); base != "" {
			st = base + "_" + parts[1]
		}
		s.a.Frame = append(s.a.Frame, Word{Stem: st, Text: s.toks[i].raw, Verb: true, at: i})
		return true
	}
	for _, p := range parts {
		if p == "non" {
			// "non-refundable" is "not refundable".
			s.neg++
			continue
		}
		if stopwords[p] || modals[p] {
			continue
		}
		// The parts of a compound name a thing, whatever their words
		// ("the save-the-date cards", "a walk-in fridge").
		s.a.Frame = append(s.a.Frame, Word{Stem: s.canonOf(i, p), Text: p, at: i})
	}
	return true
}

// imperative reports whether the text opens with a verb: its first word
// is followed by an article, a pronoun, a number or a name ("Reship the
// order", "Label 2,000 tickets").
func (s *scanner) imperative() bool {
	switch s.low(1) {
	case "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their",
		"its", "all", "some", "every", "each", "any", "me", "us", "him", "them", "it":
		return true
	}
	return len(s.toks) > 1 && (s.isName(1) || s.toks[1].used)
}

// nameAhead reports whether token i, or the one after an article at i,
// is a name.
func (s *scanner) nameAhead(i int) bool {
	if w := s.low(i); w == "the" || w == "a" || w == "an" {
		i++
	}
	return i < len(s.toks) && s.isName(i)
}

// canon is the comparison form of token i.
func (s *scanner) canon(i int) string { return s.canonOf(i, s.toks[i].low) }

// canonOf is the comparison form of w, token i or a part of it.
func (s *scanner) canonOf(i int, w string) string {
	if a, ok := aliases[w]; ok {
		w = a
	}
	if s.isName(i) {
		return w
	}
	if v, ok := irregulars[w]; ok {
		w = v
	}
	if syn, ok := synonyms[w]; ok {
		w = syn
	}
	st := stem(w)
	if n, ok := nounCanon[st]; ok && determiners[s.low(i-1)] {
		// "a call" is a meeting; "call Tom" is not.
		return n
	}
	if v, ok := verbCanon[st]; ok {
		return v
	}
	if v := nominalVerb(st); v != "" {
		return v
	}
	if n, ok := nounCanon[st]; ok {
		return n
	}
	// A phrasal verb written as one word is the verb: "a breakdown" is
	// "break down", "the cleanup" "clean up".
	for _, p := range strings.Fields(particleList) {
		if base, ok := strings.CutSuffix(w, p); ok && len(base) > 2 {
			if v, ok := verbCanon[verbStem(base+"_"+p)]; ok {
				return v
			}
		}
	}
	// "reship" is "ship" again, "rerun" is "run" again.
	if rest, ok := strings.CutPrefix(st, "re"); ok && !verbStems[st] && len(rest) > 2 && !notRepeated[w] {
		if v, ok := verbCanon[rest]; ok {
			return v
		}
		if verbStems[rest] {
			return rest
		}
	}
	return st
}

// nominalVerb is the verb a nominalisation's stem names ("submiss" of
// "submission" is "submit", "decis" is "decide", "shipment" is "ship"),
// or "" when the stem is no known verb's noun.
func nominalVerb(st string) string {
	var cands []string
	if b, ok := strings.CutSuffix(st, "iss"); ok {
		cands = append(cands, b+"it")
	}
	if b, ok := strings.CutSuffix(st, "s"); ok && len(b) > 3 {
		cands = append(cands, b+"d")
	}
	if b, ok := strings.CutSuffix(st, "ment"); ok && len(b) > 2 {
		cands = append(cands, b)
	}
	for _, c := range cands {
		if v, ok := verbCanon[c]; ok {
			return v
		}
		if verbStems[c] {
			return c
		}
	}
	return ""
}

// nounCanon maps the stem of every noun of nounGroups to the stem of its
// group's first noun.
var nounCanon = func() map[string]string {
	m := map[string]string{}
	for _, g := range nounGroups {
		head := english.Stem(g[0], false)
		for _, n := range g {
			m[english.Stem(n, false)] = head
		}
	}
	return m
}()

// verbCanon maps the stem of every verb of verbGroups to the stem of its
// group's first verb, and verbStems holds the stems of every known verb.
var verbCanon, verbStems = func() (map[string]string, map[string]bool) {
	canon, all := map[string]string{}, map[string]bool{}
	for _, g := range verbGroups {
		head := verbStem(g[0])
		for _, v := range g {
			canon[verbStem(v)] = head
			all[head] = true
		}
	}
	for v := range verbs {
		all[verbStem(v)] = true
		if _, grouped := canon[verbStem(v)]; !grouped && strings.Contains(v, "_") {
			canon[verbStem(v)] = verbStem(v)
		}
	}
	return canon, all
}()

// verbStem stems a verb, each part of a phrasal one ("set_up").
func verbStem(v string) string {
	parts := strings.Split(v, "_")
	parts[0] = english.Stem(parts[0], false)
	return strings.Join(parts, "_")
}

// stem stems an English word, hyphenated parts one by one.
func stem(w string) string {
	if a, ok := aliases[w]; ok {
		w = a
	}
	if v, ok := irregulars[w]; ok {
		w = v
	}
	if syn, ok := synonyms[w]; ok {
		w = syn
	}
	parts := strings.Split(w, "-")
	for i, p := range parts {
		parts[i] = english.Stem(p, false)
	}
	return strings.Join(parts, "-")
}

// knownNames are product names often written in lowercase or first in a
// sentence, where capitals do not tell them apart.
var knownNames = fields(`postgresql postgres redis memcached kafka clickhouse mongodb mysql sqlite
	dynamodb elasticsearch rabbitmq nats terraform pulumi kubernetes docker vercel netlify heroku aws
	gcp azure github gitlab jenkins grafana datadog sentry stripe adyen slack jira notion figma zendesk
	intercom mixpanel posthog segment snowflake bigquery redshift airflow dbt superset metabase`)

// isName reports whether token i is a name: capitalised where a sentence
// does not start, written with capitals or digits inside, or a known
// product name; never a common acronym ("API", "SSO").
func (s *scanner) isName(i int) bool {
	t := s.toks[i]
	w := t.low
	if commonAcronyms[w] || w == "i" || w == "" {
		return false
	}
	if knownNames[w] {
		return true
	}
	r, size := utf8.DecodeRuneInString(t.raw)
	rest := t.raw[size:]
	inner := strings.IndexFunc(rest, unicode.IsUpper) >= 0
	letters := strings.IndexFunc(t.raw, unicode.IsLetter) >= 0
	digits := strings.IndexFunc(t.raw, unicode.IsDigit) >= 0
	_, month := months[w]
	switch {
	case letters && digits, inner && strings.IndexFunc(rest, unicode.IsLower) >= 0:
		return true // "us-east-1", "ClickHouse", "iOS"
	case !unicode.IsUpper(r), month, weekdays[w] != "":
		// A month or weekday that is not a date of the item modifies a
		// noun: "the March invoice".
		return false
	case inner:
		return true
	}
	return i > 0 && !slices.Contains([]string{".", ":"}, s.toks[i-1].raw[len(s.toks[i-1].raw)-1:])
}
