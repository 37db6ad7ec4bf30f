package extract

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

// LLMSource is the Source the LLM extractor sets on the items it produces.
const LLMSource = "llm"

// LLMPromptVersion names the prompt template the LLM extractor renders
// (prompt/extract_v4.tmpl; extract_v1.tmpl to extract_v3.tmpl are kept
// for the items they found).
const LLMPromptVersion = "extract_v4"

// Defaults for LLMOptions.
const (
	DefaultLLMMaxTokens  = 2048
	DefaultLLMTimeout    = 15 * time.Second
	DefaultMaxCandidates = 25
)

// llmMaxMessageChars caps how much of one message the prompt quotes, so
// that one pasted log cannot crowd the rest of the batch out of the
// model's context.
const llmMaxMessageChars = 4000

//go:embed prompt/*.tmpl
var llmPromptFS embed.FS

// llmPrompt is the parsed extraction prompt. A change to what it says is a
// new file and a new LLMPromptVersion.
var llmPrompt = template.Must(template.New(LLMPromptVersion+".tmpl").
	Funcs(template.FuncMap{"join": strings.Join}).
	ParseFS(llmPromptFS, "prompt/"+LLMPromptVersion+".tmpl"))

// LLMOptions configures an LLM extractor. The zero value is ready; the
// model itself is chosen by the Completer.
type LLMOptions struct {
	// MaxTokens caps the model's answer (default 2048).
	MaxTokens int
	// Timeout is a hard wall-clock limit on a whole Extract call, retries
	// inside the Completer included (default 15s). Extract returns when it
	// passes even if the Completer does not.
	Timeout time.Duration
	// MaxCandidates is the most candidates one Extract returns (default
	// 25); valid items past it are dropped as "over_cap".
	MaxCandidates int
	// Logger receives a debug record per dropped item (default: discard).
	Logger *slog.Logger
}

// LLM extracts state items, with their subjects, values, owners and due
// dates, and profile, people and organisation facts by prompting a
// language model with the embedded prompt/extract_v4.tmpl and reading its
// answer tolerantly: a malformed element is dropped and counted, never
// fatal. It is safe for concurrent use when its Completer is.
type LLM struct {
	c llm.Completer
	o LLMOptions
}

var _ Extractor = (*LLM)(nil)

// Name returns "llm", the Source of the items LLM produces.
func (l *LLM) Name() string { return LLMSource }

// NewLLM returns an LLM extractor that prompts c, with o's zero fields set
// to their defaults. It does no I/O. A nil c makes every Extract that has
// messages to quote fail with tenure.CodeUnavailable.
func NewLLM(c llm.Completer, o LLMOptions) *LLM {
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultLLMMaxTokens
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLLMTimeout
	}
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &LLM{c: c, o: o}
}

// Extract prompts the model with b's existing items and messages (system
// and tool messages and messages without an id are left out) and returns
// the items of its answer, in the answer's order. A batch with nothing to
// quote returns an empty Result without calling the model.
//
// Each answer element is read leniently (a string where a list belongs is
// a list; a numeric confidence is bucketed) and then checked: an element
// that is not an object is dropped as "unparsable", one with an unknown
// type as "invalid_type", one without text as "empty_text", one none of
// whose refs is a message id of the prompt as "no_valid_refs" (refs that
// are not are removed), one that fails tenure.StateItem.Validate as
// "invalid", and valid items past MaxCandidates as "over_cap". An unknown
// status or confidence is repaired by tenure.StateItem.Coerce and lowers
// the confidence to low; an owner or due date on another type than an
// action, and a due date that is no date, are left out. Supersedes is
// kept only when it names the uid of one of b.Existing. Items with the
// same uid are folded into the first. An element with "kind": "fact" is a
// fact: one without a subject, attribute or value is dropped as
// "invalid_fact", one without a valid ref as "no_valid_refs".
//
// Errors: tenure.CodeTimeout when Timeout or ctx's deadline passes first;
// tenure.CodeInvalid when the answer holds no JSON array or object; the
// Completer's errors otherwise (CodeUnavailable, CodeUnauthenticated,
// CodeInvalid).
func (l *LLM) Extract(ctx context.Context, b Batch) (Result, error) {
	data, allowed := llmData(b, l.o.MaxCandidates)
	if len(data.Messages) == 0 {
		return Result{}, nil
	}
	req, err := llmRequest(data, l.o.MaxTokens)
	if err != nil {
		return Result{}, fmt.Errorf("extract llm: %w", err)
	}
	resp, err := l.complete(ctx, req)
	if err != nil {
		return Result{}, fmt.Errorf("extract llm: %w", err)
	}
	elems, err := llm.ExtractJSONArray(resp.Text)
	if err != nil {
		return Result{}, fmt.Errorf("extract llm: %w", err)
	}
	return l.candidates(elems, b, allowed), nil
}

