package extract

import (
	"slices"
	"strings"

	"github.com/tenure-dev/tenure/wordnet"
)

// A short answer to an either-or question often names its option in
// other words than the question's: a plural for a singular ("Volunteer
// drivers" for "a volunteer driver scheme"), a part of it ("6:30" for
// "keeping the swim at 6:30"), or a paraphrase that drops a word ("One
// shared main with fish on the side"). phrasedOption and stemOption find
// the option by
// the stems of the answer's words, and says the choice in full: the
// option's own verb phrase, the topic the question put first, or the
// pick with what the option says of its purpose.

// Either-or questions by structure: options that are verb phrases after
// the subject ("are we keeping the swim at 6:30 or pushing it to 7?"),
// and short options listed after a topic ("what are we doing about the
// lockers, coin or app?").
var (
	verbOptionsRe  = mustPattern(`(?i)\b(?:are|do|should|shall|will|can|could|would)\s+(?:we|i|you)\s+([a-z]+)\s+([^,?]+?)\s+or\s+([^,?]+?)\s*\?`)
	topicOptionsRe = mustPattern(`(?i)^(.+?),\s+([^,]{1,40}?)\s+or\s+([^,?]{1,40}?)\s*\?$`)
	// topicRe is what a question that lists options asks about: "the
	// ticket price" of "what's the ticket price, ten or fifteen?", "the
	// lockers" of "what are we doing about the lockers, ...?".
	topicRe      = mustPattern(`(?i)^(?:what|which)(?:'s|\s+is|\s+are|\s+was)\s+((?:the|our|your|their)\s+.+)$`)
	topicAboutRe = mustPattern(`(?i)^(?:what|how|which)\b.*?\b(?:about|with|for)\s+((?:the|our|your|their)\s+.+)$`)
)

// wishVerbs ask which option the listener wants, and are no part of the
// option: "would you like a replacement or a refund?" "A replacement" is
// not "Like a replacement".
var wishVerbs = set(`like, want, prefer, need, fancy`)

// maxListedOptionWords is the longest option a topic question lists.
const maxListedOptionWords = 3

// phrasedOption is the choice a pick makes when q's options are verb
// phrases or a list after a topic, said in full; or "".
func phrasedOption(q, pick string) string {
	ps := pickKeys(pick)
	if len(ps) == 0 {
		return ""
	}
	if m := verbOptionsRe.FindStringSubmatch(q); m != nil && !wishVerbs[lower(m[1])] {
		a, b := m[1]+" "+m[2], m[3]
		switch {
		case len(words(b)) == 1 && stemsIn(ps, b) && !stemsIn(ps, a) && verbLike(m[1]) && len(words(m[2])) > 1:
			// "Should we paint the wall grey or white?" "White": the
			// word the second option puts in the place of the first's
			// last.
			rest := tidy(m[2])
			if k := strings.LastIndex(rest, " "); k > 0 {
				return capitalize(ingBase(m[1]) + " " + rest[:k] + " " + tidy(b))
			}
		case stemsIn(ps, a) && !stemsIn(ps, b) && verbLike(m[1]):
			// "6:30" of "are we keeping the swim at 6:30 or pushing it
			// to 7?": keep the swim at 6:30.
			return capitalize(ingBase(m[1]) + " " + tidy(m[2]))
		case stemsIn(ps, b) && !stemsIn(ps, a) && verbLike(firstWord(b)) && strings.HasSuffix(firstWord(b), "ing") == strings.HasSuffix(lower(m[1]), "ing"):
			v, rest, _ := strings.Cut(tidy(b), " ")
			return capitalize(strings.TrimSpace(ingBase(v) + " " + rest))
		}
	}
	if m := topicOptionsRe.FindStringSubmatch(q); m != nil && len(words(m[2])) <= maxListedOptionWords && len(words(m[3])) <= maxListedOptionWords {
		a, b := m[2], m[3]
		if stemsIn(ps, a) != stemsIn(ps, b) {
			if t := questionTopic(m[1]); t != "" {
				// "Coin" of "what are we doing about the changing room
				// lockers, coin or app?".
				return capitalize(t) + ": " + tidy(pick)
			}
		}
	}
	return ""
}

