package temporal

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// kind is what a word means to the phrase rules. Words the rules never look
// at are kOther, so a rule compares small integers, not strings.
type kind uint8

const (
	kOther kind = iota
	kNumber
	kWeekday   // n is the time.Weekday
	kMonthName // n is the time.Month
	kUnit      // n is a unit below; singular ("week")
	kUnits     // n is a unit below; plural ("weeks")
	kBigNumber // twenty, ..., hundred: "twenty two days ago" is not "two days ago"
	kToday
	kTonight
	kYesterday
	kTomorrow
	kAgo
	kLast
	kThis
	kNext
	kPast
	kOn
	kThe
	kA
	kCouple
	kFew
	kOf
	kBefore
	kAfter
	kNight
	kPartOfDay // morning, afternoon, evening
	kWeekend
	kEvery     // every, each: "every Monday" is a habit, not a date
	kOrdinal   // n is the day: "14th", "1st"
	kMonthAbbr // n is the time.Month: "Mar", "Sept"
	kIn
	kFrom
	kNow
	kComing // "this coming Friday"
	// kWeekdayAbbr is a weekday's abbreviation that is also a word ("Sat",
	// "Sun", "Wed", "Mon"; n is the time.Weekday): tokenize makes it a
	// weekday only where a date is expected (see weekdayAbbr).
	kWeekdayAbbr
	// Words that say which way a date lies from the message (see cue.go).
	kBy        // by, before, for: a deadline or a target, right before a date
	kSince     // since, right before a date: it lies behind
	kFutureCue // will, going, plan, due, until, ...: what follows is ahead
	kPastCue   // was, did, went, ...: what the clause tells is behind
	kPresent   // is, are, 'm, 're, 's, do: a present-tense plan or schedule
	kNeutral   // said, told, booked, ...: a past verb that tells nothing of the date
	kWon       // "won" is past, "won't" future
	kBoundary  // and, but, because, ...: a clause ends before it
	kSo        // "so": a clause ends before it after a comma ("..., so I want"), not in "so excited"
)

// Units of kUnit words.
const (
	unitDay = iota
	unitWeek
	unitMonth
	unitYear
)

// maxDigits bounds "N days ago": longer numbers are not counts of days in
// chat, and the bound keeps date arithmetic far from overflow.
const maxDigits = 4

// token is one word of the text.
type token struct {
	start, end int // byte offsets into the text
	n          int16
	kind       kind
	// spaced reports that only white space separates the word from the
	// previous one, so that a phrase never spans punctuation
	// ("the last. Week two ..." is not "last week").
	spaced bool
}

// lexer yields the words of a text: maximal runs of letters, digits, marks
// and underscores, the characters a regexp's \b treats as word characters,
// extended to Unicode so that "todayé" is one word, not "today". Invalid
// UTF-8 separates words like punctuation does.
type lexer struct {
	s   string
	pos int
}

// next returns the next word's offsets, or ok false at the end.
func (l *lexer) next() (start, end int, ok bool) {
	s := l.s
	i := l.pos
	for i < len(s) {
		// ASCII is tested inline: it is most of the text, and the
		// prefilter's cost is this loop.
		if c := s[i]; c < utf8.RuneSelf {
			if asciiWord[c] {
				break
			}
			i++
			continue
		}
		n, w := wordRune(s, i)
		if w {
			break
		}
		i += n
	}
	if i >= len(s) {
		l.pos = i
		return 0, 0, false
	}
	start = i
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				break
			}
			i++
			continue
		}
		n, w := wordRune(s, i)
		if !w {
			break
		}
		i += n
	}
	l.pos = i
	return start, i, true
}

// asciiWord marks the ASCII word characters.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
	}
	return t
}()

// wordRune reports the size of the character at s[i], which is not ASCII,
// and whether it is a word character.
func wordRune(s string, i int) (size int, word bool) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError {
		return size, false
	}
	return size, unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// onlySpace reports whether s is all white space.
