package snapshot

import (
	"fmt"
	"math"
	"slices"

	"github.com/tenure-dev/tenure"
	"github.com/theory/jsonpath/spec"
)

// MaxQueryBytes bounds a workflow's query (it must also fit MaxStateSize).
const MaxQueryBytes = 64 << 10

// WithDefaults returns w with its zero fields set to the defaults.
func (w Workflow) WithDefaults() Workflow {
	if w.Strategy == "" {
		w.Strategy = WeightedMerge
	}
	if w.MaxStateSize == 0 {
		w.MaxStateSize = DefaultMaxStateSize
	}
	if w.OnViolation == "" {
		w.OnViolation = OnViolationClip
	}
	if len(w.Clipping) == 0 {
		w.Clipping = []ClipStrategy{TruncateStrings, DropLowestWeight}
	}
	if !slices.Contains(w.Clipping, DropLowestWeight) {
		w.Clipping = append(slices.Clone(w.Clipping), DropLowestWeight)
	}
	if w.MaxStringBytes == 0 {
		w.MaxStringBytes = DefaultMaxStringBytes
	}
	if w.SecurityClassification == "" {
		w.SecurityClassification = tenure.Public
	}
	return w
}

// Validate checks a workflow's configuration (with its defaults). Errors:
// CodeInvalid or CodeTooLarge naming the field.
func (w Workflow) Validate() error {
	if err := tenure.CheckID("workflowId", w.WorkflowID, true); err != nil {
		return err
	}
	if err := checkText("query", w.Query, MaxQueryBytes, "the original user query"); err != nil {
		return err
	}
	if _, err := tenure.ParseVocab("strategy", string(w.Strategy), Strategies); err != nil {
		return err
	}
	if _, err := w.config(); err != nil {
		return err
	}
	if w.MaxStateSize < 0 || w.MaxStateSize > MaxMaxStateSize {
		return tenure.Errorf(tenure.CodeInvalid, "maxStateSize", "must be between 1 and %d bytes, got %d", MaxMaxStateSize, w.MaxStateSize)
	}
	if n := Size(InitialState(w.Query)); n > w.MaxStateSize {
		return tenure.Errorf(tenure.CodeTooLarge, "query", "the round-0 state takes %d bytes, more than maxStateSize (%d)", n, w.MaxStateSize)
	}
	if _, err := tenure.ParseVocab("onViolation", w.OnViolation, []string{OnViolationClip, OnViolationReject}); err != nil {
		return err
	}
	seen := map[ClipStrategy]bool{}
	for i, c := range w.Clipping {
		field := fmt.Sprintf("clipping[%d]", i)
		if _, err := tenure.ParseVocab(field, string(c), ClipStrategies); err != nil {
			return err
		}
		if seen[c] {
			return tenure.Errorf(tenure.CodeInvalid, field, "%s is listed twice", c)
		}
		seen[c] = true
		if c == DropLowestWeight && i != len(w.Clipping)-1 {
			return tenure.Errorf(tenure.CodeInvalid, field, "drop-lowest-weight always runs last: list it last, or leave it out")
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"maxStringBytes", w.MaxStringBytes}, {"maxEntities", w.MaxEntities}, {"maxRules", w.MaxRules}} {
		if f.v < 0 || f.v > MaxMaxStateSize {
			return tenure.Errorf(tenure.CodeInvalid, f.name, "must be between 0 and %d, got %d", MaxMaxStateSize, f.v)
		}
	}
	if t := w.ConvergenceThreshold; math.IsNaN(t) || t < 0 || t > 1 {
		return tenure.Errorf(tenure.CodeInvalid, "convergenceThreshold", "must be in [0, 1], got %v", t)
	}
	if err := tenure.CheckID("userId", w.UserID, false); err != nil {
		return err
	}
	if _, err := tenure.ParseVocab("securityClassification", string(w.SecurityClassification), tenure.Classifications); err != nil {
		return err
	}
	for _, l := range []struct {
		name  string
		roles []string
	}{{"allowRoles", w.AllowRoles}, {"denyRoles", w.DenyRoles}} {
		if len(l.roles) > tenure.MaxListLen {
			return tenure.Errorf(tenure.CodeTooLarge, l.name, "more than %d entries", tenure.MaxListLen)
		}
		for _, r := range l.roles {
			if err := tenure.CheckID(l.name, r, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// InitialState is the round-0 state of a workflow: the query, no
// bindings, entities or rules.
func InitialState(query string) map[string]any {
	return map[string]any{KeyQuery: query, KeyBindings: map[string]any{}, KeyEntities: []any{}, KeyRules: []any{}}
}

// Audience is the workflow reduced to what decides who may see it, as an
// object: tenant, user, classification and permission scope
// (tenure.Principal.CanSee reads it).
func (w Workflow) Audience(tenant string) *tenure.Object {
	return &tenure.Object{TenantID: tenant, UserID: w.UserID, SecurityClassification: w.SecurityClassification,
		PermissionScope: tenure.PermissionScope{AllowRoles: w.AllowRoles, DenyRoles: w.DenyRoles}}
}

// config is a workflow's aggregation settings, parsed.
type config struct {
	w          Workflow
	strategies []prefixStrategy
	experts    []prefixExperts
}

type prefixStrategy struct {
	loc      spec.NormalizedPath
	strategy Strategy
}

type prefixExperts struct {
	loc    spec.NormalizedPath
	agents []string
}

// config parses the path strategies and experts.
func (w Workflow) config() (*config, error) {
	c := &config{w: w}
	keys := sortedKeys(w.PathStrategies)
	if len(keys) > tenure.MaxListLen {
		return nil, tenure.Errorf(tenure.CodeTooLarge, "pathStrategies", "more than %d prefixes", tenure.MaxListLen)
	}
	seen := map[string]string{}
	for _, k := range keys {
		field := "pathStrategies." + k
		loc, err := prefixPath(field, k)
		if err != nil {
			return nil, err
		}
		if other, dup := seen[norm(loc)]; dup {
			return nil, tenure.Errorf(tenure.CodeInvalid, field, "names the same prefix as %s", other)
		}
		seen[norm(loc)] = k
		s := w.PathStrategies[k]
		if _, err := tenure.ParseVocab(field, string(s), Strategies); err != nil {
			return nil, err
		}
		c.strategies = append(c.strategies, prefixStrategy{loc, s})
	}
	if len(w.Experts) > tenure.MaxListLen {
		return nil, tenure.Errorf(tenure.CodeTooLarge, "experts", "more than %d entries", tenure.MaxListLen)
	}
	for i, e := range w.Experts {
		loc, err := prefixPath(fmt.Sprintf("experts[%d].path", i), e.Path)
		if err != nil {
			return nil, err
		}
		if len(e.Agents) == 0 {
			return nil, tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("experts[%d].agents", i), "required: the agent ids or roles that win under %s", e.Path)
		}
		for _, a := range e.Agents {
			if err := tenure.CheckID(fmt.Sprintf("experts[%d].agents", i), a, true); err != nil {
				return nil, err
			}
		}
		c.experts = append(c.experts, prefixExperts{loc, e.Agents})
	}
	uses := w.Strategy == ExpertOverride
	for _, s := range c.strategies {
		uses = uses || s.strategy == ExpertOverride
	}
	if uses && len(c.experts) == 0 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "experts", "required by expert-override: which agents win under which path prefixes")
	}
	return c, nil
}

// strategyFor returns the strategy of a location: that of the longest
// path prefix configured for it, else the workflow's.
func (c *config) strategyFor(loc spec.NormalizedPath) Strategy {
	s, best := c.w.Strategy, -1
	for _, p := range c.strategies {
		if len(p.loc) > best && isPrefix(p.loc, loc) {
			s, best = p.strategy, len(p.loc)
		}
	}
	return s
}

// expertsFor returns the experts of a location: those of the longest
// matching prefix (every entry with that prefix).
func (c *config) expertsFor(loc spec.NormalizedPath) []string {
	var out []string
	best := -1
	for _, e := range c.experts {
		if !isPrefix(e.loc, loc) || len(e.loc) < best {
			continue
		}
		if len(e.loc) > best {
			out, best = nil, len(e.loc)
		}
		out = append(out, e.agents...)
	}
	return out
}

// isPrefix reports whether p is a prefix of (or equal to) loc.
func isPrefix(p, loc spec.NormalizedPath) bool {
	if len(p) > len(loc) {
		return false
	}
	for i := range p {
		if p[i] != loc[i] {
			return false
		}
	}
	return true
}

// related reports whether one location is a prefix of the other.
func related(a, b spec.NormalizedPath) bool { return isPrefix(a, b) || isPrefix(b, a) }
