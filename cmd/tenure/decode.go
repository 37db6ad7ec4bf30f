package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// maxInput caps what put reads, so a runaway pipe fails cleanly.
const maxInput = 256 << 20

// readInput reads all of r, up to maxInput bytes.
func readInput(r io.Reader) ([]byte, error) { return jsonx.ReadAll(r, maxInput) }

// parseObjects decodes put's input: one JSON object, or an array of them
// (batch reports which). Decoding is strict (package jsonx) so that a typo
// in a field name is an error rather than a silently dropped field; every
// error names the field ("[2].layer") or, for malformed JSON, the line and
// column.
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
			prefix := fmt.Sprintf("[%d]", i)
			if e[0] != '{' {
				return nil, true, tenure.Errorf(tenure.CodeInvalid, prefix, "want a JSON object, got %s", jsonKind(e))
			}
			if objs[i], err = decodeOne[tenure.Object](e, "Context Object"); err != nil {
				return nil, true, prefixField(prefix+".", err)
			}
		}
		return objs, true, nil
	}
	return nil, false, tenure.Errorf(tenure.CodeInvalid, "", "want a JSON object or an array of objects, got %s", jsonKind(raw))
}

// parseOne decodes data holding one JSON object into a T, strictly.
func parseOne[T any](data []byte, what string) (T, error) { return jsonx.Parse[T](data, what) }

// oneValue checks that data holds exactly one well-formed JSON value.
func oneValue(data []byte, want string) (json.RawMessage, error) { return jsonx.Value(data, want) }

// decodeOne strictly decodes a well-formed JSON value into a T.
func decodeOne[T any](data []byte, what string) (T, error) { return jsonx.Decode[T](data, what) }

// jsonKind names the kind of a well-formed JSON value.
func jsonKind(raw json.RawMessage) string { return jsonx.Kind(raw) }
