package summarize

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

//go:embed prompt/*.tmpl
var promptFS embed.FS

// Prompt templates, versioned by file name. A change to what a prompt says
// is a new file (rolling_v2.tmpl), so that summaries can be traced to the
// prompt that wrote them.
var (
	rollingPrompt = parsePrompt("prompt/rolling_v1.tmpl")
	sessionPrompt = parsePrompt("prompt/session_v1.tmpl")
)

func parsePrompt(path string) *template.Template {
	return template.Must(template.New(path).Funcs(template.FuncMap{"json": quoteJSON}).ParseFS(promptFS, path))
}

// quoteJSON renders v as JSON with <, > and & escaped, so that quoted text
// cannot close the tags around it.
func quoteJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// sessionAnswerTokens caps the length of a session summary answer.
const sessionAnswerTokens = 1024

// LLM summarizes with a language model. It is safe for concurrent use when
// its Completer is.
type LLM struct {
	c   llm.Completer
	opt Options
}

var _ Summarizer = (*LLM)(nil)

// NewLLM returns a summarizer that prompts c. It does no I/O. A nil c
// makes every call fail with tenure.CodeUnavailable, so that a Fallback
// over it always uses its secondary.
func NewLLM(c llm.Completer, opt Options) *LLM {
	return &LLM{c: c, opt: opt.withDefaults()}
}

// options returns the options with defaults, so that the zero LLM works
// (and fails with tenure.CodeUnavailable, having no Completer).
func (l *LLM) options() Options { return l.opt.withDefaults() }

// Name returns "llm".
func (l *LLM) Name() string { return "llm" }

// Rolling implements Summarizer with prompt/rolling_v1.tmpl. An answer
// over the bounds is cut after its last whole sentence that fits.
// Errors: tenure.CodeInvalid when the answer is empty or nothing of it
// fits, tenure.CodeTimeout when the model did not answer within
// Options.Timeout, and the Completer's errors.
func (l *LLM) Rolling(ctx context.Context, prev string, msgs []tenure.Message) (string, error) {
	o := l.options()
	prev = strings.ToValidUTF8(prev, "\uFFFD")
	if !hasText(msgs) && o.fits(prev) {
		return prev, nil
	}
	req, err := l.request(rollingPrompt, prev, msgs, o.MaxChars/2+256)
	if err != nil {
		return "", fmt.Errorf("rolling summary: %w", err)
	}
	text, err := l.complete(ctx, req)
	if err != nil {
		return "", fmt.Errorf("rolling summary: %w", err)
	}
	s := fitText(cleanAnswer(text), o)
	if s == "" {
		return "", tenure.Errorf(tenure.CodeInvalid, "", "rolling summary: no usable text in model output %q", excerpt(text))
	}
	return s, nil
}

// Session implements Summarizer with prompt/session_v1.tmpl. The answer's
// JSON object is found with llm.ExtractJSON and read tolerantly (a string
// where a list belongs is a list of one; unknown fields are ignored), then
// clamped. Errors: tenure.CodeInvalid when msgs is empty or the answer
// holds no JSON object with a one-liner, tenure.CodeTimeout when the model
// did not answer within Options.Timeout, and the Completer's errors.
func (l *LLM) Session(ctx context.Context, msgs []tenure.Message) (SessionSummary, error) {
	if !hasText(msgs) {
		return SessionSummary{}, tenure.Errorf(tenure.CodeInvalid, "messages", "no message text to summarize")
	}
	req, err := l.request(sessionPrompt, "", msgs, sessionAnswerTokens)
	if err != nil {
		return SessionSummary{}, fmt.Errorf("session summary: %w", err)
	}
	text, err := l.complete(ctx, req)
	if err != nil {
		return SessionSummary{}, fmt.Errorf("session summary: %w", err)
	}
	raw, err := llm.ExtractJSON(text)
	if err != nil {
		return SessionSummary{}, fmt.Errorf("session summary: %w", err)
	}
	s, err := decodeSummary(raw)
	if err != nil {
		return SessionSummary{}, fmt.Errorf("session summary: %w", err)
	}
	s.Clamp()
	if err := s.Validate(); err != nil {
		return SessionSummary{}, fmt.Errorf("session summary: model output: %w", err)
	}
	return s, nil
}

// promptMessage is a message as a prompt quotes it.
type promptMessage struct {
	Speaker string `json:"speaker"`
	Role    string `json:"role"`
	Time    string `json:"time,omitempty"`
	Text    string `json:"text"`
}

// promptData is what the templates render.
type promptData struct {
	Prev     string
	Messages []promptMessage
	// Omitted counts the oldest messages left out to fit MaxInputChars.
	Omitted                                  int
	MaxChars                                 int
	MaxItems, MaxItemChars, MaxOneLinerChars int
}

// request renders a prompt into a temperature-0 request.
func (l *LLM) request(t *template.Template, prev string, msgs []tenure.Message, maxTokens int) (llm.Request, error) {
	o := l.options()
	d := promptData{
		Prev:     clampText(prev, 4*o.MaxChars),
		MaxChars: o.MaxChars, MaxItems: MaxItems, MaxItemChars: MaxItemChars, MaxOneLinerChars: MaxOneLinerChars,
	}
	d.Messages, d.Omitted = promptMessages(msgs, o.MaxInputChars)
	return llm.RenderRequest(t, d, maxTokens)
}

