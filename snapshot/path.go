package snapshot

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/spec"
)

// Path is a parsed JSONPath (RFC 9535, parsed by github.com/theory/jsonpath).
type Path struct {
	raw  string
	path *jsonpath.Path
	// steps holds the selectors of a singular path (names and indices,
	// no wildcard, slice, filter or descendant segment); nil otherwise.
	steps spec.NormalizedPath
}

// ParsePath parses a JSONPath. Errors: CodeInvalid (or CodeTooLarge)
// naming field, with the parser's message.
func ParsePath(field, s string) (*Path, error) {
	if s == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, field, "required: a JSONPath such as $.bindings.customer")
	}
	if len(s) > MaxPathBytes {
		return nil, tenure.Errorf(tenure.CodeTooLarge, field, "longer than %d bytes", MaxPathBytes)
	}
	p, err := jsonpath.Parse(s)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "jsonpath: ")
		return nil, tenure.Errorf(tenure.CodeInvalid, field, "not a JSONPath (RFC 9535): %s", msg)
	}
	out := &Path{raw: s, path: p}
	out.steps = singular(p)
	return out, nil
}

// singular returns the selectors of a singular path, or nil.
func singular(p *jsonpath.Path) spec.NormalizedPath {
	steps := spec.NormalizedPath{}
	for _, seg := range p.Query().Segments() {
		sels := seg.Selectors()
		if seg.IsDescendant() || len(sels) != 1 {
			return nil
		}
		switch s := sels[0].(type) {
		case spec.Name:
			steps = append(steps, s)
		case spec.Index:
			steps = append(steps, s)
		default:
			return nil
		}
	}
	return steps
}

// String returns the path as given.
func (p *Path) String() string { return p.raw }

// Singular reports whether the path names one location (names and
// indices only).
func (p *Path) Singular() bool { return p.steps != nil }

// Select returns the locations the path selects in v, as normalized
// paths.
func (p *Path) Select(v any) []spec.NormalizedPath {
	var out []spec.NormalizedPath
	for _, n := range p.path.SelectLocated(v).Deduplicate() {
		out = append(out, n.Path)
	}
	return out
}

// prefixPath parses a singular path naming a prefix (path strategies and
// experts) into its location.
func prefixPath(field, s string) (spec.NormalizedPath, error) {
	p, err := ParsePath(field, s)
	if err != nil {
		return nil, err
	}
	if !p.Singular() {
		return nil, tenure.Errorf(tenure.CodeInvalid, field, "%s: a prefix is a singular path (names and indices, such as $.entities)", s)
	}
	for _, st := range p.steps {
		if i, ok := st.(spec.Index); ok && i < 0 {
			return nil, tenure.Errorf(tenure.CodeInvalid, field, "%s: a prefix has no negative index", s)
		}
	}
	return p.steps, nil
}

// kind of change an atom makes.
type atomKind int

const (
	kindSet atomKind = iota
	kindAppend
	kindRemove
)

// target is one change a delta makes at one location of its base state.
type target struct {
	loc   spec.NormalizedPath
	kind  atomKind
	value any
	// rebind marks a set of a binding by a rebind.
	rebind bool
}

// norm renders a location as a normalized path ("$['bindings']['customer']").
func norm(loc spec.NormalizedPath) string { return loc.String() }

// Check validates a delta's own fields: round, weight, operation, path,
// value and provenance (not yet against a state: see Expand). The agent
// is the caller's to fill. Errors: CodeInvalid or CodeTooLarge naming the
// field; nothing is written.
func (d *Delta) Check() error {
	if err := tenure.CheckID("agentId", d.AgentID, true); err != nil {
		if tenure.ErrorCode(err) == tenure.CodeInvalid && d.AgentID == "" {
			return tenure.Errorf(tenure.CodeInvalid, "agentId", "required: every delta names its agent")
		}
		return err
	}
	if d.Round < 1 {
		return tenure.Errorf(tenure.CodeInvalid, "round", "required: the workflow's open round (1 or more), got %d", d.Round)
	}
	if d.Weight == nil {
		return tenure.Errorf(tenure.CodeInvalid, "weight", "required: the router-assigned weight, in [0, 1]")
	}
	if w := *d.Weight; math.IsNaN(w) || w < 0 || w > 1 {
		return tenure.Errorf(tenure.CodeInvalid, "weight", "must be in [0, 1], got %v", w)
	}
	if _, err := tenure.ParseVocab("operation", string(d.Operation), Operations); err != nil {
		return err
	}
	if _, err := ParsePath("path", d.Path); err != nil {
		return err
	}
	switch {
	case d.Operation == OpRemove && len(d.Value) > 0 && string(Compact(d.Value)) != "null":
		return tenure.Errorf(tenure.CodeInvalid, "value", "remove takes no value")
	case d.Operation != OpRemove && len(d.Value) == 0:
		return tenure.Errorf(tenure.CodeInvalid, "value", "required for %s: the new value, any JSON", d.Operation)
	case d.Operation != OpRemove && !json.Valid(d.Value):
		return tenure.Errorf(tenure.CodeInvalid, "value", "not valid JSON")
	}
	return checkText("provenance", d.Provenance, MaxProvenanceBytes, "why this change (every change has an origin)")
}