// complete calls the Completer under the hard wall-clock Timeout. The call
// runs in its own goroutine so that a Completer that ignores its context
// cannot hold Extract past the deadline; its late answer is discarded.
func (l *LLM) complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if l.c == nil {
		return llm.Response{}, tenure.Errorf(tenure.CodeUnavailable, "", "no model configured")
	}
	ctx, cancel := context.WithTimeoutCause(ctx, l.o.Timeout, errLLMTimeout)
	defer cancel()
	type answer struct {
		resp llm.Response
		err  error
	}
	done := make(chan answer, 1) // buffered: a late answer must not block
	go func() {
		resp, err := l.c.Complete(ctx, req)
		done <- answer{resp, err}
	}()
	select {
	case a := <-done:
		if a.err != nil && ctx.Err() != nil && tenure.ErrorCode(a.err) != tenure.CodeTimeout {
			// The Completer reported our deadline as something else (a
			// plain context error, or "canceled").
			return llm.Response{}, llmContextError(ctx, l.o.Timeout, a.err)
		}
		return a.resp, a.err
	case <-ctx.Done():
		return llm.Response{}, llmContextError(ctx, l.o.Timeout, nil)
	}
}

// errLLMTimeout is the cause of the context Extract gives the Completer,
// telling its own Timeout apart from the caller's deadline.
var errLLMTimeout = errors.New("extraction timeout")

// llmContextError reports that ctx ended during the model call.
func llmContextError(ctx context.Context, timeout time.Duration, err error) error {
	cause := context.Cause(ctx)
	if err == nil {
		err = cause
	}
	switch {
	case errors.Is(cause, errLLMTimeout):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: fmt.Sprintf("model did not answer within %s", timeout), Err: err}
	case errors.Is(cause, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "model did not answer before the deadline", Err: err}
	default:
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
	}
}

// llmPromptData is what prompt/extract_v4.tmpl renders.
type llmPromptData struct {
	Types    []string
	Statuses []llmPromptStatuses
	Triggers []string
	MaxItems int
	Existing []llmPromptItem
	Messages []llmPromptMessage
}

type llmPromptStatuses struct {
	Type     tenure.StateType
	Statuses []string
}

type llmPromptItem struct {
	UID, Type, Status, Text string
}

type llmPromptMessage struct {
	ID, Role, Speaker, Content string
	// Date is the day the message was written, "2006-01-02 Mon", or ""
	// when unknown.
	Date string
}

// llmData gathers the prompt's data from b and returns it with the set of
// message ids the prompt quotes, the only ids a ref may name.
func llmData(b Batch, maxItems int) (llmPromptData, map[string]bool) {
	d := llmPromptData{Triggers: tenure.SupersessionTriggers, MaxItems: maxItems}
	for _, t := range tenure.StateTypes {
		d.Types = append(d.Types, string(t))
		// "superseded" is the reconciler's to set, not the model's.
		st := slices.DeleteFunc(slices.Clone(tenure.StateStatuses[t]), func(s string) bool { return s == "superseded" })
		slices.Reverse(st) // default first
		d.Statuses = append(d.Statuses, llmPromptStatuses{Type: t, Statuses: st})
	}
	for _, it := range b.Existing {
		d.Existing = append(d.Existing, llmPromptItem{
			UID: llmOneLine(it.UID), Type: string(it.Type), Status: it.Status, Text: llmOneLine(it.Text),
		})
	}
	allowed := map[string]bool{}
	for i := range b.Messages {
		m := &b.Messages[i]
		if m.ID == "" || m.Role == "system" || m.Role == "tool" || allowed[m.ID] {
			continue
		}
		content := llmOneLine(m.Text())
		if content == "" {
			continue
		}
		allowed[m.ID] = true
		pm := llmPromptMessage{
			ID: llmOneLine(m.ID), Role: m.Role, Speaker: llmOneLine(m.Speaker), Content: llmClip(content, llmMaxMessageChars),
		}
		if !m.CreatedAt.IsZero() {
			pm.Date = m.CreatedAt.Format("2006-01-02 Mon")
		}
		d.Messages = append(d.Messages, pm)
	}
	return d, allowed
}

// llmRequest renders the prompt into a temperature-0 request.
func llmRequest(d llmPromptData, maxTokens int) (llm.Request, error) {
	return llm.RenderRequest(llmPrompt, d, maxTokens)
}

// llmOneLine collapses line breaks and runs of white space to single
// spaces, so that quoted text cannot start a line of its own and pass for
// a transcript line or an existing item.
func llmOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// llmClip cuts s to at most n bytes on a rune boundary, marking the cut.
func llmClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " …"
}

