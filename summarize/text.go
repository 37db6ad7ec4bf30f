package summarize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure/retrieve"
)

// splitSentences splits text into sentences with collapsed white space: at
// a run of '.', '!' or '?' followed by white space or the end (closing
// quotes and brackets stay with the sentence), and at line breaks; not
// after an abbreviation or an initial ("Dr.", "J."), nor at an ellipsis.
// Bullets ("- ", "* ", "• ") starting a line are dropped. Splitting a
// sentence it returned returns that sentence again.
func splitSentences(text string) []string {
	var out []string
	for line := range strings.SplitSeq(strings.ToValidUTF8(text, "\uFFFD"), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		for _, b := range []string{"- ", "* ", "• "} {
			line = strings.TrimPrefix(line, b)
		}
		start := 0
		for i := 0; i < len(line); {
			c := line[i]
			if c != '.' && c != '!' && c != '?' {
				i++
				continue
			}
			j := i
			for j < len(line) && (line[j] == '.' || line[j] == '!' || line[j] == '?') {
				j++
			}
			run := line[i:j]
			for j < len(line) && strings.ContainsRune(`"')]`, rune(line[j])) {
				j++
			}
			for _, q := range []string{"”", "’"} {
				j += len(q) * boolInt(strings.HasPrefix(line[j:], q))
			}
			atEnd := j == len(line) || line[j] == ' '
			if atEnd && !isEllipsis(run) && !(run == "." && abbreviated(line[start:i])) {
				if s := strings.TrimSpace(line[start:j]); s != "" {
					out = append(out, s)
				}
				start = j
			}
			i = j
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isEllipsis(run string) bool {
	return len(run) > 1 && strings.Trim(run, ".") == ""
}

// abbreviated reports whether text, a sentence so far, ends with a word
// that a period abbreviates.
func abbreviated(text string) bool {
	w := text[strings.LastIndexByte(text, ' ')+1:]
	if r, n := utf8.DecodeRuneInString(w); n == len(w) && unicode.IsUpper(r) {
		return true // an initial
	}
	return abbreviations[strings.ToLower(w)]
}

var abbreviations = set(`mr mrs ms dr prof st sr jr vs etc e.g i.e inc ltd co mt approx dept fig`)

// token is a word of a sentence: a run of letters and digits with inner
// apostrophes and hyphens. Text has curly apostrophes straightened.
type token struct {
	text, lower string
	// joined reports that a single space separates it from the previous
	// token.
	joined bool
}

func tokenize(s string) []token {
	var out []token
	prevEnd := -1
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += n
			continue
		}
		start := i
		var b strings.Builder
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(r)
				i += n
				continue
			}
			if r == '\'' || r == '’' || r == '-' {
				if r2, _ := utf8.DecodeRuneInString(s[i+n:]); i+n < len(s) && (unicode.IsLetter(r2) || unicode.IsDigit(r2)) {
					if r == '’' {
						r = '\''
					}
					b.WriteRune(r)
					i += n
					continue
				}
			}
			break
		}
		t := b.String()
		out = append(out, token{text: t, lower: strings.ToLower(t), joined: prevEnd >= 0 && s[prevEnd:start] == " "})
		prevEnd = i
	}
	return out
}

