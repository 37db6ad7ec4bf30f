package tenure

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Input limits. MaxContentLen is the default limit on text (see
// Object.ValidateWithin); stores take another.
const (
	MaxIDLen      = 256
	MaxContentLen = 1 << 20
	MaxListLen    = 256
	// MaxAlternatives is how many alternatives a decision keeps.
	MaxAlternatives = 8
)

// CheckInput rejects store-set fields on a new claim (Version 0). An edit
// of a fetched object (Version > 0) may carry them; they are ignored.
func (o *Object) CheckInput() error {
	if o.Version < 0 {
		return Errorf(CodeInvalid, "version", "must not be negative")
	}
	if o.Version > 0 {
		return nil
	}
	switch {
	case !o.TxStart.IsZero():
		return Errorf(CodeInvalid, "tx_start", "is set by the store; use valid_from for when the claim became true")
	case o.TxEnd != nil:
		return Errorf(CodeInvalid, "tx_end", "is set by the store; use valid_until for when the claim stops being true")
	case o.Status != "" && o.Status != StatusActive:
		return Errorf(CodeInvalid, "status", "is set by the store; use supersedes or retire to change it")
	case o.ContradictionStatus != "" && o.ContradictionStatus != Clean:
		return Errorf(CodeInvalid, "contradiction_status", "is set by the store by reconciliation")
	case o.SupersessionLink != "":
		return Errorf(CodeInvalid, "supersession_link", "is set by the store; name the old object in supersedes of the new one")
	case o.WrittenBy != "" || o.AuthorAuthority != "":
		return Errorf(CodeInvalid, "written_by", "is set by the store from the principal")
	case o.Binding:
		return Errorf(CodeInvalid, "binding", "is set by the store from the writer's permissions (%s)", PermRulesWrite)
	}
	return nil
}

// ApplyDefaults fills every unset field that has a default. It does not
// assign ids, versions or transaction times (the store does).
func (o *Object) ApplyDefaults(now time.Time) {
	if o.Layer == "" {
		o.Layer = LayerPersistentFact
	}
	switch {
	case len(o.Value) == 0 && o.Content != "":
		// A marshalled string is canonical already; re-encoding it was a
		// fifth of a compilation's allocations (one per past message).
		o.Value, _ = json.Marshal(o.Content)
	case len(o.Value) > 0:
		o.Value = CanonicalJSON(o.Value)
	}
	if o.Content == "" && len(o.Value) > 0 {
		o.Content = ValueText(o.Value)
	}
	if o.NormalizedClaim == "" && o.Key != "" && len(o.Value) > 0 {
		o.NormalizedClaim = o.Key + " == " + string(o.Value)
	}
	if o.MemoryType == "" {
		o.MemoryType = MemoryTypeForSource(o.Source)
	}
	if o.ObjectType == "" {
		o.ObjectType = defaultObjectType(o)
	}
	if o.AuthorityLevel == nil {
		o.AuthorityLevel = Ptr(defaultLevel(o))
	}
	if o.SourceAuthority == nil {
		o.SourceAuthority = Ptr(0.5)
	}
	if o.ConfidenceScore == nil {
		o.ConfidenceScore = Ptr(1.0)
	}
	if o.SecurityClassification == "" {
		o.SecurityClassification = Public
	}
	if o.Scope == "" {
		o.Scope = ScopeGlobal
	}
	switch o.Scope {
	case ScopeSession:
		o.SessionID, o.ScopeID = firstSet(o.SessionID, o.ScopeID), firstSet(o.ScopeID, o.SessionID)
	case ScopeTask:
		o.TaskID, o.ScopeID = firstSet(o.TaskID, o.ScopeID), firstSet(o.ScopeID, o.TaskID)
	}
	if o.ValidFrom.IsZero() {
		o.ValidFrom = now
	}
	if o.LastConfirmed.IsZero() {
		o.LastConfirmed = now
	}
	if o.Tier == "" {
		o.Tier = TierHot
	}
	o.applyMemoryDefaults()
	if o.CanonicalEntityIDs == nil {
		o.CanonicalEntityIDs = []string{}
	}
	if o.ApplicableTaskTypes == nil {
		o.ApplicableTaskTypes = []TaskType{}
	}
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func defaultObjectType(o *Object) ObjectType {
	switch {
	case o.IsConstraint:
		return TypeActionableConstraint
	case o.Layer == LayerPolicy:
		return TypePolicyRule
	case o.Layer == LayerTool:
		return TypeToolSchema
	case o.Layer == LayerCorpus:
		return TypeRetrievedPassage
	case o.Layer == LayerIdentity:
		return TypeIdentityFact
	case o.Layer == LayerBelief:
		return TypeInferredBelief
	}
	return TypeFact
}

func defaultLevel(o *Object) int {
	switch {
	case o.ObjectType == TypeRetrievedPassage || o.Layer == LayerCorpus:
		return LevelRetrieved
	case o.ObjectType == TypeInferredBelief || o.Layer == LayerBelief || o.MemoryType == MemoryCapability:
		return LevelInferred
	}
	return LevelUser
}

// MemoryTypeForSource classifies a source label as state-layers.md says:
// policies and systems of record are organizational, observations and
// patterns are capability memory, everything else is user memory.
func MemoryTypeForSource(source string) MemoryType {
	s := strings.ToLower(strings.TrimSpace(source))
	switch {
	case s == "policy" || s == "system" || s == "document" || s == "organization" ||
		s == "compliance" || s == "legal" || strings.HasSuffix(s, "_system") || strings.HasSuffix(s, "_policy"):
		return MemoryOrganizational
	case s == "observation" || s == "pattern" || s == "heuristic" || s == "strategy" || s == "skill":
		return MemoryCapability
	}
	return MemoryUser
}

// Validate checks every field of a defaulted object, its text within
// MaxContentLen bytes.
func (o *Object) Validate() error { return o.ValidateWithin(MaxContentLen) }

// ValidateWithin is Validate with the content, the value (a value
// defaulted from the content is its JSON string, two quotes and any
// escapes longer), the normalized claim, why_it_matters and the
// behavioral implication limited to max bytes each (MaxContentLen when
// max <= 0). Over it: CodeTooLarge naming the field.
func (o *Object) ValidateWithin(max int) error {
	if max <= 0 {
		max = MaxContentLen
	}
	if o.Content == "" && len(o.Value) == 0 {
		return Errorf(CodeInvalid, "content", "an object needs content or a value")
	}
	if len(o.Content) > max {
		return Errorf(CodeTooLarge, "content", "longer than %d bytes", max)
	}
	if !utf8.ValidString(o.Content) {
		return Errorf(CodeInvalid, "content", "not valid UTF-8")
	}
	if len(o.Value) > max {
		return Errorf(CodeTooLarge, "value", "longer than %d bytes", max)
	}
	if len(o.Value) > 0 && !json.Valid(o.Value) {
		return Errorf(CodeInvalid, "value", "not valid JSON")
	}
	for _, f := range []struct{ name, v string }{{"normalized_claim", o.NormalizedClaim}, {"why_it_matters", o.WhyItMatters},
		{"behavioral_implication", o.BehavioralImplication}} {
		if len(f.v) > max {
			return Errorf(CodeTooLarge, f.name, "longer than %d bytes", max)
		}
	}
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"object_id", o.ObjectID, false}, {"key", o.Key, false}, {"tenant_id", o.TenantID, true},
		{"user_id", o.UserID, false}, {"persona_id", o.PersonaID, false}, {"project_id", o.ProjectID, false},
		{"session_id", o.SessionID, false}, {"task_id", o.TaskID, false}, {"scope_id", o.ScopeID, false}, {"supersedes", o.Supersedes, false},
		{"source", o.Source, false}, {"attribute", o.Attribute, false}} {
		if err := checkID(f.name, f.v, f.required); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		v    []string
	}{{"canonical_entity_ids", o.CanonicalEntityIDs}, {"aliases", o.Aliases}, {"depends_on", o.DependsOn},
		{"derived_facts", o.DerivedFacts}, {"permission_scope.allow_roles", o.PermissionScope.AllowRoles},
		{"permission_scope.deny_roles", o.PermissionScope.DenyRoles}} {
		if len(f.v) > MaxListLen {
			return Errorf(CodeTooLarge, f.name, "more than %d entries", MaxListLen)
		}
		for _, s := range f.v {
			if err := checkID(f.name, s, true); err != nil {
				return err
			}
		}
	}
	if o.Attribute != "" && len(o.CanonicalEntityIDs) == 0 {
		return Errorf(CodeInvalid, "attribute", "names an attribute of the object's first canonical entity; canonical_entity_ids is empty")
	}
	if err := o.validateVocab(); err != nil {
		return err
	}
	if err := o.validateNumbers(); err != nil {
		return err
	}
	if err := o.validateURIs(); err != nil {
		return err
	}
	if o.StateItem != nil {
		if err := o.StateItem.Validate(); err != nil {
			return err
		}
	}
	if err := o.validateMemory(); err != nil {
		return err
	}
	if err := o.validateTimes(); err != nil {
		return err
	}
	if o.ValidUntil != nil && !o.ValidUntil.After(o.ValidFrom) {
		return Errorf(CodeInvalid, "valid_until", "must be after valid_from (%s)", o.ValidFrom.Format(time.RFC3339Nano))
	}
	return o.validateScope()
}

