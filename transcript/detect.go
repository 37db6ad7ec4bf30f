package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SniffLen is how much of the start of an input Detect looks at.
const SniffLen = 64 << 10

// Detection is what the start of an input looks like.
type Detection struct {
	// Format is the format the input has, "" when none fits.
	Format Format
	// Looks describes the input for people: `a JSON object with keys
	// "a", "b"`, `text starting "id,name"`.
	Looks string
	// Note explains a near miss: a shape ingest knows but does not read.
	Note string
}

// Detect tells the format of an input from its start (at most SniffLen
// bytes; the start of a longer input, cut anywhere, is fine). It reads the
// keys of the first records (the object, the array's elements or the
// lines) and, for chat exports, the roles and content block types:
//   - jsonl: objects with thread_id, or with role, content and created_at;
//   - locomo: an object with "conversation", speaker_a or session_N;
//   - longmemeval: questions with haystack_sessions;
//   - anthropic: "chat_messages" (claude.ai), or "messages" with a
//     top-level "system" or tool_use, tool_result, thinking or image blocks;
//   - openai: "mapping" (ChatGPT), "conversations" (ShareGPT), or any
//     other "messages".
func Detect(prefix []byte) Detection {
	prefix = bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf"))
	s := sniffJSON(prefix)
	d := Detection{Looks: s.looks(prefix)}
	keys := s.keys
	switch {
	case s.top != '{' && s.top != '[':
	case keys["thread_id"] || keys["role"] && keys["content"] && keys["created_at"]:
		if s.top == '{' {
			d.Format = JSONL
		} else {
			d.Note = "a JSON array of Tenure messages: --format jsonl wants one a line (jq -c '.[]' FILE converts it)"
		}
	case keys["conversation"] || keys["speaker_a"] || s.sessionKeys:
		if s.top == '{' {
			d.Format = LoCoMo
		} else {
			d.Note = "several LoCoMo conversations in one array (as in locomo10.json): --format locomo reads one conversation a file"
		}
	case keys["haystack_sessions"] || keys["haystack_session_ids"] || keys["haystack_dates"]:
		d.Format = LongMemEval
	case keys["chat_messages"]:
		d.Format = Anthropic
	case keys["mapping"] || keys["conversations"]:
		d.Format = OpenAI
	case keys["messages"]:
		d.Format = OpenAI
		if s.anthropic && !s.openai {
			d.Format = Anthropic
		}
	case keys["role"] && keys["content"]:
		d.Note = `chat messages outside a conversation: --format openai wants {"messages": [{"role", "content"}, ...]} for each conversation`
	}
	return d
}

// sniff is what a token walk over the start of an input saw.
type sniff struct {
	top byte // the first character: '{', '[' or another
	// first holds the first record's keys in order; keys those of every
	// record seen (records are the top-level objects, or the elements of
	// a top-level array).
	first       []string
	keys        map[string]bool
	sessionKeys bool // a record key session_N (LoCoMo)
	// anthropic and openai report signs of either chat format in
	// messages: roles, content block types, tool calls.
	anthropic, openai bool
	records           int
	// lines reports that the first record ends on the first line and
	// more follows: JSON Lines.
	lines bool
	// elem is the kind of the first element of a top-level array.
	elem string
}

var sessionKey = regexp.MustCompile(`^session_\d+$`)

var (
	anthropicBlocks = map[string]bool{"tool_use": true, "tool_result": true, "thinking": true, "redacted_thinking": true,
		"image": true, "document": true, "server_tool_use": true}
	openAIBlocks = map[string]bool{"image_url": true, "input_audio": true, "input_text": true, "output_text": true,
		"refusal": true, "file": true}
	openAIOnlyRoles = map[string]bool{"system": true, "developer": true, "tool": true, "function": true}
)

// frame is an open object or array of the walk.
type frame struct {
	object bool
	key    string // the current key of an object
	keyed  bool   // the object's next token is a value
}

