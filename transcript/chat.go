package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// Read reads a chat export of format f (OpenAI or Anthropic): one
// conversation object, a JSON array of them, or one a line. Each
// conversation becomes a thread (see Options.Name); its turns become
// messages with ids "m<index>" (the turn's index in the conversation, from
// 0) unless the export gives them one. A turn's text blocks make one
// message of the turn's role; each tool call and tool result in it makes a
// message of role tool with id "<turn id>.<n>", n the block's index. System
// prompts, empty turns and content blocks of other types are left out and
// counted (Result.Omitted).
func Read(r io.Reader, f Format, opt Options) (*Result, error) {
	var conv func(c *conversation, o object) error
	switch f {
	case OpenAI:
		conv = openAIConversation
	case Anthropic:
		conv = anthropicConversation
	default:
		return nil, tenure.Errorf(tenure.CodeInvalid, "format", "%q is not a chat export format", f)
	}
	if opt.Name == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "name", "required: the thread name of a chat export")
	}
	b := newBuilder(f)
	turns := 0 // turns of the conversations before, for derived times
	err := eachValue(r, "a conversation object", func(raw json.RawMessage, at place, err error) {
		if err != nil {
			b.problem(at.source(""), nil, err)
			return
		}
		thread := opt.Name
		if at.several {
			thread = fmt.Sprintf("%s-%d", opt.Name, at.index)
		}
		c := &conversation{b: b, at: at, thread: thread, start: opt.Start.Add(time.Duration(turns) * time.Second)}
		o, err := decodeObject(raw)
		if err == nil {
			err = conv(c, o)
		}
		if err != nil {
			b.problem(at.source(""), &tenure.Message{ThreadID: thread}, err)
		}
		turns += c.turns
	})
	if err != nil {
		return nil, err
	}
	return &b.res, nil
}

// conversation turns a conversation's turns into messages.
type conversation struct {
	b      *builder
	at     place
	thread string
	// start dates the first turn when neither it nor the conversation
	// has a timestamp; anchor is the last timestamp seen and anchorAt its
	// turn.
	start    time.Time
	anchor   *time.Time
	anchorAt int
	turns    int
}

// turn is one entry of a conversation's messages.
type turn struct {
	// index is the turn's position in the conversation; path its JSON path
	// within the conversation ("messages[3]").
	index int
	path  string
	id    string
	// role is user, assistant or tool; system turns are counted and left
	// out.
	role, speaker string
	stamp         *time.Time
	parts         []part
}

// part is a text or a tool block of a turn, in order.
type part struct {
	tool    bool
	n       int // the block's index, for a tool part's id
	speaker string
	text    string
}

// text appends text to the turn's text part, which is placed where its
// first text block was.
func (t *turn) text(s string) {
	for i := range t.parts {
		if !t.parts[i].tool {
			if strings.TrimSpace(s) != "" {
				t.parts[i].text = joinText(t.parts[i].text, s)
			}
			return
		}
	}
	t.parts = append(t.parts, part{text: s})
}

// tool appends a tool call or result (block n of the turn).
func (t *turn) tool(n int, speaker, s string) {
	t.parts = append(t.parts, part{tool: true, n: n, speaker: speaker, text: s})
}

func joinText(a, b string) string {
	if strings.TrimSpace(a) == "" {
		return b
	}
	return a + "\n\n" + b
}

// begin dates the conversation from its own timestamp, if it has one.
func (c *conversation) begin(stamp *time.Time) { c.anchor, c.anchorAt = stamp, 0 }

// timeOf dates turn i: its own timestamp, else one second per turn after
// the last timestamp (or the conversation's start).
func (c *conversation) timeOf(i int, stamp *time.Time) (time.Time, bool) {
	if stamp != nil {
		c.anchor, c.anchorAt = stamp, i
		return *stamp, false
	}
	if c.anchor != nil {
		return c.anchor.Add(time.Duration(i-c.anchorAt) * time.Second), true
	}
	return c.start.Add(time.Duration(i) * time.Second), true
}

// emit turns t into messages.
func (c *conversation) emit(t turn) {
	c.turns = max(c.turns, t.index+1)
	if t.role == "system" {
		c.b.res.Omitted.SystemMessages++
		return
	}
	at, derived := c.timeOf(t.index, t.stamp)
	id := t.id
	if id == "" {
		id = "m" + strconv.Itoa(t.index)
	}
	src := c.at.source(t.path)
	src.Derived = derived
	n := 0
	for _, p := range t.parts {
		if strings.TrimSpace(p.text) == "" {
			continue
		}
		m := tenure.Message{ThreadID: c.thread, ID: id, Role: t.role, Speaker: t.speaker, Content: p.text, CreatedAt: at}
		if p.tool {
			m.ID, m.Role, m.Speaker = fmt.Sprintf("%s.%d", id, p.n), "tool", p.speaker
		}
		c.b.add(m, src)
		n++
	}
	if n == 0 {
		c.b.res.Omitted.EmptyTurns++
	}
}

