package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// prop refines the schema inferred for one property of a tool's input:
// what the jsonschema struct tags (descriptions only) cannot say.
type prop struct {
	enum     []string
	def      any
	min, max *float64
	minItems *int
	maxItems *int
	format   string
}

// inputSchema infers the input schema of T (property descriptions come
// from the jsonschema tags) and refines the named properties. It panics on
// a property T does not have: the tool definitions are static.
func inputSchema[T any](props map[string]prop) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(T), err))
	}
	for _, ps := range s.Properties {
		// Slices infer as nullable; an input list is a list or absent.
		if len(ps.Types) == 2 && ps.Types[0] == "null" {
			ps.Type, ps.Types = ps.Types[1], nil
		}
	}
	for name, p := range props {
		ps, ok := s.Properties[name]
		if !ok {
			panic(fmt.Sprintf("mcp: input schema of %T has no property %q", *new(T), name))
		}
		for _, v := range p.enum {
			ps.Enum = append(ps.Enum, v)
		}
		if p.def != nil {
			ps.Default, err = json.Marshal(p.def)
			if err != nil {
				panic(fmt.Sprintf("mcp: default of %q: %v", name, err))
			}
		}
		ps.Minimum, ps.Maximum = p.min, p.max
		if p.minItems != nil || p.maxItems != nil {
			ps.MinItems, ps.MaxItems = p.minItems, p.maxItems
		}
		if p.format != "" {
			ps.Format = p.format
		}
	}
	return s
}

// vocab returns a vocabulary as strings for an enum.
func vocab[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func num(f float64) *float64 { return &f }
func count(n int) *int       { return &n }
