package summarize_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

var ctx = context.Background()

// The picnic fixture's rolling summary at 400 characters, checked by hand:
// the adoption agency, the interview date, the reference letters from
// Sarah Lee, the charity run's date and the worry about the weather; not
// the greetings, the kids or the dog.
const picnicRolling400 = `Caroline: I went to the adoption agency in Boston yesterday.
Caroline: Yes, the first interview is on June 14.
Caroline: I'll bring the reference letters from my pottery teacher, Sarah Lee.
Melanie: Oh, and we decided to hold the charity run on Saturday, June 22, at the park.
Melanie: I'm a bit worried about the weather forecast for June 22, though.`

func TestExtractiveRolling(t *testing.T) {
	msgs := loadMessages(t, "picnic.jsonl")
	e := summarize.NewExtractive(summarize.Options{MaxChars: 400})

	t.Run("Fixture", func(t *testing.T) {
		got, err := e.Rolling(ctx, "", msgs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(picnicRolling400, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		first, _ := e.Rolling(ctx, "", msgs)
		var zero summarize.Extractive // the zero value works too
		zeroFirst, _ := zero.Rolling(ctx, "", msgs)
		for range 20 {
			got, _ := summarize.NewExtractive(summarize.Options{MaxChars: 400}).Rolling(ctx, "", msgs)
			if got != first {
				t.Fatalf("run differs:\n%s\nfirst:\n%s", got, first)
			}
			if got, _ := zero.Rolling(ctx, "", msgs); got != zeroFirst {
				t.Fatalf("zero value run differs")
			}
		}
	})

	t.Run("Bounds", func(t *testing.T) {
		for _, max := range []int{1, 20, 60, 100, 250, 400, 600, 5000} {
			e := summarize.NewExtractive(summarize.Options{MaxChars: max})
			// Fold the conversation in two turns at a time, as the engine would.
			prev := ""
			for i := 0; i < len(msgs); i += 2 {
				var err error
				prev, err = e.Rolling(ctx, prev, msgs[i:min(i+2, len(msgs))])
				if err != nil {
					t.Fatal(err)
				}
				if n := utf8.RuneCountInString(prev); n > max {
					t.Fatalf("MaxChars %d: after message %d the summary has %d characters:\n%s", max, i+2, n, prev)
				}
			}
			if max >= 100 && prev == "" {
				t.Errorf("MaxChars %d: empty summary", max)
			}
		}
	})

	t.Run("TokenBound", func(t *testing.T) {
		for _, max := range []int{5, 12, 30, 60} {
			e := summarize.NewExtractive(summarize.Options{MaxChars: 2000, MaxTokens: max, Counter: wordCounter{}})
			got, err := e.Rolling(ctx, "", msgs)
			if err != nil {
				t.Fatal(err)
			}
			if n := (wordCounter{}).Count(got); n > max {
				t.Errorf("MaxTokens %d: %d tokens:\n%s", max, n, got)
			}
			if max >= 30 && got == "" {
				t.Errorf("MaxTokens %d: empty summary", max)
			}
			// Without a Counter, tokens are estimated at four characters each.
			e = summarize.NewExtractive(summarize.Options{MaxTokens: max})
			got, _ = e.Rolling(ctx, "", msgs)
			if n := utf8.RuneCountInString(got); n > 4*max {
				t.Errorf("MaxTokens %d, estimated: %d characters", max, n)
			}
		}
	})

	t.Run("KeepsPreviousOverSmallTalk", func(t *testing.T) {
		got, err := e.Rolling(ctx, picnicRolling400, conv("Caroline", "Haha ok!", "Melanie", "Thanks, you too. Bye!"))
		if err != nil {
			t.Fatal(err)
		}
		if got != picnicRolling400 {
			t.Errorf("got\n%s\nwant the previous summary unchanged", got)
		}
	})

	t.Run("DropsLeastSalientWhenFull", func(t *testing.T) {
		got, err := e.Rolling(ctx, picnicRolling400, conv("Caroline",
			"Big news: the agency approved our application on May 30, and the adoption hearing is set for July 9 in Boston."))
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(got); n > 400 {
			t.Fatalf("%d characters", n)
		}
		if !strings.Contains(got, "July 9") {
			t.Errorf("the new fact is missing:\n%s", got)
		}
		kept := 0
		for _, line := range strings.Split(picnicRolling400, "\n") {
			if strings.Contains(got, line) {
				kept++
			}
		}
		if kept == 0 || kept == 5 {
			t.Errorf("kept %d of 5 previous lines, want some dropped and some kept:\n%s", kept, got)
		}
	})

	t.Run("NoMessages", func(t *testing.T) {
		got, err := e.Rolling(ctx, "An earlier summary in prose. It is short.", nil)
		if err != nil || got != "An earlier summary in prose. It is short." {
			t.Errorf("got %q, %v: want the previous summary unchanged", got, err)
		}
		got, err = e.Rolling(ctx, "An earlier summary in prose. It is short.", []tenure.Message{{Role: "system", Content: "Be brief."}})
		if err != nil || got != "An earlier summary in prose. It is short." {
			t.Errorf("got %q, %v after a system message: want the previous summary unchanged", got, err)
		}
		small := summarize.NewExtractive(summarize.Options{MaxChars: 120})
		got, err = small.Rolling(ctx, picnicRolling400, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(got); n > 120 || n == 0 {
			t.Errorf("%d characters: want the previous summary shortened to 120", n)
		}
	})

	t.Run("SkipsSystemAndToolMessages", func(t *testing.T) {
		msgs := []tenure.Message{
			{Role: "system", Content: "You are a helpful assistant for Acme Corp, founded in 1999 in Denver."},
			{Role: "tool", Content: "weather(Boston) = 21C sunny on June 22, 2024"},
		}
		got, err := e.Rolling(ctx, "", msgs)
		if err != nil || got != "" {
			t.Errorf("got %q, %v: want nothing", got, err)
		}
	})
}

// wordCounter counts white-space separated words as tokens.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

func TestExtractiveSession(t *testing.T) {
	e := summarize.NewExtractive(summarize.Options{})

	t.Run("Fixture", func(t *testing.T) {
		got, err := e.Session(ctx, loadMessages(t, "picnic.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		// Checked by hand against testdata/picnic.jsonl.
		want := summarize.SessionSummary{
			OneLiner: "Melanie: Oh, and we decided to hold the charity run on Saturday, June 22, at the park.",
			WhatMattered: []string{
				"Caroline: I went to the adoption agency in Boston yesterday.",
				"Caroline: They said the home study takes about 3 months.",
				"Caroline: Yes, the first interview is on June 14.",
				"Melanie: Lol that reminds me, my dog ate a sock today.",
				"Melanie: I'm a bit worried about the weather forecast for June 22, though.",
			},
			OpenLoops: []string{
				"Caroline: Should I ask Jon to volunteer at the water station?",
				"Melanie: Which caterer did Sarah recommend for the run?",
			},
			Commitments: []string{
				"Caroline: I'll bring the reference letters from my pottery teacher, Sarah Lee.",
				"Melanie: I'm going to book the pavilion tomorrow.",
			},
			People: []string{"Caroline", "Melanie", "Sarah Lee", "Mel", "Jon"},
			Tone:   "positive",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if err := got.Validate(); err != nil {
			t.Error(err)
		}
	})

	t.Run("ErrNoText", func(t *testing.T) {
		for _, msgs := range [][]tenure.Message{nil, {{Role: "system", Content: "be nice"}}, conv("Ana", "  ")} {
			_, err := e.Session(ctx, msgs)
			wantCode(t, err, tenure.CodeInvalid)
		}
	})

	t.Run("Bounds", func(t *testing.T) {
		var pairs []string
		for i := range 40 {
			who := []string{"Ana", "Ben"}[i%2]
			pairs = append(pairs, who, strings.Repeat("I'll call Dana Whitfield about the 2024 budget review on Monday and then ", 5)+
				"should we move the offsite to Lisbon?")
		}
		got, err := e.Session(ctx, conv(pairs...))
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestExtractiveOpenLoops(t *testing.T) {
	e := summarize.NewExtractive(summarize.Options{})
	for _, tt := range []struct {
		name string
		msgs []tenure.Message
		want []string
	}{
		{"LastQuestionOpen", conv("Ana", "We finished the draft. Should we send the proposal to the board?"),
			[]string{"Ana: Should we send the proposal to the board?"}},
		{"AnsweredBySharedWord", conv("Ana", "Which venue did you book for the offsite?", "Ben", "The venue is the old mill by the river."), []string{}},
		{"AnsweredYes", conv("Ana", "Did you renew the passport?", "Ben", "Yes, last week."), []string{}},
		{"PolarNotAnsweredByTopicChange", conv("Ana", "Did you renew the passport?", "Ben", "The cat knocked over my plant today."),
			[]string{"Ana: Did you renew the passport?"}},
		{"WhenAnsweredByDate", conv("Ana", "When does the lease end?", "Ben", "On March 31."), []string{}},
		{"WhoAnsweredByName", conv("Ana", "Who is leading the migration?", "Ben", "Priya, starting next sprint."), []string{}},
		{"OwnFollowUpIsNoAnswer", conv("Ana", "Who is leading the migration?", "Ana", "Priya maybe, or Tom?"),
			[]string{"Ana: Who is leading the migration?", "Ana: Priya maybe, or Tom?"}},
		{"PhaticQuestionsIgnored", conv("Ana", "How are you? What do you think?", "Ben", "The cat knocked over my plant today."), []string{}},
		{"ClarifyingQuestionIsNoAnswer", conv("Ana", "Can you review the budget spreadsheet?", "Ben", "Which budget spreadsheet?"),
			[]string{"Ana: Can you review the budget spreadsheet?", "Ben: Which budget spreadsheet?"}},
		{"OutOfWindow", conv("Ana", "Did the plumber fix the leak?", "Ben", "Lunch was great.", "Ana", "Nice.", "Ben", "Movies tonight.", "Ana", "Sure.", "Ben", "Yes, the plumber fixed it."),
			[]string{"Ana: Did the plumber fix the leak?"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.Session(ctx, tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.OpenLoops); diff != "" {
				t.Errorf("open loops (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractiveCommitments(t *testing.T) {
	e := summarize.NewExtractive(summarize.Options{})
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"Ill", "I'll send the contract on Friday.", []string{"Ana: I'll send the contract on Friday."}},
		{"CurlyApostrophe", "I’ll send the contract on Friday.", []string{"Ana: I’ll send the contract on Friday."}},
		{"Quoted", "She said: ‘I’ll send the contract.’", []string{"Ana: She said: ‘I’ll send the contract.’"}},
		{"IWill", "Tomorrow I will call the bank.", []string{"Ana: Tomorrow I will call the bank."}},
		{"GoingTo", "I'm going to repaint the kitchen in June.", []string{"Ana: I'm going to repaint the kitchen in June."}},
		{"We", "We'll move the launch to May.", []string{"Ana: We'll move the launch to May."}},
		{"Negated", "I'll never eat there again. I will not sign it.", []string{}},
		{"Hedge", "I'll be honest, the plan is weak. I'll admit it.", []string{}},
		{"Question", "Will I make it? I'll what?", []string{}},
		{"NotFirstPerson", "She'll call the bank. They will fix the road.", []string{}},
		{"WordBoundary", "Bill'll do it. Will sign.", []string{}},
		{"Several", "I'll call Dana. The weather is bad. I'm going to book the room.",
			[]string{"Ana: I'll call Dana.", "Ana: I'm going to book the room."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.Session(ctx, conv("Ana", tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Commitments); diff != "" {
				t.Errorf("commitments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractivePeople(t *testing.T) {
	e := summarize.NewExtractive(summarize.Options{})
	for _, tt := range []struct {
		name string
		msgs []tenure.Message
		want []string
	}{
		{"Speakers", conv("Ana", "hello there", "Ben", "hi"), []string{"Ana", "Ben"}},
		{"Mentioned", conv("Ana", "I had lunch with Priya and Tom Baker today. Tom says hi."), []string{"Ana", "Tom Baker", "Priya"}},
		{"SentenceInitialCommonWords", conv("Ana", "Yesterday was long. Honestly it was fine. Great news though."), []string{"Ana"}},
		{"SentenceInitialNameConfirmedElsewhere", conv("Ana", "Priya called. I owe Priya a coffee."), []string{"Ana", "Priya"}},
		{"SentenceInitialOnly", conv("Ana", "Priya called."), []string{"Ana"}},
		{"ImperativeBeforeName", conv("Ana", "Ask Marta. Call Tom Baker."), []string{"Ana", "Marta", "Tom Baker"}},
		{"PartOfSpeakerName", conv("Ana Silva", "Ana Silva here, Ana for short."), []string{"Ana Silva"}},
		{"Possessive", conv("Ana", "We went to Priya's party."), []string{"Ana", "Priya"}},
		{"PlacesAfterIn", conv("Ana", "I moved to a flat in Lisbon. The weather in Lisbon is nice."), []string{"Ana"}},
		{"PlacesAfterMotion", conv("Ana", "We moved to Porto. Then I flew back to Porto from Paris. I wrote to Marta."), []string{"Ana", "Marta"}},
		{"PlaceAndPerson", conv("Ana", "I live in Jordan. Jordan, my brother, lives with me. I met Jordan today."), []string{"Ana", "Jordan"}},
		{"DaysMonthsAndI", conv("Ana", "On Monday I told Ben that June works."), []string{"Ana", "Ben"}},
		{"LowercaseElsewhere", conv("Ana", "I love Pottery. pottery is calming."), []string{"Ana"}},
		{"NoSpeakerNames", []tenure.Message{{Role: "user", Content: "Ask Marta about it."}, {Role: "assistant", Content: "Sure, I will ask Marta."}},
			[]string{"Marta"}},
		{"AtMostFive", conv("Ana", "I met Bo, Cy, Di, Ed, Flo and Gus."), []string{"Ana", "Bo", "Cy", "Di", "Ed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.Session(ctx, tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.People); diff != "" {
				t.Errorf("people (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractiveTone(t *testing.T) {
	e := summarize.NewExtractive(summarize.Options{})
	for _, tt := range []struct {
		name string
		msgs []tenure.Message
		want string
	}{
		{"Positive", conv("Ana", "I'm so happy, the trip was wonderful!"), "positive"},
		{"Negative", conv("Ana", "I'm stressed and tired, the week was awful."), "negative"},
		{"Negated", conv("Ana", "The trip was not good. I'm not happy."), "negative"},
		{"Mixed", conv("Ana", "The party was great but I'm worried about money."), "mixed"},
		{"Neutral", conv("Ana", "The meeting is at 3 in room 4."), "neutral"},
		{"AssistantIgnored", []tenure.Message{{Role: "user", Content: "My cat died today and I'm sad."},
			{Role: "assistant", Content: "I'm glad you told me; happy memories can help, and you're wonderful to care so much."}}, "negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.Session(ctx, tt.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if got.Tone != tt.want {
				t.Errorf("tone %q, want %q", got.Tone, tt.want)
			}
		})
	}
}
