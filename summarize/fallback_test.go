package summarize_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

// stub is a Summarizer with canned answers and no Name.
type stub struct {
	rolling string
	session summarize.SessionSummary
	err     error
	panics  bool
}

func (s stub) Rolling(context.Context, string, []tenure.Message) (string, error) {
	if s.panics {
		panic("stub")
	}
	return s.rolling, s.err
}

func (s stub) Session(context.Context, []tenure.Message) (summarize.SessionSummary, error) {
	if s.panics {
		panic("stub")
	}
	return s.session, s.err
}

func TestFallback(t *testing.T) {
	msgs := loadMessages(t, "picnic.jsonl")
	ext := summarize.NewExtractive(summarize.Options{})
	extRolling, err := ext.Rolling(ctx, "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	extSession, err := ext.Session(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("PrimaryAnswers", func(t *testing.T) {
		c := summarize.Fallback(summarize.NewLLM(&fakeCompleter{answer: validJSON}, summarize.Options{}), ext)
		s, res, err := c.SessionResult(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(validSummary, s); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if res.Used != "llm" || res.PrimaryErr != nil {
			t.Errorf("result %+v, want used llm and no primary error", res)
		}
		r, res, err := summarize.Fallback(summarize.NewLLM(&fakeCompleter{answer: "Caroline's interview is on June 14."}, summarize.Options{}), ext).RollingResult(ctx, "", msgs)
		if err != nil || r != "Caroline's interview is on June 14." || res.Used != "llm" {
			t.Errorf("got %q, %+v, %v", r, res, err)
		}
	})

	for _, tt := range []struct {
		name    string
		primary summarize.Summarizer
		code    tenure.Code
		used    string
	}{
		{"Malformed", summarize.NewLLM(&fakeCompleter{answer: "not json {"}, summarize.Options{}), tenure.CodeInvalid, "extractive"},
		{"Empty", summarize.NewLLM(&fakeCompleter{answer: ""}, summarize.Options{}), tenure.CodeInvalid, "extractive"},
		{"Timeout", summarize.NewLLM(&fakeCompleter{block: true}, summarize.Options{Timeout: 10 * time.Millisecond}), tenure.CodeTimeout, "extractive"},
		{"Unavailable", summarize.NewLLM(&fakeCompleter{err: tenure.Errorf(tenure.CodeUnavailable, "", "down")}, summarize.Options{}), tenure.CodeUnavailable, "extractive"},
		{"NoModel", summarize.NewLLM(nil, summarize.Options{}), tenure.CodeUnavailable, "extractive"},
		{"Panic", stub{panics: true}, tenure.CodeInternal, "extractive"},
	} {
		t.Run("FallsBackOn"+tt.name, func(t *testing.T) {
			c := summarize.Fallback(tt.primary, ext)
			s, res, err := c.SessionResult(ctx, msgs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(extSession, s); diff != "" {
				t.Errorf("session (-want +got):\n%s", diff)
			}
			if res.Used != tt.used || tenure.ErrorCode(res.PrimaryErr) != tt.code {
				t.Errorf("session result %+v (code %s), want used %s, primary error %s", res, tenure.ErrorCode(res.PrimaryErr), tt.used, tt.code)
			}
			if _, ok := tt.primary.(stub); ok {
				return // a stub never fails Rolling on bad output
			}
			r, res, err := c.RollingResult(ctx, "", msgs)
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "Malformed" {
				return // "not json {" is a usable, if odd, rolling summary
			}
			if r != extRolling || res.Used != tt.used || tenure.ErrorCode(res.PrimaryErr) != tt.code {
				t.Errorf("rolling %q, %+v: want the extractive summary, used %s, primary error %s", r, res, tt.used, tt.code)
			}
			// The plain Summarizer methods answer the same.
			if r2, err := c.Rolling(ctx, "", msgs); err != nil || r2 != r {
				t.Errorf("Rolling = %q, %v; RollingResult = %q", r2, err, r)
			}
			if s2, err := c.Session(ctx, msgs); err != nil || !cmp.Equal(s2, s) {
				t.Errorf("Session = %+v, %v; SessionResult = %+v", s2, err, s)
			}
		})
	}

	t.Run("InvalidSummaryWithoutError", func(t *testing.T) {
		_, res, err := summarize.Fallback(stub{session: summarize.SessionSummary{}}, ext).SessionResult(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Used != "extractive" || tenure.ErrorField(res.PrimaryErr) != "one_liner" {
			t.Errorf("result %+v: want the extractive one after an invalid one_liner", res)
		}
	})

	t.Run("DefaultsAndNames", func(t *testing.T) {
		_, res, err := summarize.Fallback(nil, nil).SessionResult(ctx, msgs)
		if err != nil || res.Used != "extractive" || res.PrimaryErr != nil {
			t.Errorf("Fallback(nil, nil): %+v, %v", res, err)
		}
		_, res, err = summarize.Fallback(stub{rolling: "x"}, stub{}).RollingResult(ctx, "", msgs)
		if err != nil || res.Used != "primary" {
			t.Errorf("unnamed primary: %+v, %v", res, err)
		}
		_, res, err = summarize.Fallback(stub{err: tenure.Errorf(tenure.CodeUnavailable, "", "x")}, stub{rolling: "y"}).RollingResult(ctx, "", msgs)
		if err != nil || res.Used != "secondary" {
			t.Errorf("unnamed secondary: %+v, %v", res, err)
		}
	})

	t.Run("ErrBothFail", func(t *testing.T) {
		c := summarize.Fallback(summarize.NewLLM(&fakeCompleter{answer: validJSON}, summarize.Options{}), ext)
		_, res, err := c.SessionResult(ctx, nil)
		wantCode(t, err, tenure.CodeInvalid)
		if res.Used != "extractive" || res.PrimaryErr == nil {
			t.Errorf("result %+v", res)
		}
		_, _, err = summarize.Fallback(stub{err: tenure.Errorf(tenure.CodeUnavailable, "", "down")}, stub{panics: true}).RollingResult(ctx, "", msgs)
		wantCode(t, err, tenure.CodeInternal)
	})
}