// stemOption is the choice a pick makes when the stems of its words are
// those of one side of q's either-or question and not of the other: the
// pick, with what that side says of its purpose; or "".
func stemOption(q, pick string) string {
	ps := pickKeys(pick)
	if len(ps) == 0 {
		return ""
	}
	opts := eitherSides(q)
	if opts == nil {
		return ""
	}
	a, b := opts[0], opts[1]
	var side string
	switch {
	case stemsIn(ps, a) && !stemsIn(ps, b):
		side = a
	case stemsIn(ps, b) && !stemsIn(ps, a):
		side = b
	default:
		return ""
	}
	return capitalize(tidy(pick)) + purposeTail(side, ps, pick)
}

// questionTopic is what a question that lists options asks about, or "".
func questionTopic(head string) string {
	head = tidy(head)
	if k := strings.LastIndex(head, ": "); k >= 0 {
		head = head[k+2:]
	}
	for _, re := range []*pattern{topicRe, topicAboutRe} {
		if m := re.FindStringSubmatch(head); m != nil && hasContentWord(m[1]) && len(words(m[1])) <= 6 {
			return tidy(m[1])
		}
	}
	return ""
}

// eitherSides are the two sides of the either-or question of q: from the
// start of its clause to " or ", and from there to the question mark or
// the next comma; nil when q has none.
func eitherSides(q string) []string {
	q = strings.TrimSpace(q)
	k := strings.Index(lower(q), " or ")
	if k < 0 {
		return nil
	}
	left := strings.TrimRight(q[:k], ", ")
	if c := strings.LastIndexAny(left, ",:;"); c >= 0 {
		left = left[c+1:]
	}
	right := q[k+len(" or "):]
	if e := strings.IndexAny(right, ",?"); e >= 0 {
		right = right[:e]
	}
	if !hasContentWord(left) || !hasContentWord(right) {
		return nil
	}
	return []string{left, right}
}

// purposeTail is what an option says after the words a pick names, from
// its first preposition: " for the physio trips" of "a volunteer driver
// scheme work for the physio trips" for "Volunteer drivers". It is ""
// when the pick says it already or the option has none.
func purposeTail(side string, ps []string, pick string) string {
	ws := strings.Fields(tidy(side))
	last := -1
	for i, w := range ws {
		if st := contentWords(w); len(st) == 1 && slices.Contains(ps, st[0]) {
			last = i
		}
	}
	if last < 0 {
		return ""
	}
	for i := last + 1; i < len(ws); i++ {
		if !tailPreps[lower(ws[i])] {
			continue
		}
		tail := strings.Join(ws[i:], " ")
		if !hasContentWord(tail) || len(ws)-i > 6 || containsWords(pick, tail) {
			return ""
		}
		return " " + tail
	}
	return ""
}

// pickKeys are the words an option must hold to be the one a pick names:
// its content words' stems, and its numbers ("one course" is not "two
// courses").
func pickKeys(pick string) []string {
	// ("check-ins" stems to "check" and "in", and "in" says nothing.)
	ks := slices.DeleteFunc(contentWords(pick), func(k string) bool { return stopwords[k] })
	for _, w := range words(pick) {
		if numberWordRe.MatchString(w) && !slices.Contains(ks, w) {
			ks = append(ks, w)
		}
	}
	return ks
}

// numberWordRe is a number, in digits or words.
var numberWordRe = mustPattern(`(?i)^(?:` + numberWords + `)$`)

// stemsIn reports whether every key of ps is a stem or a number of s.
func stemsIn(ps []string, s string) bool {
	ss := pickKeys(s)
	for _, p := range ps {
		if !slices.Contains(ss, p) {
			return false
		}
	}
	return true
}

// verbLike reports whether w may be a verb: WordNet knows it, or its -ing
// form's base, as one.
func verbLike(w string) bool {
	w = lower(w)
	return wordnet.Known(w, wordnet.Verb) || strings.HasSuffix(w, "ing") && wordnet.Known(ingBase(w), wordnet.Verb)
}
