package summarize

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// Summarizer writes the narrative summaries of a conversation.
type Summarizer interface {
	// Rolling folds msgs, the messages since the last rolling summary
	// (oldest first), into prev, that summary ("" for the first), and
	// returns the new rolling summary, within the summarizer's bounds.
	// When no user or assistant message has text it returns prev,
	// shortened if it is over the bounds. Errors: tenure.CodeTimeout (ran out of time),
	// tenure.CodeUnavailable (a model could not be reached),
	// tenure.CodeInvalid (a model's answer was unusable).
	Rolling(ctx context.Context, prev string, msgs []tenure.Message) (string, error)
	// Session summarizes the messages of a closed session, oldest first.
	// The summary is clamped and valid. Errors: tenure.CodeInvalid (no
	// message has text to summarize, or a model's answer was unusable),
	// tenure.CodeTimeout, tenure.CodeUnavailable.
	Session(ctx context.Context, msgs []tenure.Message) (SessionSummary, error)
}

// Counter counts tokens the way the target model does (a
// *tokenizer.Tokenizer is one).
type Counter interface {
	Count(s string) int
}

// Defaults for Options.
const (
	// DefaultMaxChars bounds a rolling summary, in characters.
	DefaultMaxChars = 600
	// DefaultTimeout is the hard deadline of one model call.
	DefaultTimeout = 15 * time.Second
	// DefaultMaxInputChars bounds the conversation text of one prompt.
	DefaultMaxInputChars = 24000
)

// Options configures a summarizer. The zero value works: rolling summaries
// of at most 600 characters, a 15 s model deadline.
type Options struct {
	// MaxChars bounds a rolling summary in characters (Unicode code
	// points); default DefaultMaxChars.
	MaxChars int
	// MaxTokens, when positive, also bounds a rolling summary in tokens,
	// counted by Counter, or estimated as one token per four characters
	// (rounded up) when Counter is nil.
	MaxTokens int
	Counter   Counter
	// Timeout is the hard deadline of each model call (default
	// DefaultTimeout). The extractive summarizer does not use it.
	Timeout time.Duration
	// MaxInputChars bounds the message text a prompt carries; the oldest
	// messages are left out first (default DefaultMaxInputChars). The
	// extractive summarizer does not use it.
	MaxInputChars int
}

func (o Options) withDefaults() Options {
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxInputChars <= 0 {
		o.MaxInputChars = DefaultMaxInputChars
	}
	return o
}

// fits reports whether a rolling summary is within the bounds.
func (o Options) fits(s string) bool {
	if utf8.RuneCountInString(s) > o.MaxChars {
		return false
	}
	if o.MaxTokens <= 0 {
		return true
	}
	if o.Counter != nil {
		return o.Counter.Count(s) <= o.MaxTokens
	}
	return (utf8.RuneCountInString(s)+3)/4 <= o.MaxTokens
}

// Result says which summarizer of a Chain answered.
type Result struct {
	// Used names the summarizer that answered: its Name() when it has
	// one ("llm", "extractive"), else "primary" or "secondary".
	Used string
	// PrimaryErr is why the primary did not answer; nil when it did.
	PrimaryErr error
}

// Chain is a Summarizer that asks a primary summarizer and, when it fails,
// a secondary one. Build it with Fallback.
type Chain struct {
	primary, secondary Summarizer
}

var _ Summarizer = (*Chain)(nil)

// Fallback returns a Chain that tries primary (typically an LLM) and, on
// any error, an invalid session summary or a panic, secondary (typically
// an Extractive). A nil primary is skipped; a nil secondary means
// NewExtractive(Options{}).
func Fallback(primary, secondary Summarizer) *Chain {
	if secondary == nil {
		secondary = NewExtractive(Options{})
	}
	return &Chain{primary: primary, secondary: secondary}
}

// Rolling implements Summarizer; RollingResult also says who answered.
func (c *Chain) Rolling(ctx context.Context, prev string, msgs []tenure.Message) (string, error) {
	s, _, err := c.RollingResult(ctx, prev, msgs)
	return s, err
}

// Session implements Summarizer; SessionResult also says who answered.
func (c *Chain) Session(ctx context.Context, msgs []tenure.Message) (SessionSummary, error) {
	s, _, err := c.SessionResult(ctx, msgs)
	return s, err
}

// RollingResult is Rolling, also reporting which summarizer answered and
// why the primary did not. It fails only when the secondary fails too,
// with the secondary's error code.
func (c *Chain) RollingResult(ctx context.Context, prev string, msgs []tenure.Message) (string, Result, error) {
	var res Result
	if c.primary != nil {
		s, err := guard(func() (string, error) { return c.primary.Rolling(ctx, prev, msgs) })
		if err == nil {
			return s, Result{Used: name(c.primary, "primary")}, nil
		}
		res.PrimaryErr = err
	}
	res.Used = name(c.secondary, "secondary")
	s, err := guard(func() (string, error) { return c.secondary.Rolling(ctx, prev, msgs) })
	if err != nil {
		return "", res, bothFailed("rolling summary", err, res.PrimaryErr)
	}
	return s, res, nil
}

// SessionResult is Session, also reporting which summarizer answered and
// why the primary did not. It fails only when the secondary fails too,
// with the secondary's error code.
func (c *Chain) SessionResult(ctx context.Context, msgs []tenure.Message) (SessionSummary, Result, error) {
	var res Result
	if c.primary != nil {
		s, err := guard(func() (SessionSummary, error) { return c.primary.Session(ctx, msgs) })
		if err == nil {
			err = s.Validate()
		}
		if err == nil {
			return s, Result{Used: name(c.primary, "primary")}, nil
		}
		res.PrimaryErr = err
	}
	res.Used = name(c.secondary, "secondary")
	s, err := guard(func() (SessionSummary, error) { return c.secondary.Session(ctx, msgs) })
	if err != nil {
		return SessionSummary{}, res, bothFailed("session summary", err, res.PrimaryErr)
	}
	return s, res, nil
}

func bothFailed(op string, err, primaryErr error) error {
	if primaryErr == nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w (primary: %v)", op, err, primaryErr)
}

// guard runs f, turning a panic into a CodeInternal error so that a
// broken summarizer cannot take the write path down with it.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = tenure.Internal("summarizer panicked", fmt.Errorf("%v", r))
		}
	}()
	return f()
}

func name(s Summarizer, def string) string {
	if n, ok := s.(interface{ Name() string }); ok {
		return n.Name()
	}
	return def
}
