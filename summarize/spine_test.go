package summarize_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/internal/golden"
	"github.com/tenure-dev/tenure/summarize"
)

var spineIn = summarize.SpineInput{
	Prev: summarize.Spine{Profile: []string{"Sam lives in Austin"}, People: []string{"Priya is Sam's sister"}},
	Notes: summarize.Spine{Profile: []string{"Sam works as a nurse", "Sam lives in Austin"}, Projects: []string{"Use ClickHouse for analytics"},
		OpenLoops: []string{"Which trail for Saturday?"}},
}

func TestExtractiveSpine(t *testing.T) {
	got, err := summarize.NewExtractive(summarize.Options{}).Spine(ctx, spineIn)
	if err != nil {
		t.Fatal(err)
	}
	want := summarize.Spine{Profile: []string{"Sam works as a nurse", "Sam lives in Austin"}, Projects: []string{"Use ClickHouse for analytics"},
		People: []string{"Priya is Sam's sister"}, OpenLoops: []string{"Which trail for Saturday?"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spine (-want +got):\n%s", diff)
	}
	text := got.Render()
	for _, h := range []string{"PROFILE:\n- Sam works as a nurse", "PROJECTS:", "PEOPLE:", "OPEN_LOOPS:\n- Which trail for Saturday?"} {
		if !strings.Contains(text, h) {
			t.Errorf("render lacks %q:\n%s", h, text)
		}
	}
	// Bounded: at most MaxSpineItems per section.
	var many summarize.SpineInput
	for i := range 20 {
		many.Notes.People = append(many.Notes.People, strings.Repeat("x", i+1))
	}
	got, _ = summarize.NewExtractive(summarize.Options{}).Spine(ctx, many)
	if len(got.People) != summarize.MaxSpineItems {
		t.Errorf("people = %d entries, want %d", len(got.People), summarize.MaxSpineItems)
	}
}

func TestLLMSpine(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := &fakeCompleter{answer: "Here:\n```json\n{\"profile\":[\"Sam is a nurse in Austin\"],\"projects\":[],\"people\":\"Priya, his sister\",\"open_loops\":[\"trail\"]}\n```"}
		got, err := summarize.NewLLM(f, summarize.Options{}).Spine(ctx, spineIn)
		if err != nil {
			t.Fatal(err)
		}
		want := summarize.Spine{Profile: []string{"Sam is a nurse in Austin"}, People: []string{"Priya, his sister"}, OpenLoops: []string{"trail"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("spine (-want +got):\n%s", diff)
		}
		golden.Check(t, "spine_v1.golden", renderRequest(f.last(t)))
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		f := &fakeCompleter{answer: "no json here"}
		if _, err := summarize.NewLLM(f, summarize.Options{}).Spine(ctx, spineIn); tenure.ErrorCode(err) != tenure.CodeInvalid {
			t.Errorf("err = %v, want invalid", err)
		}
	})
	t.Run("FallbackToExtractive", func(t *testing.T) {
		f := &fakeCompleter{err: tenure.Errorf(tenure.CodeUnavailable, "", "down")}
		got, err := summarize.Fallback(summarize.NewLLM(f, summarize.Options{}), nil).Spine(ctx, spineIn)
		if err != nil || len(got.Projects) != 1 {
			t.Errorf("fallback spine = %+v, %v; want the extractive one", got, err)
		}
	})
}
