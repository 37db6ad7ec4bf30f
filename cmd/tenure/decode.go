package main

import (
	"bytes"
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

// maxInput caps what put reads, so a runaway pipe fails cleanly.
const maxInput = 256 << 20

// readInput reads all of r, up to maxInput bytes.
func readInput(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot read input", Err: err}
	}
	if len(data) > maxInput {
		return nil, tenure.Errorf(tenure.CodeTooLarge, "", "input is larger than %d MiB", maxInput>>20)
	}
	return data, nil
}

// parseObjects decodes put's input: one JSON object, or an array of them
// (batch reports which). Decoding is strict so that a typo in a field name
// is an error rather than a silently dropped field; every error names the
// field ("[2].layer") or, for malformed JSON, the line and column.
func parseObjects(data []byte) (objs []tenure.Object, batch bool, err error) {
	raw, err := oneValue(data, "a JSON object or an array of objects")
	if err != nil {
		return nil, false, err
	}
	switch raw[0] {
	case '{':
		o, err := decodeOne[tenure.Object](raw, "Context Object")
		return []tenure.Object{o}, false, err
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, true, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot decode array", Err: err}
		}
		objs = make([]tenure.Object, len(elems))
		for i, e := range elems {
			prefix := fmt.Sprintf("[%d].", i)
			if e[0] != '{' {
				return nil, true, tenure.Errorf(tenure.CodeInvalid, prefix[:len(prefix)-1], "want a JSON object, got %s", jsonKind(e))
			}
			if objs[i], err = decodeOne[tenure.Object](e, "Context Object"); err != nil {
				return nil, true, prefixField(prefix, err)
			}
		}
		return objs, true, nil
	}
	return nil, false, tenure.Errorf(tenure.CodeInvalid, "", "want a JSON object or an array of objects, got %s", jsonKind(raw))
}

// parseOne decodes data holding one JSON object into a T, strictly.
func parseOne[T any](data []byte, what string) (T, error) {
	var v T
	raw, err := oneValue(data, "a JSON object")
	if err != nil {
		return v, err
	}
	if raw[0] != '{' {
		return v, tenure.Errorf(tenure.CodeInvalid, "", "want a JSON object, got %s", jsonKind(raw))
	}
	return decodeOne[T](raw, what)
}

// oneValue checks that data holds exactly one well-formed JSON value (want
// says which, for the empty case) and returns it, reporting syntax errors
// by line and column.
func oneValue(data []byte, want string) (json.RawMessage, error) { return oneValueAt(data, want, 1) }

// oneValueAt is oneValue for data that starts on line first of its file.
func oneValueAt(data []byte, want string, first int) (json.RawMessage, error) {
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

// decodeOne strictly decodes a well-formed JSON object into a T. Field
// names must match exactly and at most once: encoding/json alone would
// accept "KEY" for "key" and let a repeated field silently win. When
// decoding fails it decodes the members one at a time to find the field
// at fault, because encoding/json names the field only for some errors.
func decodeOne[T any](data []byte, what string) (T, error) {
	var v T
	t := reflect.TypeFor[T]()
	if err := checkNames(data, t, "", what); err != nil {
		return v, err
	}
	err := strictUnmarshal(data, &v)
	if err == nil {
		return v, nil
	}
	if ferr := locate(data, t); ferr != nil {
		return v, ferr
	}
	return v, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot decode " + what, Err: err}
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
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

// checkNames rejects unknown, wrongly cased and repeated field names in
// the JSON value raw bound for type t, at any depth; path is raw's field
// path and what names t for the top-level message.
func checkNames(raw json.RawMessage, t reflect.Type, path, what string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType || len(raw) == 0:
		return nil
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
		for i, e := range elems {
			if err := checkNames(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), ""); err != nil {
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

// locate returns an error naming the first member of the object in data
// that does not decode into a t on its own, or nil if each does.
func locate(data []byte, t reflect.Type) error {
	fields := jsonFields(t)
	return members(data, func(key string, raw json.RawMessage) error {
		name, _ := json.Marshal(key)
		probe := reflect.New(t).Interface()
		if err := strictUnmarshal([]byte(`{`+string(name)+`:`+string(raw)+`}`), probe); err != nil {
			return memberError(key, raw, fields[key], err)
		}
		return nil
	})
}

// memberError describes why the member key (of type ft) failed to decode.
func memberError(key string, raw json.RawMessage, ft reflect.Type, err error) error {
	var te *json.UnmarshalTypeError
	var pe *time.ParseError
	switch {
	case errors.As(err, &pe):
		return tenure.Errorf(tenure.CodeInvalid, key, "want an RFC 3339 time (2025-01-31T09:00:00Z), got %q", pe.Value)
	case ft != nil && (ft == timeType || ft.Kind() == reflect.Pointer && ft.Elem() == timeType):
		return tenure.Errorf(tenure.CodeInvalid, key, "want an RFC 3339 time string (2025-01-31T09:00:00Z), got %s", jsonKind(raw))
	case errors.As(err, &te):
		field := key
		if te.Field != "" {
			field = te.Field
		}
		return tenure.Errorf(tenure.CodeInvalid, field, "want %s, got %s", goKind(te.Type), jsonValueName(te.Value))
	}
	return &tenure.Error{Code: tenure.CodeInvalid, Field: key, Message: strings.TrimPrefix(err.Error(), "json: ")}
}

var timeType = reflect.TypeFor[time.Time]()

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

// jsonKind names the kind of a well-formed JSON value.
func jsonKind(raw json.RawMessage) string {
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