// terms returns the distinct stems of a sentence's content words: not stop
// words, contractions or single letters.
func terms(toks []token) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range toks {
		w := strings.TrimSuffix(t.lower, "'s")
		if strings.ContainsRune(w, '\'') || (utf8.RuneCountInString(w) == 1 && !unicode.IsDigit(rune(w[0]))) {
			continue
		}
		if retrieve.IsStopWord(w) || chatStopWords[w] {
			continue
		}
		st := retrieve.Stem(w)
		if !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

// chatStopWords are words of casual talk that carry no topic, on top of
// the retrieval stop words.
var chatStopWords = set(`like think know thing things want wanted going gonna lot well sure thanks thank yes hi hello
	hey lol haha hahaha cool great good nice awesome amazing maybe mean one would could sound sounds feel felt much
	many make made really actually pretty kind sort something anything everything nothing stuff right totally
	definitely wow glad happy hope always never even still though say said tell told see look looks way time
	bit guess probably let us can also yep yup nope hmm ah uh um anyway btw`)

// Lexicons.
var (
	positiveWords = set(`good great happy glad love loved lovely excited exciting awesome amazing wonderful thanks
		thank grateful proud fun enjoy enjoyed enjoying nice fantastic relieved hopeful excellent perfect beautiful
		yay congrats congratulations pleased calm better best lucky brilliant cheerful delighted thrilled inspired
		inspiring supportive success successful win won`)
	negativeWords = set(`bad sad angry upset worried worry worrying anxious anxiety stressed stress stressful tired
		exhausted frustrated frustrating annoyed annoying hate terrible awful horrible sorry afraid scared lonely
		hurt pain painful difficult problem problems fail failed failure lost sick depressed disappointed
		disappointing overwhelmed nervous worse worst cry crying struggle struggling miserable broke unfortunately`)
	negators = set(`not no never don't didn't doesn't isn't wasn't aren't weren't can't cannot couldn't won't
		wouldn't shouldn't haven't hasn't hardly`)
	dateWords = set(`monday tuesday wednesday thursday friday saturday sunday january february april june july
		august september october november december tomorrow tonight yesterday today weekend noon midnight`)
	// notNames are capitalized words that are not people.
	notNames = set(`i i'm i've i'd i'll monday tuesday wednesday thursday friday saturday sunday january february
		march april may june july august september october november december christmas easter halloween
		thanksgiving god english american british french german spanish internet tv ok okay mr mrs ms dr prof
		yesterday today tomorrow tonight anyway also well so hey hi hello thanks thank yes no maybe honestly
		actually oh wow great sure congrats congratulations happy dear good nice cool sorry please plus then now
		last next this that my our your his her their its the a an and but or if when what why how who where
		which just lol haha omg btw fyi`)
	// placePrepositions precede places more often than people.
	placePrepositions = set(`in at near around across inside outside visiting visit visited toward towards`)
	// motionWords precede "to" or "from" and a place.
	motionWords = set(`move moved moving moves go goes going went gone come comes coming came fly flew flying
		flown drive drove driving travel traveled travelled traveling travelling trip trips flight flights
		relocate relocated relocating back way road train bus return returned returning drove commute`)
	yesNo       = set(`yes yeah yep yup sure no nope nah definitely absolutely certainly course not never`)
	polarStarts = set(`do does did is are was were can could will would should shall have has had am may might`)
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// capitalized reports whether a token looks like a proper name: an upper
// case letter followed by at least one lower case one, and no apostrophe.
func capitalized(t token) bool {
	w := strings.TrimSuffix(t.text, "'s")
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) || strings.ContainsRune(w, '\'') || utf8.RuneCountInString(w) < 2 {
		return false
	}
	for _, r := range w {
		if unicode.IsDigit(r) {
			return false
		}
	}
	return strings.IndexFunc(w, unicode.IsLower) >= 0 && !notNames[strings.ToLower(w)]
}

// phrase reports whether the lower-cased, apostrophe-straightened sentence
// contains any of phrases as whole words.
func phrase(lower string, phrases []string) bool {
	for _, p := range phrases {
		for off := 0; ; {
			i := strings.Index(lower[off:], p)
			if i < 0 {
				break
			}
			i += off
			end := i + len(p)
			if edgeBefore(lower, i) && edgeAfter(lower, end) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// edgeBefore reports whether no letter or digit ends at byte i of s.
func edgeBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// edgeAfter reports whether no letter or digit starts at byte i of s.
func edgeAfter(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

var (
	commitmentPhrases = []string{"i'll", "i will", "i'm going to", "i am going to", "i'm gonna", "i plan to",
		"i'm planning to", "i am planning to", "i promise", "i intend to", "we'll", "we will", "we're going to",
		"we are going to"}
	// notCommitments follow a commitment phrase without committing.
	notCommitments  = []string{"not", "never", "be honest", "admit", "bet", "say", "try not", "probably not"}
	decisionPhrases = []string{"decided", "we agreed", "agreed to", "let's", "going with", "the plan is",
		"deadline", "promise", "signed up", "booked", "scheduled"}
)

// commitment reports whether a sentence is a first-person statement about
// the future: "I'll call her", "we're going to move", but not "I'll never
// do it", "I'll be honest" or a question.
func commitment(lower string) bool {
	if strings.HasSuffix(lower, "?") {
		return false
	}
	for _, p := range commitmentPhrases {
		for off := 0; ; {
			i := strings.Index(lower[off:], p)
			if i < 0 {
				break
			}
			i += off
			end := i + len(p)
			off = i + 1
			if !edgeBefore(lower, i) || !edgeAfter(lower, end) {
				continue
			}
			rest := strings.TrimLeft(lower[end:], " ")
			negated := false
			for _, n := range notCommitments {
				if strings.HasPrefix(rest, n) && edgeAfter(rest, len(n)) {
					negated = true
					break
				}
			}
			if !negated && rest != "" && rest[0] != '.' && rest[0] != '!' {
				return true
			}
		}
	}
	return false
}

// straighten lower-cases s and straightens its curly apostrophes.
func straighten(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "’", "'")
}