// promptMessages quotes the latest user and assistant messages whose text
// fits in max characters (the newest one cut short if it alone is longer),
// oldest first, and returns how many earlier ones it left out.
func promptMessages(msgs []tenure.Message, max int) ([]promptMessage, int) {
	var out []promptMessage
	total, omitted := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != "user" && m.Role != "assistant" || strings.TrimSpace(m.Text()) == "" {
			continue
		}
		if omitted > 0 {
			omitted++
			continue
		}
		text := strings.ToValidUTF8(strings.TrimSpace(m.Text()), "\uFFFD")
		n := utf8.RuneCountInString(text)
		if total+n > max {
			if len(out) > 0 {
				omitted++
				continue
			}
			text, n = clampText(text, max), max
		}
		total += n
		pm := promptMessage{Speaker: displayName(m), Role: m.Role, Text: text}
		if !m.CreatedAt.IsZero() {
			pm.Time = m.CreatedAt.UTC().Format(time.RFC3339)
		}
		out = append(out, pm)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, omitted
}

// complete asks the model under the hard timeout: it returns when the
// deadline passes even if the Completer does not heed ctx.
func (l *LLM) complete(ctx context.Context, req llm.Request) (string, error) {
	if l.c == nil {
		return "", tenure.Errorf(tenure.CodeUnavailable, "", "no language model configured")
	}
	ctx, cancel := context.WithTimeout(ctx, l.options().Timeout)
	defer cancel()
	type answer struct {
		r   llm.Response
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- answer{err: tenure.Internal("completer panicked", fmt.Errorf("%v", p))}
			}
		}()
		r, err := l.c.Complete(ctx, req)
		ch <- answer{r: r, err: err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-ctx.Done():
		select {
		case a = <-ch:
		default:
			return "", l.timeout(ctx, nil)
		}
	}
	if a.err != nil {
		if ctx.Err() != nil && tenure.ErrorCode(a.err) != tenure.CodeTimeout {
			return "", l.timeout(ctx, a.err)
		}
		return "", a.err
	}
	return a.r.Text, nil
}

func (l *LLM) timeout(ctx context.Context, cause error) error {
	if cause == nil {
		cause = context.Cause(ctx)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "canceled while waiting for the model", Err: cause}
	}
	return &tenure.Error{Code: tenure.CodeTimeout, Message: fmt.Sprintf("no answer from the model within %s", l.options().Timeout), Err: cause}
}

// cleanAnswer strips what models wrap around plain text: a <think> block,
// a code fence, a "Summary:" label, JSON string quotes.
func cleanAnswer(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	for _, label := range []string{"updated summary:", "summary:"} {
		if len(s) >= len(label) && strings.EqualFold(s[:len(label)], label) {
			s = strings.TrimSpace(s[len(label):])
		}
	}
	var quoted string
	if strings.HasPrefix(s, `"`) && json.Unmarshal([]byte(s), &quoted) == nil {
		s = quoted
	}
	return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
}

// fitText returns the longest run of whole leading sentences of s within
// the bounds, or the first sentence cut short when even that is too long,
// or "" when nothing fits.
func fitText(s string, o Options) string {
	if o.fits(s) {
		return s
	}
	var b strings.Builder
	best := ""
	for _, sent := range splitSentences(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sent)
		if !o.fits(b.String()) {
			break
		}
		best = b.String()
	}
	if best != "" {
		return best
	}
	first := ""
	if ss := splitSentences(s); len(ss) > 0 {
		first = ss[0]
	}
	lo, hi := 0, min(utf8.RuneCountInString(first), o.MaxChars) // largest n with clampText(first, n) fitting
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if o.fits(clampText(first, mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return clampText(first, lo)
}

// decodeSummary reads a model's session summary tolerantly.
func decodeSummary(raw json.RawMessage) (SessionSummary, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil || len(elems) == 0 {
			return SessionSummary{}, tenure.Errorf(tenure.CodeInvalid, "", "model output holds no JSON object")
		}
		raw = bytes.TrimSpace(elems[0])
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return SessionSummary{}, tenure.Errorf(tenure.CodeInvalid, "", "model output holds no JSON object: %v", err)
	}
	field := func(names ...string) json.RawMessage {
		for _, n := range names {
			if v, ok := fields[n]; ok {
				return v
			}
		}
		return nil
	}
	return SessionSummary{
		OneLiner:     jsonString(field("one_liner", "oneLiner")),
		WhatMattered: jsonStrings(field("what_mattered", "whatMattered")),
		OpenLoops:    jsonStrings(field("open_loops", "openLoops")),
		Commitments:  jsonStrings(field("commitments")),
		People:       jsonStrings(field("people")),
		Tone:         jsonString(field("tone")),
	}, nil
}

// jsonString reads a string, or joins a list of strings with ", ".
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.Join(jsonStrings(raw), ", ")
}

// jsonStrings reads a list, keeping its string entries, or a single string
// as a list of one.
func jsonStrings(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return []string{s}
	}
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	var out []string
	for _, e := range elems {
		if json.Unmarshal(e, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// excerpt returns the first 80 characters of s for an error message.
func excerpt(s string) string {
	return clampText(s, 80)
}
