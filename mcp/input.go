package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tenure-dev/tenure"
)

// validator checks a tool's arguments against its input schema property by
// property, so that every violation is a CodeInvalid error naming the
// property, and fills the defaults the schema declares.
type validator struct {
	schema *jsonschema.Schema
	props  map[string]*jsonschema.Resolved
}

// newValidator resolves each property of an object schema. It panics on
// an unresolvable schema: the tool definitions are static.
func newValidator(s *jsonschema.Schema) *validator {
	v := &validator{schema: s, props: map[string]*jsonschema.Resolved{}}
	for name, ps := range s.Properties {
		r, err := ps.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			panic(fmt.Sprintf("mcp: property %q: %v", name, err))
		}
		v.props[name] = r
	}
	return v
}

// decodeInput validates raw arguments, fills defaults and decodes them
// into an In. Errors: CodeInvalid naming the offending property.
func decodeInput[In any](v *validator, raw json.RawMessage) (In, error) {
	var in In
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &args); err != nil {
			return in, tenure.Errorf(tenure.CodeInvalid, "arguments", "want a JSON object: %v", err)
		}
	}
	for _, name := range v.schema.Required {
		if _, ok := args[name]; !ok {
			return in, tenure.Errorf(tenure.CodeInvalid, name, "required")
		}
	}
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		r, ok := v.props[name]
		if !ok {
			return in, tenure.Errorf(tenure.CodeInvalid, name, "unknown property (allowed: %s)", strings.Join(v.schema.PropertyOrder, ", "))
		}
		if msg := check(r.Schema(), args[name]); msg != "" {
			return in, tenure.Errorf(tenure.CodeInvalid, name, "%s", msg)
		}
		if err := r.Validate(args[name]); err != nil {
			return in, tenure.Errorf(tenure.CodeInvalid, name, "%s", strings.TrimPrefix(err.Error(), "validating root: "))
		}
	}
	for name, ps := range v.schema.Properties {
		if _, ok := args[name]; !ok && ps.Default != nil {
			args[name] = ps.Default
		}
	}
	data, err := json.Marshal(args)
	if err != nil {
		return in, tenure.Internal("encode arguments", err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, tenure.Errorf(tenure.CodeInvalid, "arguments", "%v", err)
	}
	return in, nil
}

// check explains, in words a model can act on, how v violates the
// constraints the tool schemas use (type, enum, bounds, item counts and
// item types); "" when it does not (the schema validator has the last
// word).
func check(s *jsonschema.Schema, v any) string {
	if s.Type != "" && kind(v) != s.Type && !(s.Type == "number" && kind(v) == "integer") {
		return fmt.Sprintf("want %s, got %s", an(s.Type), an(kind(v)))
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		allowed := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			allowed[i] = fmt.Sprint(e)
		}
		return fmt.Sprintf("unknown value %q (allowed: %s)", fmt.Sprint(v), strings.Join(allowed, ", "))
	}
	if n, ok := v.(float64); ok {
		if s.Minimum != nil && n < *s.Minimum {
			return fmt.Sprintf("%v is less than the minimum %v", n, *s.Minimum)
		}
		if s.Maximum != nil && n > *s.Maximum {
			return fmt.Sprintf("%v is more than the maximum %v", n, *s.Maximum)
		}
	}
	if items, ok := v.([]any); ok {
		if s.MinItems != nil && len(items) < *s.MinItems {
			return fmt.Sprintf("want at least %d items, got %d", *s.MinItems, len(items))
		}
		if s.MaxItems != nil && len(items) > *s.MaxItems {
			return fmt.Sprintf("want at most %d items, got %d", *s.MaxItems, len(items))
		}
		if s.Items != nil {
			for i, it := range items {
				if msg := check(s.Items, it); msg != "" {
					return fmt.Sprintf("item %d: %s", i, msg)
				}
			}
		}
	}
	return ""
}

// kind is the JSON Schema type of a decoded JSON value.
func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value" // not a decoded JSON value; never a Go type's name
}

// an prefixes a type name with its article.
func an(typ string) string {
	switch typ {
	case "array", "integer", "object":
		return "an " + typ
	case "null":
		return typ
	}
	return "a " + typ
}
