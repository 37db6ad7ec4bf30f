package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/theory/jsonpath/spec"
)

// Decode parses one JSON value into the form the state holds: objects as
// map[string]any, arrays as []any, numbers as float64.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// Canonical encodes v as compact JSON with sorted object keys and no HTML
// escaping: equal values encode to equal bytes, and the length is the
// state size the limits count.
func Canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// canon is Canonical for values decoded from JSON, which always encode.
func canon(v any) string {
	b, err := Canonical(v)
	if err != nil {
		panic("snapshot: a decoded value does not encode: " + err.Error())
	}
	return string(b)
}

// equal reports whether two decoded JSON values are equal: scalars
// compared directly, containers by their canonical JSON.
func equal(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return canon(a) == canon(b)
}

// Size returns the state's size in bytes of canonical JSON.
func Size(state map[string]any) int { return len(canon(state)) }

// clone deep-copies a decoded JSON value.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = clone(e)
		}
		return a
	}
	return v
}

// CloneState deep-copies a state.
func CloneState(s map[string]any) map[string]any { return clone(s).(map[string]any) }

// kindOf names a JSON value's type for messages.
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}

// child returns a container's member or element.
func child(v any, sel spec.NormalSelector) (any, bool) {
	switch s := sel.(type) {
	case spec.Name:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		c, ok := m[string(s)]
		return c, ok
	case spec.Index:
		a, ok := v.([]any)
		if !ok || int(s) < 0 || int(s) >= len(a) {
			return nil, false
		}
		return a[s], true
	}
	return nil, false
}

// replace sets a container's member or existing element.
func replace(v any, sel spec.NormalSelector, x any) bool {
	switch s := sel.(type) {
	case spec.Name:
		m, ok := v.(map[string]any)
		if ok {
			m[string(s)] = x
		}
		return ok
	case spec.Index:
		a, ok := v.([]any)
		if !ok || int(s) < 0 || int(s) >= len(a) {
			return false
		}
		a[s] = x
		return true
	}
	return false
}

// lookup returns the value at a location.
func lookup(root any, loc spec.NormalizedPath) (any, bool) {
	cur := root
	for _, sel := range loc {
		var ok bool
		if cur, ok = child(cur, sel); !ok {
			return nil, false
		}
	}
	return cur, true
}

// setAt sets the value at a location of the state, creating missing
// parent objects; it reports false when a parent is not a container.
func setAt(state map[string]any, loc spec.NormalizedPath, v any) bool {
	if len(loc) == 0 {
		return false
	}
	var cur any = state
	for _, sel := range loc[:len(loc)-1] {
		next, ok := child(cur, sel)
		if !ok {
			if _, isName := sel.(spec.Name); !isName {
				return false
			}
			next = map[string]any{}
			if !replace(cur, sel, next) {
				return false
			}
		}
		cur = next
	}
	return replace(cur, loc[len(loc)-1], v)
}

// appendAt appends values to the array at a location.
func appendAt(state map[string]any, loc spec.NormalizedPath, vs []any) bool {
	if len(loc) == 0 {
		return false
	}
	parent, ok := lookup(state, loc[:len(loc)-1])
	if !ok {
		return false
	}
	cur, _ := child(parent, loc[len(loc)-1])
	a, ok := cur.([]any)
	return ok && replace(parent, loc[len(loc)-1], append(a, vs...))
}

// removeAt removes the value at a location. Removing array elements by
// index shifts the later ones: callers remove higher indices first.
func removeAt(state map[string]any, loc spec.NormalizedPath) bool {
	if len(loc) == 0 {
		return false
	}
	parentLoc, last := loc[:len(loc)-1], loc[len(loc)-1]
	parent, ok := lookup(state, parentLoc)
	if !ok {
		return false
	}
	if _, ok := child(parent, last); !ok {
		return false
	}
	switch s := last.(type) {
	case spec.Name:
		delete(parent.(map[string]any), string(s))
		return true
	case spec.Index:
		a := parent.([]any)
		return setAt(state, parentLoc, slices.Delete(slices.Clone(a), int(s), int(s)+1))
	}
	return false
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
