package jsonx

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// ReadAll reads all of r, up to limit bytes; more is a CodeTooLarge error.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot read input", Err: err}
	}
	if int64(len(data)) > limit {
		return nil, tenure.Errorf(tenure.CodeTooLarge, "", "input is larger than %s", byteSize(limit))
	}
	return data, nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Parse decodes data holding exactly one JSON object into a T, strictly.
// what names T in messages ("Context Object").
func Parse[T any](data []byte, what string) (T, error) {
	var v T
	raw, err := Value(data, "a JSON object")
	if err != nil {
		return v, err
	}
	if raw[0] != '{' {
		return v, tenure.Errorf(tenure.CodeInvalid, "", "want a JSON object, got %s", Kind(raw))
	}
	return Decode[T](raw, what)
}

// ParseList decodes data holding exactly one JSON array into a []T,
// strictly; what names the elements ("documents").
func ParseList[T any](data []byte, what string) ([]T, error) {
	raw, err := Value(data, "a JSON array of "+what)
	if err != nil {
		return nil, err
	}
	if raw[0] != '[' {
		return nil, tenure.Errorf(tenure.CodeInvalid, "", "want a JSON array of %s, got %s", what, Kind(raw))
	}
	return Decode[[]T](raw, what)
}

// Value checks that data holds exactly one well-formed JSON value (want
// says which, for the empty case) and returns it, reporting syntax errors
// by line and column.
func Value(data []byte, want string) (json.RawMessage, error) { return ValueAt(data, want, 1) }

// ValueAt is Value for data that starts on line first of its file, such
// as one line of a JSON Lines file.
func ValueAt(data []byte, want string, first int) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "", "no input: want %s", want)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, syntaxError(data, first, int(se.Offset)-1, se.Error())
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, syntaxError(data, first, len(data), "unexpected end of input")
		}
		return nil, &tenure.Error{Code: tenure.CodeInvalid, Message: "malformed JSON", Err: err}
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return nil, syntaxError(data, first, len(data)-len(rest), "unexpected data after the JSON value")
	}
	return raw, nil
}

// syntaxError reports a JSON syntax error at byte offset off as a 1-based
// line and column (in characters), counting lines from first.
func syntaxError(data []byte, first, off int, msg string) error {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line := first + bytes.Count(before, []byte("\n"))
	col := 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return tenure.Errorf(tenure.CodeInvalid, "", "line %d, column %d: malformed JSON: %s", line, col, msg)
}

// Decode strictly decodes a well-formed JSON value into a T. Field names
// must match exactly and at most once: encoding/json alone would accept
// "KEY" for "key" and let a repeated field silently win. When decoding
// fails it walks the value to find the field at fault, because
// encoding/json names the field only for some errors and never with array
// indexes.
func Decode[T any](raw json.RawMessage, what string) (T, error) {
	var v T
	t := reflect.TypeFor[T]()
	if err := checkNames(raw, t, "", what); err != nil {
		return v, err
	}
	err := strictUnmarshal(raw, &v)
	if err == nil {
		return v, nil
	}
	if ferr := locate(raw, t, ""); ferr != nil {
		return v, ferr
	}
	return v, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot decode " + what, Err: err}
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Under returns err as a *tenure.Error whose field is placed under the
// field path: "layer" under "objects[2]" is "objects[2].layer", "[2].layer"
// under "objects" is "objects[2].layer", and no field becomes path itself.
// The code is kept.
func Under(path string, err error) error {
	te := *tenure.AsError(err)
	switch {
	case te.Field == "":
		te.Field = path
	case strings.HasPrefix(te.Field, "["):
		te.Field = path + te.Field
	default:
		te.Field = joinPath(path, te.Field)
	}
	return &te
}

// members calls fn for each member of the well-formed JSON object in data,
// in input order, until fn returns an error.
func members(data []byte, fn func(key string, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := fn(key, raw); err != nil {
			return err
		}
	}
	return nil
}

// leaf reports whether values of t decode themselves (time.Time,
// json.RawMessage, …) or are not containers to walk into.
func leaf(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Array:
		return false
	}
	return true
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType            = reflect.TypeFor[time.Time]()
)

