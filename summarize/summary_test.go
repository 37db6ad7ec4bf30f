package summarize_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

func TestSessionSummaryJSON(t *testing.T) {
	s := summarize.SessionSummary{OneLiner: "o", WhatMattered: []string{"w"}, OpenLoops: []string{"l"},
		Commitments: []string{"c"}, People: []string{"p"}, Tone: "warm"}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"one_liner":"o","what_mattered":["w"],"open_loops":["l"],"commitments":["c"],"people":["p"],"tone":"warm"}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func TestSessionSummaryClamp(t *testing.T) {
	long := strings.Repeat("word ", 100)
	s := summarize.SessionSummary{
		OneLiner:     "  A\tsession  about\nthings " + long,
		WhatMattered: []string{"one", "", "  ", "One", "two", "three", "four", "five", "six"},
		People:       []string{long, "Ana\xff"},
		Tone:         strings.Repeat("calm ", 20),
	}
	s.Clamp()
	if n := utf8.RuneCountInString(s.OneLiner); n > summarize.MaxOneLinerChars {
		t.Errorf("one_liner has %d characters", n)
	}
	if !strings.HasPrefix(s.OneLiner, "A session about things word") || !strings.HasSuffix(s.OneLiner, "word…") {
		t.Errorf("one_liner = %q: want collapsed white space, cut after a word", s.OneLiner)
	}
	if diff := cmp.Diff([]string{"one", "two", "three", "four", "five"}, s.WhatMattered); diff != "" {
		t.Errorf("what_mattered (-want +got):\n%s", diff)
	}
	if n := utf8.RuneCountInString(s.People[0]); n > summarize.MaxItemChars {
		t.Errorf("people[0] has %d characters", n)
	}
	if s.People[1] != "Ana\uFFFD" {
		t.Errorf("people[1] = %q: want invalid UTF-8 replaced", s.People[1])
	}
	if s.OpenLoops == nil || s.Commitments == nil || len(s.OpenLoops) != 0 {
		t.Errorf("open_loops %#v, commitments %#v: want empty, non-nil lists", s.OpenLoops, s.Commitments)
	}
	if n := utf8.RuneCountInString(s.Tone); n > summarize.MaxToneChars {
		t.Errorf("tone has %d characters", n)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("clamped summary does not validate: %v", err)
	}
}

func TestSessionSummaryValidate(t *testing.T) {
	ok := func() summarize.SessionSummary {
		return summarize.SessionSummary{OneLiner: "Caroline talked about adoption.", WhatMattered: []string{"adoption"}, Tone: "warm"}
	}
	t.Run("OK", func(t *testing.T) {
		s := ok()
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	for _, tt := range []struct {
		name  string
		edit  func(*summarize.SessionSummary)
		code  tenure.Code
		field string
	}{
		{"ErrNoOneLiner", func(s *summarize.SessionSummary) { s.OneLiner = " " }, tenure.CodeInvalid, "one_liner"},
		{"ErrLongOneLiner", func(s *summarize.SessionSummary) { s.OneLiner = strings.Repeat("é", summarize.MaxOneLinerChars+1) }, tenure.CodeTooLarge, "one_liner"},
		{"ErrLongTone", func(s *summarize.SessionSummary) { s.Tone = strings.Repeat("x", summarize.MaxToneChars+1) }, tenure.CodeTooLarge, "tone"},
		{"ErrTooManyItems", func(s *summarize.SessionSummary) { s.People = make([]string, summarize.MaxItems+1) }, tenure.CodeTooLarge, "people"},
		{"ErrEmptyItem", func(s *summarize.SessionSummary) { s.OpenLoops = []string{"a", ""} }, tenure.CodeInvalid, "open_loops[1]"},
		{"ErrLongItem", func(s *summarize.SessionSummary) {
			s.Commitments = []string{strings.Repeat("x", summarize.MaxItemChars+1)}
		}, tenure.CodeTooLarge, "commitments[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := ok()
			tt.edit(&s)
			err := s.Validate()
			wantCode(t, err, tt.code)
			if got := tenure.ErrorField(err); got != tt.field {
				t.Errorf("field %q, want %q", got, tt.field)
			}
		})
	}
	t.Run("MaxLengthsOK", func(t *testing.T) {
		s := ok()
		s.OneLiner = strings.Repeat("é", summarize.MaxOneLinerChars)
		s.People = []string{strings.Repeat("é", summarize.MaxItemChars), "b", "c", "d", "e"}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}
