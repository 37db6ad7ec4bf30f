package temporal

import "strings"

// direction is the way a date lies from the message that names it.
type direction int8

// Directions.
const (
	undirected direction = iota
	ahead                // a plan or a deadline: "I'll call on Friday", "by March 14"
	behind               // a report of the past: "on Friday I went", "Tuesday was rough"
)

// cueWindow bounds how many words on each side of an expression are read
// for cues: a sentence's verb is near its dates, and a text of one long
// sentence full of weekdays must not cost quadratic time.
const cueWindow = 24

// direction says which way the phrase from start to end (exclusive) points,
// from the words around it, in this order:
//
//  1. the nearest tense cue in its clause: a future or plan word (will,
//     'll, going, plan, scheduled, due, deadline, until, next, tomorrow,
//     want, need, ...) says ahead; a past-tense verb (was, did, went, a
//     regular verb in -ed, ...) or a word of the past (ago, last,
//     yesterday, recently) says behind. Verbs that report or arrange
//     rather than tell (said, told, promised, booked, moved, ...) are not
//     cues: "he said he'd finish by Friday" is a plan;
//  2. the word right before it: "by", "for", "before" say ahead (a
//     deadline or a target), "since" behind;
//  3. the nearest tense cue in the rest of its sentence;
//  4. a present tense in its clause (is, are, 'm, do): ahead, as a
//     schedule is ("the party is on Friday").
//
// A clause ends at ':' and before and, but, because, while, though, or,
// then and a "so" after a comma; a sentence at '.', '!', '?', ';' and line
// breaks. Where the two cues are equally near, the one before the phrase
// wins. With no cue the result is undirected, and the caller's default
// applies.
func (s *scanner) direction(start, end int) direction {
	lo, hi := start, end
	for lo > 0 && start-lo < cueWindow && !s.sentenceBreak(lo) {
		lo--
	}
	for hi < len(s.toks) && hi-end < cueWindow && !s.sentenceBreak(hi) {
		hi++
	}
	clo, chi := start, end
	for clo > lo && !s.clauseBreak(clo) {
		clo--
	}
	for chi < hi && !s.clauseBreak(chi) {
		chi++
	}
	if d := s.nearestCue(start, end, clo, chi); d != undirected {
		return d
	}
	if start > clo && s.toks[start].spaced {
		switch s.toks[start-1].kind {
		case kBy, kBefore:
			return ahead
		case kSince:
			return behind
		}
	}
	if d := s.nearestCue(start, end, lo, hi); d != undirected {
		return d
	}
	for k := clo; k < chi; k++ {
		if (k < start || k >= end) && s.toks[k].kind == kPresent {
			return ahead
		}
	}
	return undirected
}

// nearestCue returns the direction of the tense cue nearest the phrase
// from start to end among the words from lo to hi, those before it first.
func (s *scanner) nearestCue(start, end, lo, hi int) direction {
	for d := 1; start-d >= lo || end-1+d < hi; d++ {
		if k := start - d; k >= lo {
			if c := s.cue(k); c != undirected {
				return c
			}
		}
		if k := end - 1 + d; k < hi {
			if c := s.cue(k); c != undirected {
				return c
			}
		}
	}
	return undirected
}

// cue is the direction the word at k gives the dates of its clause.
func (s *scanner) cue(k int) direction {
	switch s.toks[k].kind {
	case kFutureCue, kTomorrow, kNext:
		return ahead
	case kPastCue, kYesterday, kLast, kAgo:
		return behind
	case kWon:
		// "won't" is two words: "won" and "t".
		if k+1 < len(s.toks) && (s.gapIs(k+1, "'") || s.gapIs(k+1, "’")) {
			if t := s.toks[k+1]; t.end-t.start == 1 && s.text[t.start]|0x20 == 't' {
				return ahead
			}
		}
		return behind
	case kOther:
		if s.pastTense(k) {
			return behind
		}
	}
	return undirected
}

// pastTense reports whether the word at k reads as a regular verb in the
// past tense: a word of four letters or more in -ed (not -eed: "need",
// "speed"), unless a present form of "be" or "get" comes before it, next
// to it or one word away, where it is an adjective ("I'm excited", "we're
// really excited", "getting married").
func (s *scanner) pastTense(k int) bool {
	t := s.toks[k]
	w := s.text[t.start:t.end]
	n := len(w)
	if n < 4 || w[n-2]|0x20 != 'e' || w[n-1]|0x20 != 'd' || w[n-3]|0x20 == 'e' {
		return false
	}
	for j := k - 1; j >= max(0, k-2) && s.toks[j+1].spaced; j-- {
		prev := s.toks[j]
		if prev.kind == kPresent {
			return false
		}
		w := s.text[prev.start:prev.end]
		for _, be := range [...]string{"be", "being", "get", "gets", "getting"} {
			if strings.EqualFold(w, be) {
				return false
			}
		}
	}
	return true
}

// sentenceBreak reports whether a sentence ends between the word at k and
// the one before; a ';' ends one as well as a '.' does.
func (s *scanner) sentenceBreak(k int) bool {
	return strings.ContainsAny(s.text[s.toks[k-1].end:s.toks[k].start], ".!?;\n")
}

// clauseBreak reports whether a clause ends between the word at k and the
// one before: a sentence ends, a ':' separates them, or the word at k
// joins a new clause ("and", "because", ", so").
func (s *scanner) clauseBreak(k int) bool {
	return s.toks[k].kind == kBoundary || s.toks[k].kind == kSo && s.gapIs(k, ",") ||
		strings.ContainsAny(s.text[s.toks[k-1].end:s.toks[k].start], ".!?\n;:")
}
