package transcript

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// Format names an input format.
type Format string

// Input formats.
const (
	// Auto detects the format from the start of the input (see Detect).
	Auto Format = "auto"
	// JSONL is Tenure's message lines: one tenure.Message a line.
	JSONL Format = "jsonl"
	// LoCoMo is one LoCoMo conversation (read by package eval).
	LoCoMo Format = "locomo"
	// OpenAI is OpenAI chat: {"messages": [{"role", "content"}, ...]}, a
	// ChatGPT export conversation ({"mapping": {...}}) or a ShareGPT one
	// ({"conversations": [{"from", "value"}]}).
	OpenAI Format = "openai"
	// Anthropic is the Messages API transcript ({"system", "messages"}) or
	// a claude.ai export conversation ({"chat_messages": [...]}).
	Anthropic Format = "anthropic"
	// LongMemEval is LongMemEval's questions with their chat haystacks.
	LongMemEval Format = "longmemeval"
)

// Formats lists the formats an input may have, Auto excluded.
var Formats = []Format{JSONL, LoCoMo, OpenAI, Anthropic, LongMemEval}

// Title names the format for people ("an OpenAI chat export").
func (f Format) Title() string {
	switch f {
	case JSONL:
		return "Tenure message lines"
	case LoCoMo:
		return "a LoCoMo file"
	case OpenAI:
		return "an OpenAI chat export"
	case Anthropic:
		return "an Anthropic transcript"
	case LongMemEval:
		return "a LongMemEval file"
	}
	return string(f)
}

// Shape says what an input of the format looks like.
func (f Format) Shape() string {
	switch f {
	case JSONL:
		return `Tenure messages, one JSON object a line: {"thread_id", "id", "role", "content", "created_at", ...}`
	case LoCoMo:
		return `a LoCoMo conversation: {"conversation": {"speaker_a", "session_1": [turns], ...}} or the same keys at the top`
	case OpenAI:
		return `{"messages": [{"role", "content"}, ...]} (one, an array of them, or one a line), ChatGPT's conversations.json, or ShareGPT's {"conversations": [{"from", "value"}, ...]}`
	case Anthropic:
		return `{"system", "messages": [{"role", "content": text or blocks}, ...]} (one, an array, or one a line), or claude.ai's conversations.json`
	case LongMemEval:
		return `LongMemEval questions: [{"question_id", "haystack_session_ids", "haystack_dates", "haystack_sessions"}, ...]`
	}
	return ""
}