// candidates checks the answer's elements and builds the Result.
func (l *LLM) candidates(elems []json.RawMessage, b Batch, allowed map[string]bool) Result {
	existing := map[string]bool{}
	for _, it := range b.Existing {
		existing[it.UID] = true
	}
	var res Result
	byUID := map[string]int{}
	for i, raw := range elems {
		if isFact(raw) {
			f, reason := llmFact(raw, allowed)
			if reason != "" {
				l.o.Logger.Debug("extract llm: dropped fact", "index", i, "reason", reason, "fact", llmClip(string(raw), 300))
				res.Drop(reason)
				continue
			}
			res.Facts = append(res.Facts, f)
			continue
		}
		c, reason := llmCandidate(raw, b.ThreadID, allowed, existing)
		if reason != "" {
			l.o.Logger.Debug("extract llm: dropped item", "index", i, "reason", reason, "item", llmClip(string(raw), 300))
			res.Drop(reason)
			continue
		}
		if j, ok := byUID[c.Item.UID]; ok {
			prev := &res.Items[j]
			for _, r := range c.Item.Refs {
				if !slices.Contains(prev.Item.Refs, r) {
					prev.Item.Refs = append(prev.Item.Refs, r)
				}
			}
			prev.Item.Confidence = tenure.MaxConfidence(prev.Item.Confidence, c.Item.Confidence)
			prev.Item.Status = tenure.MergeStateStatus(prev.Item.Type, prev.Item.Status, c.Item.Status)
			prev.Item.Conflict = prev.Item.Conflict || c.Item.Conflict
			if prev.Supersedes == "" {
				prev.Supersedes = c.Supersedes
			}
			continue
		}
		if len(res.Items) == l.o.MaxCandidates {
			res.Drop("over_cap")
			continue
		}
		byUID[c.Item.UID] = len(res.Items)
		res.Items = append(res.Items, c)
	}
	return res
}

// llmCandidate reads one answer element. It returns the candidate, or the
// reason it was dropped.
func llmCandidate(raw json.RawMessage, threadID string, allowed, existing map[string]bool) (Candidate, string) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		return Candidate{}, "unparsable"
	}
	typ := tenure.StateType(strings.ToLower(llmString(llmField(f, "type_tag", "type"))))
	if !slices.Contains(tenure.StateTypes, typ) {
		return Candidate{}, "invalid_type"
	}
	text, ok := llmText(f["text"])
	if !ok {
		return Candidate{}, "unparsable"
	}
	if strings.TrimSpace(text) == "" {
		return Candidate{}, "empty_text"
	}
	var refs []string
	for _, r := range llmStrings(f["refs"]) {
		if r = strings.Trim(r, "[] "); allowed[r] {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 {
		return Candidate{}, "no_valid_refs"
	}
	it := tenure.StateItem{
		Type:       typ,
		Text:       text,
		Status:     strings.ToLower(llmString(f["status"])),
		Confidence: llmConfidence(f["confidence"]),
		TopicTags:  llmStrings(llmField(f, "topic_tags", "tags", "topics")),
		Refs:       refs,
		Subject:    llmString(f["subject"]),
		Value:      llmString(f["value"]),
		Conflict:   llmBool(f["conflict"]),
		Source:     LLMSource,
		ThreadID:   threadID,
	}
	if typ == tenure.StateAction {
		it.Owner = llmString(llmField(f, "owner", "assignee"))
		if due := llmString(llmField(f, "due", "due_date")); due != "" {
			if _, _, err := tenure.ParseDue(due); err == nil {
				it.Due = due
			}
		}
	}
	if typ == tenure.StateDecision {
		it.Alternatives = llmAlternatives(llmStrings(f["alternatives"]))
	}
	it.Coerce() // repairs status and confidence, sets the uid
	for _, field := range []*string{&it.Subject, &it.Value, &it.Owner} {
		if len(*field) > tenure.MaxIDLen {
			*field = "" // an overlong slot is not worth the item
		}
	}
	it.UID = it.ItemUID()
	if err := it.Validate(); err != nil && tenure.ErrorField(err) == "state_item.topic_tags" {
		it.TopicTags = nil // bad labels are not worth the item
	}
	if err := it.Validate(); err != nil {
		return Candidate{}, "invalid"
	}
	sup := strings.Trim(llmString(f["supersedes"]), "[] ")
	if !existing[sup] || sup == it.UID {
		sup = ""
	}
	return Candidate{Item: it, Supersedes: sup}, ""
}

// isFact reports whether an answer element is a fact: "kind": "fact", or
// an "attribute" and no "type_tag".
func isFact(raw json.RawMessage) bool {
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil || f == nil {
		return false
	}
	if k := strings.ToLower(llmString(f["kind"])); k != "" {
		return k == "fact"
	}
	_, attr := f["attribute"]
	_, typ := f["type_tag"]
	return attr && !typ
}

// llmFact reads a fact element. It returns the fact, or the reason it was
// dropped.
func llmFact(raw json.RawMessage, allowed map[string]bool) (Fact, string) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		return Fact{}, "unparsable"
	}
	fc := Fact{
		Kind:       FactKind(strings.ToLower(llmString(llmField(f, "fact_kind", "about")))),
		Subject:    llmOneLine(llmString(f["subject"])),
		Attribute:  strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(llmString(f["attribute"]), "-", " "))), "_"),
		Value:      llmOneLine(llmString(f["value"])),
		Text:       llmOneLine(llmString(f["text"])),
		Confidence: llmConfidence(f["confidence"]),
	}
	switch fc.Kind {
	case FactProfile, FactPerson, FactOrganization:
	default:
		fc.Kind = FactPerson
	}
	if !slices.Contains(tenure.Confidences, fc.Confidence) {
		fc.Confidence = tenure.ConfidenceLow
	}
	if fc.Subject == "" || fc.Attribute == "" || fc.Value == "" {
		return Fact{}, "invalid_fact"
	}
	if fc.Text == "" {
		fc.Text = fc.Subject + " " + strings.ReplaceAll(fc.Attribute, "_", " ") + ": " + fc.Value
	}
	for _, r := range llmStrings(f["refs"]) {
		if r = strings.Trim(r, "[] "); allowed[r] && !slices.Contains(fc.Refs, r) {
			fc.Refs = append(fc.Refs, r)
		}
	}
	if len(fc.Refs) == 0 {
		return Fact{}, "no_valid_refs"
	}
	if v := llmString(f["valid_from"]); v != "" {
		if d, _, err := tenure.ParseDue(v); err == nil {
			fc.ValidFrom = &d
		}
	}
	return fc, ""
}