// checkNames rejects unknown, wrongly cased and repeated field names in
// the JSON value raw bound for type t, at any depth; path is raw's field
// path and what names t for the top-level message.
func checkNames(raw json.RawMessage, t reflect.Type, path, what string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(raw) == 0 || leaf(t) {
		return nil
	}
	switch {
	case t.Kind() == reflect.Struct && raw[0] == '{':
		fields := jsonFields(t)
		seen := map[string]bool{}
		if what == "" {
			what = path
		}
		return members(raw, func(key string, val json.RawMessage) error {
			field := joinPath(path, key)
			ft, ok := fields[key]
			if !ok {
				return unknownField(field, key, what, fields)
			}
			if seen[key] {
				return tenure.Errorf(tenure.CodeInvalid, field, "given more than once")
			}
			seen[key] = true
			return checkNames(val, ft, field, "")
		})
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && raw[0] == '[':
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil // the decoder reports it
		}
		elemWhat := ""
		if path == "" {
			elemWhat = what // a top-level array: its elements are what was asked for
		}
		for i, e := range elems {
			if err := checkNames(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), elemWhat); err != nil {
				return err
			}
		}
	}
	return nil
}

func unknownField(field, key, what string, fields map[string]reflect.Type) error {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return tenure.Errorf(tenure.CodeInvalid, field, "unknown field (names are case-sensitive: did you mean %q?)", name)
		}
	}
	return tenure.Errorf(tenure.CodeInvalid, field, "unknown field (not a %s field)", what)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonFields maps the JSON names of struct t's fields, as encoding/json
// sees them, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" || (f.Anonymous && tag == "") {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// locate returns an error naming the first value inside raw, bound for
// type t at path, that does not decode on its own, or nil if each does.
func locate(raw json.RawMessage, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer && len(raw) > 0 && raw[0] != 'n' {
		t = t.Elem()
	}
	switch {
	case len(raw) == 0 || leaf(t):
	case t.Kind() == reflect.Struct && raw[0] == '{':
		fields := jsonFields(t)
		return members(raw, func(key string, val json.RawMessage) error {
			if ft, ok := fields[key]; ok {
				return locate(val, ft, joinPath(path, key))
			}
			return nil
		})
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && raw[0] == '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil
		}
		for i, e := range elems {
			if err := locate(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		if t.Kind() == reflect.Array && len(elems) > t.Len() {
			return tenure.Errorf(tenure.CodeInvalid, path, "at most %d elements", t.Len())
		}
		return nil
	}
	if err := strictUnmarshal(raw, reflect.New(t).Interface()); err != nil {
		return valueError(path, raw, t, err)
	}
	return nil
}

// valueError describes why raw, at path, did not decode into a t.
func valueError(path string, raw json.RawMessage, t reflect.Type, err error) error {
	var te *json.UnmarshalTypeError
	var pe *time.ParseError
	switch {
	case errors.As(err, &pe):
		return tenure.Errorf(tenure.CodeInvalid, path, "want an RFC 3339 time (2025-01-31T09:00:00Z), got %q", pe.Value)
	case t == timeType:
		return tenure.Errorf(tenure.CodeInvalid, path, "want an RFC 3339 time string (2025-01-31T09:00:00Z), got %s", Kind(raw))
	case errors.As(err, &te):
		return tenure.Errorf(tenure.CodeInvalid, path, "want %s, got %s", goKind(te.Type), jsonValueName(te.Value))
	}
	return &tenure.Error{Code: tenure.CodeInvalid, Field: path, Message: strings.TrimPrefix(err.Error(), "json: ")}
}

// goKind names the JSON a Go type decodes from.
func goKind(t reflect.Type) string {
	if t == timeType {
		return "an RFC 3339 time string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return goKind(t.Elem())
	}
	return t.String()
}

// jsonValueName names the JSON value kind encoding/json reports.
func jsonValueName(v string) string {
	switch v {
	case "string":
		return "a string"
	case "object":
		return "an object"
	case "array":
		return "an array"
	case "bool":
		return "a boolean"
	case "number":
		return "a number"
	}
	return v // e.g. "number 1e999"
}

// Kind names the kind of a well-formed JSON value ("an object", "a
// string", …).
func Kind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
