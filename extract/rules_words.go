package extract

import (
	"iter"
	"slices"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/tenure-dev/tenure"
)

// stopwords are the words that say nothing about what an item is about:
// function words, pronouns, auxiliaries, chat filler and the verbs that
// mark an item's type rather than its topic.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then so of to in on at by for from with
		without about into over under up down out off as than too very just also only still even
		again already yet not no nor never this that these those there here it its it's i me my
		mine we us our ours you your yours he him his she her hers they them their theirs one
		someone anyone everyone nobody somebody anybody something anything everything nothing
		be is am are was were been being have has had having do does did doing done will would
		shall should can could may might must need needs i'm i'll i've i'd we're we'll we've we'd
		you're you'll you've he's she's they're they'll let's don't doesn't didn't won't can't
		isn't aren't wasn't weren't haven't hasn't shouldn't wouldn't couldn't what which who whom
		whose when where why how all any both each few more most other some such own same s t
		ok okay yeah yes yep lol haha oh hey hi really actually probably maybe please thanks
		use using used go going went get got make made take want like think know see say said
		sure well now today`) {
		m[w] = true
	}
	return m
}()

// contentWords are the stemmed words of s that are not stopwords.
func contentWords(s string) []string { return slices.Collect(contentStems(s)) }

// contentStems yields the stems of contentWords in order, stemming no more
// words than its caller reads: stemming is the slow part.
func contentStems(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var seen []string
		for _, w := range words(s) {
			w = strings.Trim(w, "'")
			if w == "" || stopwords[w] {
				continue
			}
			if st := english.Stem(w, false); !slices.Contains(seen, st) {
				seen = append(seen, st)
				if !yield(st) {
					return
				}
			}
		}
	}
}

// hasContentWord reports whether contentWords(s) is not empty, which needs
// no stemming.
func hasContentWord(s string) bool {
	return slices.ContainsFunc(words(s), func(w string) bool {
		w = strings.Trim(w, "'")
		return w != "" && !stopwords[w]
	})
}

// countContentWords is len(contentWords(s)), counted up to limit.
func countContentWords(s string, limit int) int {
	n := 0
	for range contentStems(s) {
		if n++; n == limit {
			break
		}
	}
	return n
}

// genericWords are content words too common to tag an item with.
var genericWords = map[string]bool{"write": true, "send": true, "add": true, "update": true,
	"check": true, "book": true, "keep": true, "switch": true, "stay": true, "work": true,
	"finish": true, "start": true, "ask": true, "lend": true, "deadline": true, "risk": true,
	"concern": true, "thing": true, "things": true, "stuff": true, "time": true, "week": true,
	"month": true, "year": true, "day": true, "first": true, "next": true, "last": true,
	"have": true, "make": true, "renew": true, "double": true}

// calendarWords are month and weekday names, which are dates, not topics.
var calendarWords = map[string]bool{"january": true, "february": true, "march": true, "april": true,
	"may": true, "june": true, "july": true, "august": true, "september": true, "october": true,
	"november": true, "december": true, "monday": true, "tuesday": true, "wednesday": true,
	"thursday": true, "friday": true, "saturday": true, "sunday": true}

// units are measures, which read as acronyms but are not topics.
var units = map[string]bool{"kb": true, "mb": true, "gb": true, "tb": true, "ms": true, "km": true,
	"kg": true, "usd": true, "eur": true, "gbp": true, "am": true, "pm": true, "eod": true}

// maxRulesTags is how many topic tags a rules item gets.
const maxRulesTags = 2

// topicTags picks up to two salient words of an item's text: names first
// (words capitalised inside the text, acronyms, identifiers such as
// pg_partman), else its first specific content word. Speakers' names are
// people, not topics.
func topicTags(text string, msgs []tenure.Message) []string {
	var names, plain []string
	for i, tok := range strings.Fields(text) {
		w := strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		w = strings.TrimSuffix(w, "'s")
		lw := strings.ToLower(w)
		if len(w) < 2 || stopwords[lw] || calendarWords[lw] || units[lw] || isNumber(w) || isSpeaker(w, msgs) {
			continue
		}
		switch {
		case isName(w, i):
			if !slices.Contains(names, lw) {
				names = append(names, lw)
			}
		case len(lw) >= 4 && !genericWords[lw] && !strings.Contains(lw, "'"):
			plain = append(plain, lw)
		}
	}
	if len(names) > maxRulesTags {
		names = names[:maxRulesTags]
	}
	if len(names) == 0 && len(plain) > 0 {
		return plain[:1]
	}
	return names
}

// isName reports whether w, the i-th word of a text, reads as a name: an
// acronym or a word with a capital inside, or capitalised when not first.
func isName(w string, i int) bool {
	upper := 0
	for j, r := range w {
		if unicode.IsUpper(r) && (j > 0 || i > 0) {
			upper++
		}
		if r == '_' {
			return true
		}
	}
	return upper > 0
}

func isNumber(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

func isSpeaker(w string, msgs []tenure.Message) bool {
	for i := range msgs {
		if strings.EqualFold(msgs[i].Speaker, w) {
			return true
		}
	}
	return false
}