func onlySpace(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// trigger reports whether a word of kind k can start or end a phrase. Every
// rule contains one, so a text without any resolves to nothing and needs no
// further work.
func trigger(k kind) bool {
	switch k {
	case kToday, kTonight, kYesterday, kTomorrow, kAgo, kLast, kThis, kNext, kWeekday,
		kMonthName, kMonthAbbr, kUnit, kUnits, kWeekdayAbbr:
		return true
	}
	return false
}

// maxWord is the length of the longest word in classify's table
// ("rescheduled"); maxTrigger is that of the longest trigger word
// ("yesterday", "wednesday", "september").
const (
	maxWord    = 11
	maxTrigger = 9
)

// classify says what the word w means to the rules. Only ASCII words are in
// the table, so lowercasing is a byte operation.
func classify(w string) (kind, int) { return lookup(w, true) }

// lookup is classify, reading the words that are only cues (see cueWord)
// when cues is set: the prefilter looks for triggers, never cues.
func lookup(w string, cues bool) (kind, int) {
	if len(w) > maxWord {
		return kOther, 0
	}
	if c := w[0]; '0' <= c && c <= '9' {
		return classifyNumber(w)
	}
	var buf [maxWord]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z':
		default:
			return kOther, 0
		}
		buf[i] = c
	}
	switch string(buf[:len(w)]) {
	case "today":
		return kToday, 0
	case "tonight":
		return kTonight, 0
	case "yesterday":
		return kYesterday, 0
	case "tomorrow":
		return kTomorrow, 0
	case "ago":
		return kAgo, 0
	case "last":
		return kLast, 0
	case "this":
		return kThis, 0
	case "next":
		return kNext, 0
	case "past":
		return kPast, 0
	case "on":
		return kOn, 0
	case "the":
		return kThe, 0
	case "a", "an":
		return kA, 0
	case "couple":
		return kCouple, 0
	case "few":
		return kFew, 0
	case "of":
		return kOf, 0
	case "before":
		return kBefore, 0
	case "after":
		return kAfter, 0
	case "night":
		return kNight, 0
	case "morning", "afternoon", "evening":
		return kPartOfDay, 0
	case "weekend":
		return kWeekend, 0
	case "every", "each":
		return kEvery, 0
	case "in":
		return kIn, 0
	case "from":
		return kFrom, 0
	case "now":
		return kNow, 0
	case "coming", "upcoming":
		return kComing, 0
	case "by", "for":
		return kBy, 0
	case "since":
		return kSince, 0
	case "jan":
		return kMonthAbbr, int(time.January)
	case "feb":
		return kMonthAbbr, int(time.February)
	case "mar":
		return kMonthAbbr, int(time.March)
	case "apr":
		return kMonthAbbr, int(time.April)
	case "jun":
		return kMonthAbbr, int(time.June)
	case "jul":
		return kMonthAbbr, int(time.July)
	case "aug":
		return kMonthAbbr, int(time.August)
	case "sep", "sept":
		return kMonthAbbr, int(time.September)
	case "oct":
		return kMonthAbbr, int(time.October)
	case "nov":
		return kMonthAbbr, int(time.November)
	case "dec":
		return kMonthAbbr, int(time.December)
	case "won":
		return kWon, 0
	case "so":
		return kSo, 0
	case "and", "but", "because", "while", "though", "although", "whereas", "or", "then":
		return kBoundary, 0
	case "day":
		return kUnit, unitDay
	case "days":
		return kUnits, unitDay
	case "week":
		return kUnit, unitWeek
	case "weeks":
		return kUnits, unitWeek
	case "month":
		return kUnit, unitMonth
	case "months":
		return kUnits, unitMonth
	case "year":
		return kUnit, unitYear
	case "years":
		return kUnits, unitYear
	case "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand":
		return kBigNumber, 0
	case "one":
		return kNumber, 1
	case "two":
		return kNumber, 2
	case "three":
		return kNumber, 3
	case "four":
		return kNumber, 4
	case "five":
		return kNumber, 5
	case "six":
		return kNumber, 6
	case "seven":
		return kNumber, 7
	case "eight":
		return kNumber, 8
	case "nine":
		return kNumber, 9
	case "ten":
		return kNumber, 10
	case "tue", "tues":
		return kWeekday, int(time.Tuesday)
	case "thu", "thur", "thurs":
		return kWeekday, int(time.Thursday)
	case "fri":
		return kWeekday, int(time.Friday)
	case "mon":
		return kWeekdayAbbr, int(time.Monday)
	case "wed":
		return kWeekdayAbbr, int(time.Wednesday)
	case "sat":
		return kWeekdayAbbr, int(time.Saturday)
	case "sun":
		return kWeekdayAbbr, int(time.Sunday)
	case "monday":
		return kWeekday, int(time.Monday)
	case "tuesday":
		return kWeekday, int(time.Tuesday)
	case "wednesday":
		return kWeekday, int(time.Wednesday)
	case "thursday":
		return kWeekday, int(time.Thursday)
	case "friday":
		return kWeekday, int(time.Friday)
	case "saturday":
		return kWeekday, int(time.Saturday)
	case "sunday":
		return kWeekday, int(time.Sunday)
	case "january":
		return kMonthName, int(time.January)
	case "february":
		return kMonthName, int(time.February)
	case "march":
		return kMonthName, int(time.March)
	case "april":
		return kMonthName, int(time.April)
	case "may":
		return kMonthName, int(time.May)
	case "june":
		return kMonthName, int(time.June)
	case "july":
		return kMonthName, int(time.July)
	case "august":
		return kMonthName, int(time.August)
	case "september":
		return kMonthName, int(time.September)
	case "october":
		return kMonthName, int(time.October)
	case "november":
		return kMonthName, int(time.November)
	case "december":
		return kMonthName, int(time.December)
	}
	if !cues {
		return kOther, 0
	}
	return cueWord(string(buf[:len(w)]))
}

