package snapshot

import (
	"slices"

	"github.com/theory/jsonpath/spec"
)

// Matcher selects the deltas of a path's history.
type Matcher struct {
	p *Path
	// plain is the location of a singular path without negative
	// indices: it relates to targets without reading any state.
	plain spec.NormalizedPath
	locs  map[string]spec.NormalizedPath
}

// NewMatcher parses the path whose history is wanted. Errors: CodeInvalid
// naming "path".
func NewMatcher(path string) (*Matcher, error) {
	p, err := ParsePath("path", path)
	if err != nil {
		return nil, err
	}
	m := &Matcher{p: p, locs: map[string]spec.NormalizedPath{}}
	if p.Singular() && !slices.ContainsFunc(p.steps, func(s spec.NormalSelector) bool { i, ok := s.(spec.Index); return ok && i < 0 }) {
		m.plain = p.steps
	}
	return m, nil
}

// Match returns the deltas of one round that touched the path: those with
// a target at, above or below the location a singular path names; for a
// query (wildcards, filters, descendants), at, above or below a location
// it selects in the round's base state, in the state the round produced
// (nil while the round is open) or in the delta's own change (its value
// placed at its targets), so that a lost or clipped delta is found too.
func (m *Matcher) Match(deltas []Delta, base, after map[string]any) []Delta {
	var selected []spec.NormalizedPath
	if m.plain == nil {
		selected = m.p.Select(base)
		if after != nil {
			selected = append(selected, m.p.Select(after)...)
		}
	}
	var out []Delta
	for _, d := range deltas {
		targets := m.targets(d)
		hit := false
		if m.plain != nil {
			hit = slices.ContainsFunc(targets, func(t spec.NormalizedPath) bool { return related(t, m.plain) })
		} else {
			sel := append(slices.Clip(selected), m.p.Select(sketch(d, targets, base))...)
			hit = slices.ContainsFunc(targets, func(t spec.NormalizedPath) bool {
				return slices.ContainsFunc(sel, func(s spec.NormalizedPath) bool { return related(t, s) })
			})
		}
		if hit {
			out = append(out, d)
		}
	}
	return out
}

// targets parses a delta's targets (normalized paths).
func (m *Matcher) targets(d Delta) []spec.NormalizedPath {
	out := make([]spec.NormalizedPath, 0, len(d.Targets))
	for _, t := range d.Targets {
		loc, ok := m.locs[t]
		if !ok {
			if p, err := ParsePath("", t); err == nil && p.Singular() {
				loc = p.steps
			}
			m.locs[t] = loc
		}
		if loc != nil {
			out = append(out, loc)
		}
	}
	return out
}

// sketch is a state holding only a delta's change: its value at each of
// its targets (in an array for an addition to one), with the objects and
// arrays on the way.
func sketch(d Delta, targets []spec.NormalizedPath, base map[string]any) map[string]any {
	root := map[string]any{}
	var v any
	if d.Operation != OpRemove {
		v, _ = Decode(d.Value)
	}
targets:
	for _, loc := range targets {
		leafValue := v
		if cur, ok := lookup(base, loc); ok && d.Operation == OpAdd {
			if _, isArray := cur.([]any); isArray {
				leafValue = []any{v}
			}
		}
		var cur any = root
		for i, sel := range loc {
			leaf := i == len(loc)-1
			var next any = map[string]any{}
			if leaf {
				next = leafValue
			} else if _, isIndex := loc[i+1].(spec.Index); isIndex {
				next = []any{}
			}
			switch s := sel.(type) {
			case spec.Name:
				m, ok := cur.(map[string]any)
				if !ok {
					continue targets
				}
				if existing, ok := m[string(s)]; ok && !leaf {
					next = existing
				} else {
					m[string(s)] = next
				}
			case spec.Index:
				a, ok := cur.([]any)
				if !ok || int(s) > 1<<16 {
					continue targets
				}
				for len(a) <= int(s) {
					a = append(a, nil)
				}
				if a[s] != nil && !leaf {
					next = a[s]
				} else {
					a[s] = next
				}
				setAt(root, loc[:i], a)
			}
			cur = next
		}
	}
	return root
}

// NeedsState reports whether Match reads the round's states: only for a
// query, not for a singular path.
func (m *Matcher) NeedsState() bool { return m.plain == nil }