// checkText validates required free text: not blank, at most max bytes of
// valid UTF-8; what says what the field is for.
func checkText(field, s string, max int, what string) error {
	if strings.TrimSpace(s) == "" {
		return tenure.Errorf(tenure.CodeInvalid, field, "required: %s", what)
	}
	if len(s) > max {
		return tenure.Errorf(tenure.CodeTooLarge, field, "longer than %d bytes", max)
	}
	if !utf8.ValidString(s) {
		return tenure.Errorf(tenure.CodeInvalid, field, "not valid UTF-8")
	}
	return nil
}

// Expand validates a checked delta against the state it applies to — its
// round's base, the previous snapshot — and returns the locations it
// touches there as normalized paths. maxSize bounds its value. Errors,
// naming the field: CodeInvalid (a path into a scalar, a path that
// selects nothing, a reserved or typed member written wrongly, a rebind
// that is no binding), CodeConflict (a bound concept id changed or
// removed without a rebind), CodeTooLarge (a value larger than maxSize).
func Expand(base map[string]any, d *Delta, maxSize int) ([]string, error) {
	ts, err := expand(base, d, nil, maxSize)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = norm(t.loc)
	}
	return out, nil
}

// expand turns a delta into its targets in base (p: the parsed path, or
// nil to parse it).
func expand(base map[string]any, d *Delta, p *Path, maxSize int) ([]target, error) {
	if p == nil {
		var err error
		if p, err = ParsePath("path", d.Path); err != nil {
			return nil, err
		}
	}
	var value any
	if d.Operation != OpRemove {
		if maxSize > 0 && len(d.Value) > maxSize {
			if c := Compact(d.Value); len(c) > maxSize {
				return nil, tenure.Errorf(tenure.CodeTooLarge, "value", "%d bytes: more than the workflow's whole state may hold (%d bytes)", len(c), maxSize)
			}
		}
		var err error
		if value, err = Decode(d.Value); err != nil {
			return nil, tenure.Errorf(tenure.CodeInvalid, "value", "not valid JSON: %v", err)
		}
	}
	var ts []target
	switch d.Operation {
	case OpAdd, OpRebind:
		if !p.Singular() {
			return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: %s needs a singular path (names and indices, such as $.bindings.customer), not a query",
				d.Path, d.Operation)
		}
		loc, cur, exists, err := resolve(base, p.steps)
		if err != nil {
			return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: %v", d.Path, err)
		}
		_, isArray := cur.([]any)
		switch {
		case d.Operation == OpRebind:
			if len(loc) != 2 || loc[0] != spec.Name(KeyBindings) || !exists {
				return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: rebind changes an existing binding ($.bindings.TERM)", d.Path)
			}
			ts = []target{{loc: loc, kind: kindSet, value: value, rebind: true}}
		case exists && isArray:
			ts = []target{{loc: loc, kind: kindAppend, value: value}}
		case len(loc) > 0:
			if _, isIndex := loc[len(loc)-1].(spec.Index); isIndex {
				return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: add appends to an array by naming the array (such as $.entities), or sets a member by name; use modify to replace an element",
					d.Path)
			}
			ts = []target{{loc: loc, kind: kindSet, value: value}}
		default:
			ts = []target{{loc: loc, kind: kindSet, value: value}}
		}
	case OpModify, OpRemove:
		locs := p.Select(base)
		if len(locs) == 0 {
			if p.Singular() {
				if _, _, _, err := resolve(base, p.steps); err != nil {
					return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: %v", d.Path, err)
				}
				return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: no such member in the snapshot this round applies to (add creates members)", d.Path)
			}
			return nil, tenure.Errorf(tenure.CodeInvalid, "path", "%s: selects nothing in the snapshot this round applies to", d.Path)
		}
		kind := kindSet
		if d.Operation == OpRemove {
			kind = kindRemove
		}
		for _, loc := range locs {
			ts = append(ts, target{loc: loc, kind: kind, value: value})
		}
	}
	for _, t := range ts {
		if err := guard(base, d, t); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// resolve walks a singular path through base: the location it names
// (negative indices resolved), its value and whether it exists. Missing
// members may be created only as objects (names); anything else is an
// error saying where the path breaks.
func resolve(base map[string]any, steps spec.NormalizedPath) (spec.NormalizedPath, any, bool, error) {
	loc := make(spec.NormalizedPath, 0, len(steps))
	var cur any = base
	for i, sel := range steps {
		at := norm(loc)
		switch c := cur.(type) {
		case map[string]any:
			name, ok := sel.(spec.Name)
			if !ok {
				return nil, nil, false, fmt.Errorf("%s is an object: select a member by name, not by index", at)
			}
			loc = append(loc, name)
			next, ok := c[string(name)]
			if !ok {
				for _, rest := range steps[i+1:] {
					if _, ok := rest.(spec.Name); !ok {
						return nil, nil, false, fmt.Errorf("%s does not exist, and only objects are created on the way", norm(loc))
					}
					loc = append(loc, rest)
				}
				return loc, nil, false, nil
			}
			cur = next
		case []any:
			idx, ok := sel.(spec.Index)
			if !ok {
				return nil, nil, false, fmt.Errorf("%s is an array: select an element by index", at)
			}
			n := int(idx)
			if n < 0 {
				n += len(c)
			}
			if n < 0 || n >= len(c) {
				return nil, nil, false, fmt.Errorf("%s has no element %d (it has %d)", at, int(idx), len(c))
			}
			loc = append(loc, spec.Index(n))
			cur = c[n]
		default:
			return nil, nil, false, fmt.Errorf("path into a scalar: %s is %s", at, kindOf(cur))
		}
	}
	return loc, cur, true, nil
}

// guard enforces the state's shape and the identity invariant on one
// target.
func guard(base map[string]any, d *Delta, t target) error {
	if len(t.loc) == 0 {
		return tenure.Errorf(tenure.CodeInvalid, "path", "%s: the state itself cannot be replaced or removed: name a member", d.Path)
	}
	top := string(t.loc[0].(spec.Name))
	if top == KeyQuery {
		return tenure.Errorf(tenure.CodeInvalid, "path", "%s: the query is set when the workflow starts and never changes", d.Path)
	}
	if slices.Contains(Reserved, top) {
		return tenure.Errorf(tenure.CodeInvalid, "path", "%s: %q is a field of the snapshot itself, not of its state", d.Path, top)
	}
	if d.Operation == OpRebind && (len(t.loc) != 2 || top != KeyBindings) {
		return tenure.Errorf(tenure.CodeInvalid, "path", "%s: rebind changes a binding ($.bindings.TERM)", d.Path)
	}
	switch top {
	case KeyBindings:
		return guardBindings(base, d, t)
	case KeyEntities, KeyRules:
		if len(t.loc) > 1 {
			return nil
		}
		if t.kind == kindRemove {
			return tenure.Errorf(tenure.CodeInvalid, "path", "%s: $.%s is kept: remove its elements instead", d.Path, top)
		}
		if _, ok := t.value.([]any); t.kind == kindSet && !ok {
			return tenure.Errorf(tenure.CodeInvalid, "value", "$.%s is an array, not %s", top, kindOf(t.value))
		}
	}
	return nil
}

// guardBindings keeps $.bindings an object of term → concept id whose
// concept ids never change but by rebind.
func guardBindings(base map[string]any, d *Delta, t target) error {
	old, _ := base[KeyBindings].(map[string]any)
	switch len(t.loc) {
	case 1:
		if t.kind == kindRemove {
			return tenure.Errorf(tenure.CodeInvalid, "path", "%s: $.bindings is kept: a binding, once made, is changed only by rebind", d.Path)
		}
		m, ok := t.value.(map[string]any)
		if !ok {
			return tenure.Errorf(tenure.CodeInvalid, "value", "$.bindings is an object of term → concept id, not %s", kindOf(t.value))
		}
		for _, term := range sortedKeys(m) {
			if err := checkBinding(term, m[term]); err != nil {
				return err
			}
		}
		for _, term := range sortedKeys(old) {
			if now, ok := m[term]; !ok || now != old[term] {
				return identityError(d, spec.Normalized(spec.Name(KeyBindings), spec.Name(term)), old[term])
			}
		}
	case 2:
		term := string(t.loc[1].(spec.Name))
		was, bound := old[term]
		switch {
		case t.kind == kindRemove:
			return identityError(d, t.loc, was)
		case t.kind == kindAppend:
			return tenure.Errorf(tenure.CodeInvalid, "value", "a binding's value is a concept id (a string)")
		}
		if err := checkBinding(term, t.value); err != nil {
			return err
		}
		if bound && was != t.value && !t.rebind {
			return identityError(d, t.loc, was)
		}
	default:
		return tenure.Errorf(tenure.CodeInvalid, "path", "%s: bindings map terms to concept ids ($.bindings.TERM); a concept id has no members", d.Path)
	}
	return nil
}

// checkBinding validates a term and its concept id.
func checkBinding(term string, v any) error {
	if err := tenure.CheckID("path", term, true); err != nil {
		return tenure.Errorf(tenure.ErrorCode(err), "path", "binding term %q: %s", term, tenure.AsError(err).Message)
	}
	id, ok := v.(string)
	if !ok {
		return tenure.Errorf(tenure.CodeInvalid, "value", "the binding of %q is a concept id (a string), not %s", term, kindOf(v))
	}
	if err := tenure.CheckID("value", id, true); err != nil {
		return err
	}
	return nil
}

// identityError refuses a change to a bound concept id.
func identityError(d *Delta, loc spec.NormalizedPath, was any) error {
	return tenure.Errorf(tenure.CodeConflict, "path", "%s: %s is bound to %q, and a concept id bound to a term cannot change (identity is stable); "+
		"change it with operation rebind and a reason in provenance", d.Path, norm(loc), was)
}
