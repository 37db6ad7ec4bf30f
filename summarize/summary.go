package summarize

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// Bounds of a SessionSummary, in characters (Unicode code points).
const (
	// MaxItems is the most entries of each list.
	MaxItems = 5
	// MaxItemChars is the longest list entry.
	MaxItemChars = 200
	// MaxOneLinerChars is the longest one-liner.
	MaxOneLinerChars = 160
	// MaxToneChars is the longest tone.
	MaxToneChars = 40
)

// SessionSummary is the structured summary of a closed session, shown in
// the next session's context as "latest session summary".
type SessionSummary struct {
	// OneLiner describes the session in one sentence.
	OneLiner string `json:"one_liner"`
	// WhatMattered lists the key topics and facts.
	WhatMattered []string `json:"what_mattered"`
	// OpenLoops lists questions and matters left unresolved.
	OpenLoops []string `json:"open_loops"`
	// Commitments lists actions someone promised.
	Commitments []string `json:"commitments"`
	// People lists the people who spoke or were mentioned.
	People []string `json:"people"`
	// Tone is the session's emotional quality in a few words. The
	// extractive summarizer writes positive, negative, mixed or neutral.
	Tone string `json:"tone"`
}

// Clamp makes s fit its bounds: it collapses white space, replaces invalid
// UTF-8, drops empty and repeated (case-insensitively) list entries, keeps
// the first MaxItems of each list, and shortens long texts at a word
// boundary, ending them with "…". Nil lists become empty ones, so that the
// JSON form always has arrays.
func (s *SessionSummary) Clamp() {
	s.OneLiner = clampText(s.OneLiner, MaxOneLinerChars)
	s.Tone = clampText(s.Tone, MaxToneChars)
	for _, l := range s.lists() {
		*l.v = clampList(*l.v)
	}
}

// Validate checks that s has a one-liner and fits its bounds. Errors:
// tenure.CodeInvalid for a missing one-liner or an empty list entry,
// tenure.CodeTooLarge for a text or list over its bound; Field names the
// offending field ("one_liner", "people[2]").
func (s *SessionSummary) Validate() error {
	if strings.TrimSpace(s.OneLiner) == "" {
		return tenure.Errorf(tenure.CodeInvalid, "one_liner", "required")
	}
	if n := utf8.RuneCountInString(s.OneLiner); n > MaxOneLinerChars {
		return tenure.Errorf(tenure.CodeTooLarge, "one_liner", "%d characters, more than %d", n, MaxOneLinerChars)
	}
	if n := utf8.RuneCountInString(s.Tone); n > MaxToneChars {
		return tenure.Errorf(tenure.CodeTooLarge, "tone", "%d characters, more than %d", n, MaxToneChars)
	}
	for _, l := range s.lists() {
		if len(*l.v) > MaxItems {
			return tenure.Errorf(tenure.CodeTooLarge, l.name, "%d entries, more than %d", len(*l.v), MaxItems)
		}
		for i, e := range *l.v {
			field := fmt.Sprintf("%s[%d]", l.name, i)
			if strings.TrimSpace(e) == "" {
				return tenure.Errorf(tenure.CodeInvalid, field, "empty")
			}
			if n := utf8.RuneCountInString(e); n > MaxItemChars {
				return tenure.Errorf(tenure.CodeTooLarge, field, "%d characters, more than %d", n, MaxItemChars)
			}
		}
	}
	return nil
}

type namedList struct {
	name string
	v    *[]string
}

func (s *SessionSummary) lists() []namedList {
	return []namedList{
		{"what_mattered", &s.WhatMattered},
		{"open_loops", &s.OpenLoops},
		{"commitments", &s.Commitments},
		{"people", &s.People},
	}
}

// clampList cleans, dedupes and bounds a list; it never returns nil.
func clampList(in []string) []string {
	out := make([]string, 0, min(len(in), MaxItems))
	seen := map[string]bool{}
	for _, e := range in {
		e = clampText(e, MaxItemChars)
		k := strings.ToLower(e)
		if e == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
		if len(out) == MaxItems {
			break
		}
	}
	return out
}

// clampText collapses white space, replaces invalid UTF-8 and shortens s
// to at most max characters, cutting at a word boundary when one is near
// and ending with "…".
func clampText(s string, max int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if max <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max == 1 {
		return "…"
	}
	cut := prefixRunes(s, max-1)
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)*2/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}

// prefixRunes returns the first n runes of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