// ParseFormat checks a format name (Auto included).
func ParseFormat(field, s string) (Format, error) {
	f := Format(s)
	if f == Auto || slices.Contains(Formats, f) {
		return f, nil
	}
	names := []string{string(Auto)}
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return "", tenure.Errorf(tenure.CodeInvalid, field, "unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Parse reads an input of format f: JSONL (ReadJSONL), OpenAI or
// Anthropic (Read, with opt) or LongMemEval (ReadLongMemEval). LoCoMo is
// read by package eval, from a file.
func Parse(r io.Reader, f Format, opt Options) (*Result, error) {
	switch f {
	case JSONL:
		return ReadJSONL(r)
	case OpenAI, Anthropic:
		return Read(r, f, opt)
	case LongMemEval:
		return ReadLongMemEval(r)
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, "format", "transcript cannot read format %q", f)
}

// Options says how to name and date the messages of chat exports (OpenAI,
// Anthropic), which carry no thread ids, message ids or, often, times.
type Options struct {
	// Name is the thread of a file holding one conversation; a file
	// holding several names its threads Name-0, Name-1, ... by their
	// index. Required for chat exports.
	Name string
	// Start is the time of the first turn without a timestamp: each turn
	// is one second after the one before it, across the whole file, so
	// that the file's order is kept. A turn with a timestamp (created_at,
	// timestamp or create_time) keeps it, and the turns after it count on
	// from there; a conversation's own timestamp dates its first turn.
	Start time.Time
}

// Result is what a parser read.
type Result struct {
	Format   Format
	Messages []tenure.Message
	// Sources[i] says where Messages[i] came from.
	Sources []Source
	// Problems are the records that could not become messages, in input
	// order. None of them is in Messages.
	Problems []Problem
	// Omitted counts what chat exports hold that is not a message.
	Omitted Omitted
}

// Source is where a message came from in the input.
type Source struct {
	// Line is the input line (JSON Lines inputs), from 1; 0 otherwise.
	Line int
	// Path is the record's JSON path within the line or the file
	// ("[2].messages[5]"), empty for a Tenure message line.
	Path string
	// Derived reports that created_at was not in the input: it was
	// derived from Options.Start or from a neighbouring turn's timestamp.
	Derived bool
}

// Field returns the JSON path of field name within the source's record.
func (s Source) Field(name string) string { return joinPath(s.Path, name) }

// String describes the source for people ("line 3, messages[2]").
func (s Source) String() string {
	var parts []string
	if s.Line > 0 {
		parts = append(parts, "line "+strconv.Itoa(s.Line))
	}
	if s.Path != "" {
		parts = append(parts, s.Path)
	}
	return strings.Join(parts, ", ")
}

// Problem is a record of the input that could not become a message.
type Problem struct {
	// Line is the input line (JSON Lines inputs), from 1; 0 otherwise.
	Line int `json:"line,omitempty"`
	// Field is the JSON path of the offending field within the line or
	// the file ("[2].messages[5].content"); empty for malformed JSON.
	Field string `json:"field,omitempty"`
	// ThreadID and ID name the message, once known.
	ThreadID string      `json:"thread_id,omitempty"`
	ID       string      `json:"id,omitempty"`
	Code     tenure.Code `json:"code"`
	Reason   string      `json:"reason"`
}

// NewProblem describes err, a *tenure.Error about the record at src (its
// field relative to the record), as a Problem of message m (which may be
// nil).
func NewProblem(src Source, m *tenure.Message, err error) Problem {
	te := tenure.AsError(err)
	p := Problem{Line: src.Line, Field: src.Field(te.Field), Code: te.Code, Reason: te.Message}
	if te.Err != nil {
		p.Reason += ": " + te.Err.Error()
	}
	if m != nil {
		p.ThreadID, p.ID = m.ThreadID, m.ID
	}
	return p
}

// Err returns the problem as an error: a *tenure.Error naming the field,
// prefixed with the line.
func (p Problem) Err() error {
	err := &tenure.Error{Code: p.Code, Field: p.Field, Message: p.Reason}
	if p.Line == 0 || strings.HasPrefix(p.Reason, fmt.Sprintf("line %d,", p.Line)) {
		return err
	}
	return fmt.Errorf("line %d: %w", p.Line, err)
}

// String is the problem for people: its line, field and reason.
func (p Problem) String() string { return p.Err().Error() }

// Omitted counts what a chat export holds that does not become a message.
type Omitted struct {
	// EmptyTurns are turns with no text (after leaving out content blocks
	// of other types).
	EmptyTurns int `json:"empty_turns,omitempty"`
	// SystemMessages are system and developer prompts and hidden context
	// messages: instructions to a past model, not conversation.
	SystemMessages int `json:"system_messages,omitempty"`
	// Blocks counts content blocks of other types (images, thinking,
	// files, ...) by type.
	Blocks map[string]int `json:"content_blocks,omitempty"`
}

// Zero reports whether nothing was omitted.
func (o Omitted) Zero() bool { return o.EmptyTurns == 0 && o.SystemMessages == 0 && len(o.Blocks) == 0 }

// String lists what was omitted ("1 empty turn, 2 system messages, 3
// content blocks (image 2, thinking 1)").
func (o Omitted) String() string {
	var parts []string
	if o.EmptyTurns > 0 {
		parts = append(parts, plural(o.EmptyTurns, "empty turn"))
	}
	if o.SystemMessages > 0 {
		parts = append(parts, plural(o.SystemMessages, "system message"))
	}
	if len(o.Blocks) > 0 {
		n := 0
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(o.Blocks)) {
			n += o.Blocks[k]
			kinds = append(kinds, fmt.Sprintf("%s %d", k, o.Blocks[k]))
		}
		parts = append(parts, fmt.Sprintf("%s of other types (%s)", plural(n, "content block"), strings.Join(kinds, ", ")))
	}
	return strings.Join(parts, ", ")
}

func (o *Omitted) block(kind string) {
	if o.Blocks == nil {
		o.Blocks = map[string]int{}
	}
	if kind == "" {
		kind = "untyped"
	}
	o.Blocks[kind]++
}

func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// joinPath places name under path: "content" under "messages[2]" is
// "messages[2].content", "[1]" under "mapping" is "mapping[1]".
func joinPath(path, name string) string {
	switch {
	case path == "":
		return name
	case name == "":
		return path
	case strings.HasPrefix(name, "["):
		return path + name
	}
	return path + "." + name
}

// Difference names the first field in which b differs from a, a message
// with the same thread, user and id ("" when b restates a): what makes a
// repeated id a conflict rather than a no-op.
func Difference(a, b *tenure.Message) string {
	switch {
	case a.Content != b.Content:
		return "content"
	case a.Role != b.Role:
		return "role"
	case a.Speaker != b.Speaker:
		return "speaker"
	case !a.CreatedAt.Equal(b.CreatedAt):
		return "created_at"
	case !slices.Equal(a.Attachments, b.Attachments):
		return "attachments"
	}
	return ""
}

// Other phrases a Difference: "other content", "another created_at".
func Other(field string) string {
	if field == "content" {
		return "other content"
	}
	return "another " + field
}

// Collect checks messages read by another package (srcs[i] says where
// msgs[i] came from) as the parsers check theirs: each must be valid, and
// an id repeated with other content is a problem.
func Collect(f Format, msgs []tenure.Message, srcs []Source) *Result {
	b := newBuilder(f)
	for i, m := range msgs {
		b.add(m, srcs[i])
	}
	return &b.res
}

// builder collects a parse's messages and problems, validating each
// message and checking that an id is not repeated with other content.
type builder struct {
	res  Result
	seen map[[3]string]int // thread, user and id -> index in res.Messages
}

func newBuilder(f Format) *builder {
	return &builder{res: Result{Format: f}, seen: map[[3]string]int{}}
}

// add appends m, or a problem when m is invalid or repeats an earlier
// message's id with other content (in its thread and its user's
// namespace).
func (b *builder) add(m tenure.Message, src Source) {
	if err := m.Validate(); err != nil {
		b.problem(src, &m, err)
		return
	}
	k := [3]string{m.ThreadID, m.UserID, m.ID}
	if j, ok := b.seen[k]; ok {
		if d := Difference(&b.res.Messages[j], &m); d != "" {
			b.problem(src, &m, tenure.Errorf(tenure.CodeConflict, "id",
				"message %q appears twice in thread %q with %s (first at %s)", m.ID, m.ThreadID, Other(d), b.res.Sources[j]))
			return
		}
	} else {
		b.seen[k] = len(b.res.Messages)
	}
	b.res.Messages = append(b.res.Messages, m)
	b.res.Sources = append(b.res.Sources, src)
}

// problem records err about the record at src.
func (b *builder) problem(src Source, m *tenure.Message, err error) {
	b.res.Problems = append(b.res.Problems, NewProblem(src, m, err))
}
