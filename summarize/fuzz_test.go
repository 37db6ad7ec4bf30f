package summarize_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

// fuzzMessages turns fuzz input into a conversation: "|" separates
// messages, the speakers alternate and every third is an assistant's.
func fuzzMessages(text string) []tenure.Message {
	var msgs []tenure.Message
	for i, part := range strings.Split(text, "|") {
		m := tenure.Message{ThreadID: "t", ID: "m", Role: "user", Speaker: []string{"Ana", "Ben", ""}[i%3], Content: part, CreatedAt: t0}
		if i%3 == 2 {
			m.Role = "assistant"
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func FuzzExtractive(f *testing.F) {
	for _, seed := range []struct {
		prev, text string
		max        uint16
	}{
		{"", "Hey Mel! How are you?|I'll call Sarah Lee on June 14.|Did you book it?", 400},
		{"Ana: I'll go.", "Yes.|No!|...|?|Dr. J. K. Smith arrived at 3 p.m. on Monday.", 20},
		{"", "I’ll  — ‘quoted’ “Tom” O'Brien’s\n- bullet\n* star\n• dot", 1},
		{"\xff\xfe", "\xc3(|\u00e9t\u00e9 \u2026 caf\u00e9. Zoë said hi.|" + strings.Repeat("word ", 300), 0},
		{strings.Repeat("Ana: A long line about Boston and budgets. ", 30), "", 100},
	} {
		f.Add(seed.prev, seed.text, seed.max)
	}
	f.Fuzz(func(t *testing.T, prev, text string, max uint16) {
		opt := summarize.Options{MaxChars: int(max)}
		limit := int(max)
		if limit == 0 {
			limit = summarize.DefaultMaxChars
		}
		e := summarize.NewExtractive(opt)
		msgs := fuzzMessages(text)

		got, err := e.Rolling(ctx, prev, msgs)
		if err != nil {
			t.Fatalf("Rolling: %v", err)
		}
		if n := utf8.RuneCountInString(got); n > limit {
			t.Fatalf("Rolling: %d characters, more than %d:\n%q", n, limit, got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Rolling: invalid UTF-8 %q", got)
		}
		if again, _ := e.Rolling(ctx, prev, msgs); again != got {
			t.Fatalf("Rolling is not deterministic: %q then %q", got, again)
		}
		// Folding nothing into a fitting summary keeps it.
		if same, _ := e.Rolling(ctx, got, nil); same != got {
			t.Fatalf("Rolling(prev, nil) changed %q to %q", got, same)
		}

		s, err := e.Session(ctx, msgs)
		if err != nil {
			if tenure.ErrorCode(err) != tenure.CodeInvalid {
				t.Fatalf("Session: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Session: %v in %+v", err, s)
		}
		for _, l := range [][]string{s.WhatMattered, s.OpenLoops, s.Commitments, s.People} {
			for _, e := range l {
				if !utf8.ValidString(e) {
					t.Fatalf("Session: invalid UTF-8 %q", e)
				}
			}
		}
	})
}

// FuzzLLMAnswer feeds arbitrary model output to the LLM summarizer: it
// must answer within bounds or fail with CodeInvalid, never panic.
func FuzzLLMAnswer(f *testing.F) {
	for _, seed := range []string{validJSON, "```json\n" + validJSON + "\n```", `{"one_liner":`, `[[[{`, "", "Summary: plain text. More.", `"quoted"`, "<think>", `{"one_liner":"\u0000"}`} {
		f.Add(seed, uint16(80))
	}
	msgs := conv("Ana", "I'll call Ben on Monday.")
	f.Fuzz(func(t *testing.T, answer string, max uint16) {
		l := summarize.NewLLM(&fakeCompleter{answer: answer}, summarize.Options{MaxChars: int(max)})
		limit := int(max)
		if limit == 0 {
			limit = summarize.DefaultMaxChars
		}
		r, err := l.Rolling(ctx, "", msgs)
		switch {
		case err != nil:
			if tenure.ErrorCode(err) != tenure.CodeInvalid {
				t.Fatalf("Rolling: %v", err)
			}
		case r == "" || utf8.RuneCountInString(r) > limit || !utf8.ValidString(r):
			t.Fatalf("Rolling: %q with MaxChars %d", r, limit)
		}
		s, err := l.Session(ctx, msgs)
		if err != nil {
			var e *tenure.Error
			if !errors.As(err, &e) || e.Code != tenure.CodeInvalid {
				t.Fatalf("Session: %v", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Session: %v in %+v", err, s)
		}
	})
}