// validateTimes checks that the valid times are in the calendar every
// store holds and that the precision is known.
func (o *Object) validateTimes() error {
	if !InCalendar(o.ValidFrom) {
		return Errorf(CodeInvalid, "valid_from", "year %d is outside %d-%d", o.ValidFrom.UTC().Year(), MinYear, MaxYear)
	}
	if o.ValidUntil != nil && !InCalendar(*o.ValidUntil) {
		return Errorf(CodeInvalid, "valid_until", "year %d is outside %d-%d", o.ValidUntil.UTC().Year(), MinYear, MaxYear)
	}
	if o.ValidPrecision != PrecisionExact {
		return checkVocab("valid_precision", o.ValidPrecision, Precisions)
	}
	return nil
}

func (o *Object) validateVocab() error {
	checks := []error{
		checkVocab("object_type", o.ObjectType, ObjectTypes),
		checkVocab("layer", o.Layer, Layers),
		checkVocab("memory_type", o.MemoryType, MemoryTypes),
		checkVocab("security_classification", o.SecurityClassification, Classifications),
		checkVocab("scope", o.Scope, ScopeKinds),
		checkVocab("tier", o.Tier, Tiers),
	}
	if o.Status != "" {
		checks = append(checks, checkVocab("status", o.Status, Statuses))
	}
	if o.ContradictionStatus != "" {
		checks = append(checks, checkVocab("contradiction_status", o.ContradictionStatus, ContradictionStatuses))
	}
	if o.ConstraintType != "" {
		checks = append(checks, checkVocab("constraint_type", o.ConstraintType, ConstraintTypes))
	}
	if o.RetirementRule != "" {
		checks = append(checks, checkVocab("retirement_rule", o.RetirementRule, RetirementRules))
	}
	for _, t := range o.ApplicableTaskTypes {
		checks = append(checks, checkVocab("applicable_task_types", t, TaskTypes))
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if o.ConstraintType != "" && !o.IsConstraint {
		return Errorf(CodeInvalid, "constraint_type", "set only on constraints (is_constraint: true)")
	}
	return nil
}

func (o *Object) validateNumbers() error {
	for _, f := range []struct {
		name string
		v    *float64
	}{{"source_authority", o.SourceAuthority}, {"confidence_score", o.ConfidenceScore}} {
		if f.v != nil && (math.IsNaN(*f.v) || *f.v < 0 || *f.v > 1) {
			return Errorf(CodeInvalid, f.name, "must be between 0 and 1, got %v", *f.v)
		}
	}
	if o.AuthorityLevel != nil && (*o.AuthorityLevel < LevelPlatform || *o.AuthorityLevel > LevelRetrieved) {
		return Errorf(CodeInvalid, "authority_level", "must be 0 (platform) … 4 (retrieved data), got %d", *o.AuthorityLevel)
	}
	if d := o.DecayRule; d != nil {
		if math.IsNaN(d.HalfLifeDays) || d.HalfLifeDays <= 0 || math.IsInf(d.HalfLifeDays, 0) {
			return Errorf(CodeInvalid, "decay_rule.half_life_days", "must be a positive number of days")
		}
		if math.IsNaN(d.MinimumThreshold) || d.MinimumThreshold < 0 || d.MinimumThreshold >= 1 {
			return Errorf(CodeInvalid, "decay_rule.minimum_threshold", "must be in [0, 1)")
		}
	}
	return nil
}

func (o *Object) validateURIs() error {
	for _, f := range []struct{ name, v string }{{"source_origin", o.SourceOrigin}, {"update_path", o.UpdatePath}} {
		if f.v == "" {
			continue
		}
		u, err := url.Parse(f.v)
		if err != nil || u.Scheme == "" || len(f.v) > 2048 {
			return Errorf(CodeInvalid, f.name, "must be a URI with a scheme (e.g. user://alice/chat/42), got %q", f.v)
		}
	}
	return nil
}

func (o *Object) validateScope() error {
	switch o.Scope {
	case ScopeHypothetical, ScopeDraft:
		if o.ScopeID == "" {
			return Errorf(CodeInvalid, "scope_id", "required for %s scope", o.Scope)
		}
	case ScopeSession:
		if o.SessionID == "" {
			return Errorf(CodeInvalid, "session_id", "required for session scope")
		}
		if o.ScopeID != o.SessionID {
			return Errorf(CodeInvalid, "scope_id", "must equal session_id for session scope")
		}
	case ScopeTask:
		if o.TaskID == "" {
			return Errorf(CodeInvalid, "task_id", "required for task scope")
		}
		if o.ScopeID != o.TaskID {
			return Errorf(CodeInvalid, "scope_id", "must equal task_id for task scope")
		}
	case ScopeGlobal:
		if o.ScopeID != "" {
			return Errorf(CodeInvalid, "scope_id", "only task, session, hypothetical and draft scopes take a scope id")
		}
	}
	need := map[Layer]struct{ field, v string }{
		LayerIdentity: {"session_id", o.SessionID}, LayerWorkingSet: {"session_id", o.SessionID},
		LayerSession: {"session_id", o.SessionID}, LayerTask: {"task_id", o.TaskID},
		LayerProject: {"project_id", o.ProjectID}, LayerUser: {"user_id", o.UserID},
	}
	if n, ok := need[o.Layer]; ok && n.v == "" {
		return Errorf(CodeInvalid, n.field, "required for the %s layer", o.Layer)
	}
	return nil
}

// CheckID validates an identifier-like string named field: at most
// MaxIDLen bytes of valid UTF-8 with no control characters or surrounding
// spaces, and not empty when required. Errors: CodeInvalid, CodeTooLarge.
func CheckID(field, v string, required bool) error { return checkID(field, v, required) }

// checkID validates an identifier-like string: at most MaxIDLen bytes of
// valid UTF-8 with no control characters or surrounding spaces.
func checkID(field, v string, required bool) error {
	if v == "" {
		if required {
			return Errorf(CodeInvalid, field, "required")
		}
		return nil
	}
	if len(v) > MaxIDLen {
		return Errorf(CodeTooLarge, field, "longer than %d bytes", MaxIDLen)
	}
	if !utf8.ValidString(v) {
		return Errorf(CodeInvalid, field, "not valid UTF-8")
	}
	if strings.TrimSpace(v) != v {
		return Errorf(CodeInvalid, field, "leading or trailing space in %q", v)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return Errorf(CodeInvalid, field, "control character in %q", v)
		}
	}
	return nil
}

// CanonicalJSON re-encodes a JSON value with sorted object keys and no
// insignificant space, so equal values compare equal byte for byte. Invalid
// JSON is returned unchanged (Validate reports it).
func CanonicalJSON(raw json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// ValueText renders a JSON value as text: a string as itself, anything else
// as compact JSON.
func ValueText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return string(raw)
}

// SameValue reports whether two objects make the same claim.
func SameValue(a, b *Object) bool {
	return bytes.Equal(CanonicalJSON(a.Value), CanonicalJSON(b.Value))
}

// ParseTime parses an optional time given as text: RFC 3339, or a date
// meaning midnight UTC. Empty means nil. A bad value is a CodeInvalid
// error naming field.
func ParseTime(field, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return &t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return &t, nil
	}
	return nil, Errorf(CodeInvalid, field, "%q is not a time: use RFC 3339 (2025-01-31T09:00:00Z) or a date (2025-01-31)", v)
}