// classifyNumber classifies a word that starts with a digit: a number of
// at most maxDigits digits, or an ordinal day ("14th").
func classifyNumber(w string) (kind, int) {
	digits := len(w)
	k := kNumber
	if n := len(w); n >= 3 && n <= 4 {
		switch suffix := string([]byte{w[n-2] | 0x20, w[n-1] | 0x20}); suffix {
		case "st", "nd", "rd", "th":
			digits, k = n-2, kOrdinal
		}
	}
	if digits > maxDigits {
		return kOther, 0
	}
	n := 0
	for i := 0; i < digits; i++ {
		c := w[i]
		if c < '0' || c > '9' {
			return kOther, 0
		}
		n = n*10 + int(c-'0')
	}
	if k == kOrdinal && (n < 1 || n > 31) {
		return kOther, 0
	}
	return k, n
}

// cueWord classifies the words that only tell a date's direction.
func cueWord(w string) (kind, int) {
	switch w {
	case "will", "ll", "shall", "gonna", "going", "plan", "plans", "planning", "scheduled", "due", "deadline",
		"until", "till", "soon", "let", "lets", "hope", "hoping", "want", "wants", "wanna", "need", "needs",
		"must", "should", "can", "intend", "expect":
		return kFutureCue, 0
	case "was", "were", "did", "had", "didn", "wasn", "weren", "hadn", "went", "got", "came", "saw", "made",
		"took", "gave", "met", "felt", "left", "spent", "bought", "brought", "thought", "caught", "taught",
		"found", "ate", "ran", "drove", "flew", "sat", "lost", "wrote", "began", "knew", "slept", "kept",
		"paid", "sold", "sent", "built", "wore", "swam", "sang", "broke", "forgot", "became", "fell", "heard",
		"held", "stood", "recently", "already", "earlier", "haven", "hasn", "ve", "been", "seen":
		return kPastCue, 0
	case "is", "are", "am", "m", "re", "s", "isn", "aren", "do", "does", "don", "doesn":
		return kPresent, 0
	case "said", "told", "asked", "mentioned", "promised", "agreed", "decided", "confirmed", "announced",
		"replied", "texted", "emailed", "messaged", "suggested", "proposed", "reminded", "warned", "explained",
		"noted", "informed", "planned", "expected", "supposed", "booked", "reserved", "arranged", "organized",
		"organised", "invited", "registered", "signed", "moved", "postponed", "rescheduled", "pushed",
		"delayed", "sacred", "naked", "wicked", "beloved":
		return kNeutral, 0
	}
	return kOther, 0
}

// hasTrigger reports whether text has a trigger word. It is the cheap
// prefilter: one pass, no allocation.
func hasTrigger(text string) bool {
	l := lexer{s: text}
	for {
		start, end, ok := l.next()
		if !ok {
			return false
		}
		// Trigger words are 3 to 9 letters long; most words are not
		// looked up at all.
		if n := end - start; n < 3 || n > maxTrigger {
			continue
		}
		if k, _ := lookup(text[start:end], false); trigger(k) {
			return true
		}
	}
}

// weekdayAbbr says what an abbreviation that is also a word means: a
// weekday when it is capitalised and follows, after a space, a word that
// expects a date ("on Sat", "by Wed", "next Mon", "until Sun"), or else
// the word it is otherwise ("I sat down": a past cue; "the sun", "they
// wed in June").
func weekdayAbbr(text string, start, end int, toks []token) kind {
	if c := text[start]; 'A' <= c && c <= 'Z' && len(toks) > 0 && onlySpace(text[toks[len(toks)-1].end:start]) {
		switch toks[len(toks)-1].kind {
		case kOn, kBy, kNext, kLast, kThis, kEvery, kBefore, kAfter, kSince, kComing, kFrom, kFutureCue:
			return kWeekday
		}
	}
	k, _ := cueWord(strings.ToLower(text[start:end]))
	return k
}

// tokenize appends the classified words of text to toks.
func tokenize(text string, toks []token) []token {
	l := lexer{s: text}
	prev := 0
	for {
		start, end, ok := l.next()
		if !ok {
			return toks
		}
		k, n := classify(text[start:end])
		if k == kWeekdayAbbr {
			k = weekdayAbbr(text, start, end, toks)
		}
		toks = append(toks, token{
			start:  start,
			end:    end,
			kind:   k,
			n:      int16(n),
			spaced: len(toks) > 0 && onlySpace(text[prev:start]),
		})
		prev = end
	}
}
