package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// MaxValue caps one conversation of a chat export: a line of JSON Lines,
// an element of an array, or a file that is one JSON object.
const MaxValue = 256 << 20

// place is where a conversation is in its file.
type place struct {
	// index counts conversations from 0, line is the line of a JSON Lines
	// file (0 otherwise) and path the element of an array ("[3]").
	index, line int
	path        string
	// several reports that the file holds more than one conversation.
	several bool
}

func (p place) source(path string) Source { return Source{Line: p.line, Path: joinPath(p.path, path)} }

// eachValue calls fn with each top-level value of a chat export, which may
// be one JSON object (however laid out), a JSON array of objects (read one
// element at a time, so its size is not capped) or JSON Lines (when the
// first line is a whole JSON value). A malformed line of JSON Lines is
// passed to fn as its error, raw nil; any other malformed JSON ends the
// read with an error.
func eachValue(r io.Reader, want string, fn func(raw json.RawMessage, at place, err error)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	line, err := skipSpace(br)
	if err != nil {
		return err
	}
	c, err := br.Peek(1)
	if err != nil {
		return tenure.Errorf(tenure.CodeInvalid, "", "no input: want %s", want)
	}
	if c[0] == '[' {
		return eachElement(br, want, fn)
	}
	first, err := readLine(br, line)
	if err != nil {
		return err
	}
	if c[0] == '{' && json.Valid(first) {
		return eachLine(br, bytes.TrimSpace(first), line, want, fn)
	}
	// One JSON document over several lines.
	rest, err := jsonx.ReadAll(br, int64(MaxValue-len(first)))
	if err != nil {
		return tenure.Errorf(tenure.CodeTooLarge, "", "a JSON document larger than %d MiB: split it into JSON Lines", MaxValue>>20)
	}
	raw, err := jsonx.ValueAt(append(first, rest...), want, line)
	if err != nil {
		return err
	}
	if raw[0] != '{' {
		return tenure.Errorf(tenure.CodeInvalid, "", "want %s, got %s", want, jsonx.Kind(raw))
	}
	fn(raw, place{}, nil)
	return nil
}

// skipSpace skips leading white space and a byte order mark, returning
// the line the input goes on at.
func skipSpace(br *bufio.Reader) (int, error) {
	if bom, err := br.Peek(3); err == nil && string(bom) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	line := 1
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return line, nil
		}
		if err != nil {
			return 0, readError(err)
		}
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r':
		default:
			return line, br.UnreadByte()
		}
	}
}

// readLine reads a line with its end, up to MaxValue bytes.
func readLine(br *bufio.Reader, n int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxValue {
			return nil, tenure.Errorf(tenure.CodeTooLarge, "", "line %d: longer than %d MiB", n, MaxValue>>20)
		}
		switch {
		case err == nil || err == io.EOF:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, readError(err)
		}
	}
}

func readError(err error) error {
	return &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot read input", Err: err}
}

// eachLine reads JSON Lines whose first non-blank line (at line n) is
// first.
func eachLine(br *bufio.Reader, first []byte, n int, want string, fn func(json.RawMessage, place, error)) error {
	index := 0
	cur, curLine := first, n
	for cur != nil {
		// Look ahead to the next non-blank line, to know whether the file
		// holds several conversations.
		var next []byte
		nextLine := curLine
		for {
			if _, err := br.Peek(1); err != nil {
				break
			}
			nextLine++
			l, err := readLine(br, nextLine)
			if err != nil {
				return err
			}
			if l = bytes.TrimSpace(l); len(l) > 0 {
				next = l
				break
			}
		}
		at := place{index: index, line: curLine, several: index > 0 || next != nil}
		raw, err := jsonx.ValueAt(cur, want, curLine)
		switch {
		case err != nil:
			fn(nil, at, err)
		case raw[0] != '{':
			fn(nil, at, tenure.Errorf(tenure.CodeInvalid, "", "want %s, got %s", want, jsonx.Kind(raw)))
		default:
			fn(raw, at, nil)
		}
		index++
		cur, curLine = next, nextLine
	}
	return nil
}

// eachElement reads a JSON array one element at a time.
func eachElement(br *bufio.Reader, want string, fn func(json.RawMessage, place, error)) error {
	dec := json.NewDecoder(br)
	malformed := func(i int, err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("[%d]", i), "malformed JSON at byte %d: %v", se.Offset, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("[%d]", i), "malformed JSON: unexpected end of input")
		}
		return readError(err)
	}
	if _, err := dec.Token(); err != nil {
		return malformed(0, err)
	}
	i := 0
	for ; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return malformed(i, err)
		}
		if int64(len(raw)) > MaxValue {
			return tenure.Errorf(tenure.CodeTooLarge, fmt.Sprintf("[%d]", i), "larger than %d MiB", MaxValue>>20)
		}
		at := place{index: i, path: fmt.Sprintf("[%d]", i), several: i > 0 || dec.More()}
		if raw[0] != '{' {
			fn(nil, at, tenure.Errorf(tenure.CodeInvalid, "", "want %s, got %s", want, jsonx.Kind(raw)))
			continue
		}
		fn(raw, at, nil)
	}
	if _, err := dec.Token(); err != nil {
		return malformed(i, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return tenure.Errorf(tenure.CodeInvalid, "", "malformed JSON: unexpected data after the array")
	}
	return nil
}
