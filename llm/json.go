package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// maxJSONStarts bounds how many candidate openings ('[' or '{') ExtractJSON
// tries, so that adversarial output full of brackets costs linear time per
// try and a bounded number of tries.
const maxJSONStarts = 64

// excerptLen is how many runes of model output an error message quotes.
const excerptLen = 80

// ExtractJSON returns the first complete JSON array or object in text, a
// model's answer, as valid JSON. It tolerates what models wrap around or
// slip into JSON: a leading <think>...</think> block, ``` or ```json fences
// (the fenced content is preferred over the prose around it), prose before
// and after the value, and trailing commas before ] or }. It does not
// repair anything else (single quotes, smart quotes, comments, unquoted
// keys).
//
// Errors: tenure.CodeInvalid when text is empty, holds no JSON array or
// object, or its JSON is cut off (a model that ran out of tokens). The
// message quotes a short excerpt of text.
func ExtractJSON(text string) (json.RawMessage, error) {
	body := stripThink(text)
	if strings.TrimSpace(body) == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "", "empty model output")
	}
	// Fenced blocks first: prose around a fence may hold brackets ("see
	// [1]") that would otherwise be taken for the answer.
	for _, block := range fencedBlocks(body) {
		if raw, err := firstValue(block); err == nil {
			return raw, nil
		}
	}
	raw, err := firstValue(body)
	if err != nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "", "%s in model output: %q", err.Error(), excerpt(text))
	}
	return raw, nil
}

// ExtractJSONArray is ExtractJSON for answers that should be a JSON array,
// returning its elements. It also accepts a single object, as one element,
// and an object whose only field is an array ({"items": [...]}), as that
// array's elements; an empty object is taken for an empty answer. Elements
// are returned as they are, not checked against any schema.
//
// Errors: those of ExtractJSON.
func ExtractJSONArray(text string) ([]json.RawMessage, error) {
	raw, err := ExtractJSON(text)
	if err != nil {
		return nil, err
	}
	if raw[0] == '{' {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, tenure.Errorf(tenure.CodeInvalid, "", "decode JSON object in model output: %v", err)
		}
		if len(fields) == 0 {
			return []json.RawMessage{}, nil
		}
		if len(fields) > 1 {
			return []json.RawMessage{raw}, nil
		}
		for _, v := range fields {
			if v = bytes.TrimSpace(v); len(v) == 0 || v[0] != '[' {
				return []json.RawMessage{raw}, nil
			}
			raw = v
		}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "", "decode JSON array in model output: %v", err)
	}
	if elems == nil {
		elems = []json.RawMessage{}
	}
	return elems, nil
}

// errNoJSON and errTruncated are firstValue's failures; ExtractJSON turns
// them into messages.
var (
	errNoJSON    = errors.New("no JSON array or object")
	errTruncated = errors.New("unterminated JSON (output cut off?)")
)

// firstValue returns the first complete array or object in s, with
// trailing commas removed. An opening that starts something that is not
// JSON (prose such as "[see below]") is skipped; one that starts JSON that
// runs off the end of s is reported as truncated rather than skipped, so a
// cut-off array never yields its first element as the answer.
func firstValue(s string) (json.RawMessage, error) {
	for tries := 0; tries < maxJSONStarts; tries++ {
		i := strings.IndexAny(s, "[{")
		if i < 0 {
			break
		}
		s = s[i:]
		dec := json.NewDecoder(strings.NewReader(dropTrailingCommas(s)))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		switch {
		case err == nil:
			return raw, nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errTruncated
		}
		s = s[1:]
	}
	return nil, errNoJSON
}

// dropTrailingCommas returns the JSON value at the start of s (s[0] is '['
// or '{') followed by the rest of s, with every comma that is followed only
// by whitespace before a ']' or '}' removed. Strings are respected. Work
// stops where the value's brackets balance.
func dropTrailingCommas(s string) string {
	var b strings.Builder
	depth, inString, escaped, last := 0, false, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			j := i + 1
			for j < len(s) && isJSONSpace(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == ']' || s[j] == '}') {
				if b.Cap() == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[last:i])
				last = i + 1
			}
		}
		if depth == 0 {
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// stripThink removes a leading <think>...</think> block, which reasoning
// models served through OpenAI-compatible servers put before their answer
// and which often holds draft JSON. An unclosed block leaves no answer.
func stripThink(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "<think>") {
		return s
	}
	if end := strings.Index(t, "</think>"); end >= 0 {
		return t[end+len("</think>"):]
	}
	return ""
}

// fencedBlocks returns the contents of the ``` fenced blocks of s, in
// order, without the info string ("json") of the opening fence. A fence
// opens at the start of a line, as Markdown wants, so backticks inside a
// JSON string (which cannot span lines) never open one. It closes at the
// next fence that starts a line or ends s; an unclosed fence runs to the
// end of s.
func fencedBlocks(s string) []string {
	var blocks []string
	for {
		open := lineFence(s, 0)
		if open < 0 {
			return blocks
		}
		s = s[open+3:]
		// Skip the info string up to the end of the fence's line, unless
		// the line already holds the JSON ("```[1]```").
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], "[{") {
			s = s[nl+1:]
		}
		end := lineFence(s, 0)
		if end < 0 {
			if t := strings.TrimRight(s, " \t\r\n"); strings.HasSuffix(t, "```") {
				end = len(t) - 3
			}
		}
		if end < 0 {
			return append(blocks, s)
		}
		blocks = append(blocks, s[:end])
		s = s[end+3:]
	}
}

// lineFence returns the index of the first ``` in s at or after from that
// starts a line (only spaces or tabs before it on its line), or -1.
func lineFence(s string, from int) int {
	for {
		i := strings.Index(s[from:], "```")
		if i < 0 {
			return -1
		}
		i += from
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j == 0 || s[j-1] == '\n' {
			return i
		}
		from = i + 3
	}
}

// excerpt returns the start of s, trimmed, for error messages.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= excerptLen {
		return s
	}
	n := 0
	for i := range s {
		if n == excerptLen {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