func sniffJSON(data []byte) sniff {
	s := sniff{keys: map[string]bool{}}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return s
	}
	s.top = trimmed[0]
	if s.top != '{' && s.top != '[' {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	// path returns the keys from the record down, arrays as "*".
	path := func() []string {
		var p []string
		for i, f := range stack {
			if i == 0 && s.top == '[' {
				continue
			}
			if f.object {
				p = append(p, f.key)
			} else {
				p = append(p, "*")
			}
		}
		return p
	}
	recordDepth := 1
	if s.top == '[' {
		recordDepth = 2
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return s // the end of the input, or of the prefix
		}
		if key, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].object && !stack[len(stack)-1].keyed {
			n := len(stack)
			stack[n-1].key, stack[n-1].keyed = key, true
			if n == recordDepth {
				if s.records == 1 {
					s.first = append(s.first, key)
				}
				s.keys[key] = true
				s.sessionKeys = s.sessionKeys || sessionKey.MatchString(key)
				s.anthropic = s.anthropic || key == "system"
			}
			if p := path(); len(p) == 3 && isMessages(p[0]) {
				s.openai = s.openai || key == "tool_calls" || key == "function_call" || key == "tool_call_id"
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].keyed = false
		}
		if v, ok := tok.(string); ok {
			s.value(path(), v)
		}
		if n := len(stack); n == 1 && s.top == '[' && s.elem == "" && tok != json.Delim(']') {
			s.elem = tokenKind(tok)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) == recordDepth-1 {
				s.records++
			}
			stack = append(stack, frame{object: tok == json.Delim('{')})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].keyed = false
			}
			if len(stack) == 0 && s.records == 1 && s.top == '{' {
				end := int(dec.InputOffset())
				start := len(data) - len(trimmed)
				rest := bytes.TrimLeft(data[end:], " \t\r")
				s.lines = !bytes.Contains(data[start:end], []byte("\n")) && len(bytes.TrimSpace(rest)) > 0
			}
		}
		if len(stack) == 0 && s.top == '[' {
			return s
		}
	}
}

func isMessages(key string) bool { return key == "messages" || key == "chat_messages" }

// value notes a string value at path.
func (s *sniff) value(p []string, v string) {
	switch {
	case len(p) == 3 && isMessages(p[0]) && (p[2] == "role" || p[2] == "sender"):
		if openAIOnlyRoles[v] {
			s.openai = true
		}
		if v == "human" {
			s.anthropic = true
		}
	case len(p) == 5 && isMessages(p[0]) && p[2] == "content" && p[4] == "type":
		s.anthropic = s.anthropic || anthropicBlocks[v]
		s.openai = s.openai || openAIBlocks[v]
	}
}

func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('{') {
			return "objects"
		}
		if tok == json.Delim('[') {
			return "arrays"
		}
	case string:
		return "strings"
	case bool:
		return "booleans"
	case nil:
		return "nulls"
	}
	return "numbers"
}

// looks describes the input for people.
func (s *sniff) looks(data []byte) string {
	keys := func() string {
		if len(s.first) == 0 {
			return "no keys"
		}
		q := make([]string, 0, 8)
		for i, k := range s.first {
			if i == 8 {
				q = append(q, fmt.Sprintf("and %d more", len(s.first)-8))
				break
			}
			q = append(q, strconv.Quote(k))
		}
		return "keys " + strings.Join(q, ", ")
	}
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return "an empty file"
	case s.top == '{' && s.lines:
		return "JSON lines of objects, the first with " + keys()
	case s.top == '{':
		return "a JSON object with " + keys()
	case s.top == '[' && s.elem == "":
		return "an empty JSON array"
	case s.top == '[' && s.elem == "objects":
		return "a JSON array of objects, the first with " + keys()
	case s.top == '[':
		return "a JSON array of " + s.elem
	}
	text := bytes.TrimSpace(data)
	if bytes.HasPrefix(text, []byte{0x1f, 0x8b}) {
		return "gzip-compressed data"
	}
	var start []rune
	for len(text) > 0 && len(start) < 40 {
		r, n := utf8.DecodeRune(text)
		if r == 0 || r == utf8.RuneError && n == 1 {
			return "binary data"
		}
		start, text = append(start, r), text[n:]
	}
	return fmt.Sprintf("text starting %q", string(start))
}