// llmField returns the first of f's values under the given keys.
func llmField(f map[string]json.RawMessage, keys ...string) json.RawMessage {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			return v
		}
	}
	return nil
}

// llmText decodes a required text: a JSON string, or a number; null and
// absence read as empty. Anything else is not ok.
func llmText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if raw[0] == '{' || raw[0] == '[' {
		return "", false
	}
	return llmString(raw), true
}

// llmString decodes a JSON scalar as a trimmed string: a string as is, a
// number or boolean as written; null, objects and arrays as "". The
// strings "null" and "none" read as "".
func llmString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	switch raw[0] {
	case '"':
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
	case '{', '[', 'n':
		return ""
	default:
		s = string(raw) // number or boolean
	}
	s = strings.TrimSpace(s)
	if l := strings.ToLower(s); l == "null" || l == "none" {
		return ""
	}
	return s
}

// llmStrings decodes a list of strings leniently: an array's scalar
// elements, or a single string split at commas.
func llmStrings(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if len(raw) > 0 && raw[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil
		}
		for _, e := range elems {
			add(llmString(e))
		}
		return out
	}
	for _, s := range strings.Split(llmString(raw), ",") {
		add(s)
	}
	return out
}

// llmAlternatives keeps the alternatives a model named that fit an item:
// an overlong one, or one with a control character other than white
// space, is dropped, and at most tenure.MaxAlternatives are kept.
func llmAlternatives(alts []string) []string {
	alts = slices.DeleteFunc(alts, func(a string) bool {
		return len(a) > tenure.MaxIDLen || strings.ContainsFunc(a, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) })
	})
	return alts[:min(len(alts), tenure.MaxAlternatives)]
}

// llmConfidence decodes a confidence: a level's name in any case, or a
// probability in [0, 1] bucketed (>= 0.8 high, >= 0.5 medium, else low).
// Anything else is returned as is, for Coerce to repair.
func llmConfidence(raw json.RawMessage) tenure.Confidence {
	s := strings.ToLower(llmString(raw))
	if p, err := strconv.ParseFloat(s, 64); err == nil && p >= 0 && p <= 1 {
		switch {
		case p >= 0.8:
			return tenure.ConfidenceHigh
		case p >= 0.5:
			return tenure.ConfidenceMedium
		default:
			return tenure.ConfidenceLow
		}
	}
	return tenure.Confidence(s)
}

// llmBool decodes a flag: true, "true", "yes" or a non-zero number.
func llmBool(raw json.RawMessage) bool {
	switch s := strings.ToLower(llmString(raw)); s {
	case "true", "yes":
		return true
	default:
		n, err := strconv.ParseFloat(s, 64)
		return err == nil && n != 0
	}
}