// each reads the turns of list, the conversation's array at key, with
// read.
func (c *conversation) each(key string, list []json.RawMessage, read func(i int, raw json.RawMessage) (turn, error)) {
	for i, raw := range list {
		t, err := read(i, raw)
		c.add(fmt.Sprintf("%s[%d]", key, i), t, err)
	}
}

// add emits t, the turn at path of the conversation, or records err.
func (c *conversation) add(path string, t turn, err error) {
	if err != nil {
		c.turns = max(c.turns, t.index+1)
		c.b.problem(c.at.source(path), &tenure.Message{ThreadID: c.thread, ID: t.id}, err)
		return
	}
	t.path = path
	c.emit(t)
}

// newTurn decodes turn i, taking its id from the first of idKeys present.
func newTurn(i int, raw json.RawMessage, idKeys ...string) (turn, object, error) {
	t := turn{index: i}
	m, err := decodeObject(raw)
	if err != nil {
		return t, nil, err
	}
	for _, k := range idKeys {
		if t.id, err = m.id(k); err != nil || t.id != "" {
			break
		}
	}
	return t, m, err
}

// object is a JSON object read leniently: fields other tools add are
// ignored, and a field of the wrong type is an error naming it.
type object map[string]json.RawMessage

func decodeObject(raw json.RawMessage) (object, error) {
	var o object
	if len(raw) == 0 || raw[0] != '{' {
		return nil, tenure.Errorf(tenure.CodeInvalid, "", "want an object, got %s", jsonx.Kind(raw))
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot decode object", Err: err}
	}
	return o, nil
}

// has reports whether key is present and not null.
func (o object) has(key string) bool {
	v, ok := o[key]
	return ok && string(v) != "null"
}

// str returns the string at key ("" when absent or null).
func (o object) str(key string) (string, error) {
	var s string
	if !o.has(key) {
		return "", nil
	}
	if err := json.Unmarshal(o[key], &s); err != nil {
		return "", tenure.Errorf(tenure.CodeInvalid, key, "want a string, got %s", jsonx.Kind(o[key]))
	}
	return s, nil
}

// id returns the id at key: a string, or a number as written.
func (o object) id(key string) (string, error) {
	if !o.has(key) {
		return "", nil
	}
	if v := o[key]; v[0] >= '0' && v[0] <= '9' || v[0] == '-' {
		return string(v), nil
	}
	return o.str(key)
}

// list returns the elements of the array at key (nil when absent or
// null).
func (o object) list(key string) ([]json.RawMessage, error) {
	var l []json.RawMessage
	if !o.has(key) {
		return nil, nil
	}
	if err := json.Unmarshal(o[key], &l); err != nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, key, "want an array, got %s", jsonx.Kind(o[key]))
	}
	return l, nil
}

// obj returns the object at key (nil when absent or null).
func (o object) obj(key string) (object, error) {
	if !o.has(key) {
		return nil, nil
	}
	v, err := decodeObject(o[key])
	if err != nil {
		return nil, jsonx.Under(key, err)
	}
	return v, nil
}

// stampKeys are the fields exports date a turn or a conversation with.
var stampKeys = []string{"created_at", "timestamp", "create_time"}

// stamp returns the first of stampKeys present, as a time.
func (o object) stamp() (*time.Time, error) {
	for _, k := range stampKeys {
		if o.has(k) {
			t, err := parseStamp(o[k])
			if err != nil {
				return nil, jsonx.Under(k, err)
			}
			return &t, nil
		}
	}
	return nil, nil
}

// stampLayouts are the text timestamps exports use, besides RFC 3339.
var stampLayouts = []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", time.DateOnly}

// parseStamp reads a timestamp: RFC 3339 (a time without a zone is UTC),
// a date, or Unix seconds as a number (fractions allowed; milliseconds
// when above 10^11, which as seconds would be past the year 5000).
func parseStamp(raw json.RawMessage) (time.Time, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return inCalendar(t.UTC(), s)
		}
		for _, l := range stampLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return inCalendar(t.UTC(), s)
			}
		}
		return time.Time{}, tenure.Errorf(tenure.CodeInvalid, "", "%q is not a time: want RFC 3339 or Unix seconds", s)
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f <= 0 || f > 1e15 {
		return time.Time{}, tenure.Errorf(tenure.CodeInvalid, "", "%s is not a time: want RFC 3339 or Unix seconds", clip(string(raw), 40))
	}
	if f > 1e11 {
		f /= 1000
	}
	sec, frac := math.Modf(f)
	// Microseconds: float seconds hold no more.
	return inCalendar(time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC(), string(raw))
}

// inCalendar refuses times outside years 1 to 9999, which no store holds.
func inCalendar(t time.Time, raw string) (time.Time, error) {
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, tenure.Errorf(tenure.CodeInvalid, "", "%s is outside years 1 to 9999", clip(raw, 40))
	}
	return t, nil
}
