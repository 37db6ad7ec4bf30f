package tenure

import (
	"encoding/json"
	"strings"
	"time"
)

// Authority levels of the five-tier hierarchy: a lower number wins.
const (
	LevelPlatform  = 0 // platform rules
	LevelDeveloper = 1 // developer rules: system prompts and schemas
	LevelUser      = 2 // user constraints: direct utterances
	LevelInferred  = 3 // inferred memory: observed preferences and beliefs
	LevelRetrieved = 4 // retrieved data and tool payloads: untrusted
)

// Object is a Context Object: a claim plus its tenure (scope, source,
// authority, lifespan, relevance condition, update path, conflict policy and
// retirement rule). Stored objects are immutable versions; a change closes
// the current version's transaction window and inserts a new version.
//
// Fields marked "set by the store" are rejected on input except where noted.
type Object struct {
	// ObjectID identifies the object across its versions. The store
	// assigns it: a Put leaves it empty for a new object, and names an
	// existing object's id to write a new version of it. An id naming no
	// object the principal can read is CodeNotFound, whether it is unused
	// or names an object the principal may not read. Keys are the stable
	// names clients choose.
	ObjectID string `json:"object_id"`
	// Version counts the object's versions from 1 (set by the store). On
	// input a non-zero Version is an optimistic-concurrency check.
	Version int `json:"version,omitempty"`

	// Key names the slot the object fills (e.g. "order.status"). Claims for
	// the same key in the same scope are reconciled. Defaults to ObjectID.
	Key string `json:"key"`
	// Value is the claim's value, any JSON. Defaults to Content as a string.
	Value json.RawMessage `json:"value,omitempty"`
	// Content is the claim as text. Defaults to Value rendered as text.
	Content string `json:"content"`
	// NormalizedClaim is the canonical form, by default `key == value`.
	NormalizedClaim string     `json:"normalized_claim"`
	ObjectType      ObjectType `json:"object_type"`
	Layer           Layer      `json:"layer"`
	MemoryType      MemoryType `json:"memory_type"`

	CanonicalEntityIDs []string `json:"canonical_entity_ids"`
	Aliases            []string `json:"aliases,omitempty"`
	// Attribute names what the claim says of its first canonical entity
	// ("meeting_time", "employer"): claims about the same resolved entity's
	// same attribute compete for one slot whatever their keys, and are
	// reconciled like claims for one key (docs/entities.md). The store
	// normalizes it to a slug; it needs canonical_entity_ids.
	Attribute string `json:"attribute,omitempty"`

	// Source is a short provenance label (e.g. "user", "policy",
	// "finance_system"); it determines MemoryType when that is not given.
	Source       string `json:"source,omitempty"`
	SourceOrigin string `json:"source_origin,omitempty"`
	// SourceAuthority and ConfidenceScore are in [0, 1]; nil on input means
	// the defaults 0.5 and 1.0.
	SourceAuthority *float64 `json:"source_authority"`
	ConfidenceScore *float64 `json:"confidence_score"`
	// AuthorityLevel is the tier, 0 (platform) … 4 (retrieved data); nil on
	// input derives it from the layer and type.
	AuthorityLevel *int `json:"authority_level"`

	SecurityClassification Classification  `json:"security_classification"`
	PermissionScope        PermissionScope `json:"permission_scope"`

	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id,omitempty"`
	// PersonaID, when set, makes the object persona-scoped: only
	// principals acting as that persona may read it (see
	// Principal.PersonaID). Empty (the default) is global: every persona
	// reads it.
	PersonaID string    `json:"persona_id,omitempty"`
	ProjectID string    `json:"project_id,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	TaskID    string    `json:"task_id,omitempty"`
	Scope     ScopeKind `json:"scope"`
	ScopeID   string    `json:"scope_id,omitempty"`

	ValidFrom  time.Time  `json:"valid_from"`
	ValidUntil *time.Time `json:"valid_until"`
	// ValidPrecision says how exactly ValidFrom is known: "day", "week",
	// "month" or "year" when the claim was dated by a calendar period
	// ("last month"), ValidFrom then being the period's start; empty means
	// exact. Reconciliation compares imprecise valid times by their
	// periods (see SamePeriod).
	ValidPrecision Precision  `json:"valid_precision,omitempty"`
	TxStart        time.Time  `json:"tx_start"`
	TxEnd          *time.Time `json:"tx_end"`
	// LastConfirmed and LastUsed are bookkeeping, updated in place: they do
	// not change what the system believes, so they do not create versions.
	LastConfirmed time.Time  `json:"last_confirmed"`
	LastUsed      *time.Time `json:"last_used,omitempty"`

	WhyItMatters          string     `json:"why_it_matters"`
	ApplicableTaskTypes   []TaskType `json:"applicable_task_types"`
	BehavioralImplication string     `json:"behavioral_implication,omitempty"`

	Status              Status              `json:"status"`               // set by the store
	ContradictionStatus ContradictionStatus `json:"contradiction_status"` // set by the store
	IsValid             bool                `json:"is_valid"`             // set by the store: Status is active
	Tier                Tier                `json:"tier,omitempty"`       // set by the store
	// Supersedes names (by object id or key) the object this one explicitly
	// supersedes; the store resolves it to an object id.
	Supersedes string `json:"supersedes,omitempty"`
	// SupersessionLink is the id of the object that displaced this one (set
	// by the store).
	SupersessionLink string `json:"supersession_link,omitempty"`

	// DependsOn lists keys (or object ids) this claim was derived from;
	// when one of them is displaced, this object gets NeedsReview.
	DependsOn    []string `json:"depends_on,omitempty"`
	DerivedFacts []string `json:"derived_facts,omitempty"`
	NeedsReview  bool     `json:"needs_review"`

	IsConstraint   bool           `json:"is_constraint"`
	ConstraintType ConstraintType `json:"constraint_type,omitempty"`

	DecayRule      *DecayRule     `json:"decay_rule,omitempty"`
	UpdatePath     string         `json:"update_path,omitempty"`
	RetirementRule RetirementRule `json:"retirement_rule,omitempty"`

	// StateItem is set on objects that carry structured conversation state.
	StateItem *StateItem `json:"state_item,omitempty"`
	// Memory is set on objects that are memories of the memory model
	// (profile, people and project facts; see Memory).
	Memory *Memory `json:"memory,omitempty"`

	// WrittenBy and AuthorAuthority record the principal that wrote this
	// version and its rank (set by the store).
	WrittenBy       string `json:"written_by,omitempty"`
	AuthorAuthority string `json:"author_authority,omitempty"`
	// Binding records that the writer held PermRulesWrite (set by the
	// store). Only binding objects compile as rules (MUST and Guidance
	// lines) for principals other than their writer; anything else binds
	// at most the principal that wrote it.
	Binding bool `json:"binding,omitempty"`
}

// PermissionScope lists the roles allowed to read an object (empty: all)
// and the roles denied (deny wins).
type PermissionScope struct {
	AllowRoles []string `json:"allow_roles,omitempty"`
	DenyRoles  []string `json:"deny_roles,omitempty"`
}

// DecayRule gives an object a weight that halves every HalfLifeDays since it
// was last confirmed; below MinimumThreshold the retirement sweep retires it.
type DecayRule struct {
	HalfLifeDays     float64 `json:"half_life_days"`
	MinimumThreshold float64 `json:"minimum_threshold"`
}

// Level returns the authority level (LevelUser when unset).
func (o *Object) Level() int {
	if o.AuthorityLevel == nil {
		return LevelUser
	}
	return *o.AuthorityLevel
}

// Trust returns (source authority, confidence) with defaults for nil.
func (o *Object) Trust() (float64, float64) {
	sa, cs := 0.5, 1.0
	if o.SourceAuthority != nil {
		sa = *o.SourceAuthority
	}
	if o.ConfidenceScore != nil {
		cs = *o.ConfidenceScore
	}
	return sa, cs
}

// ValidAt reports whether t lies in [ValidFrom, ValidUntil).
func (o *Object) ValidAt(t time.Time) bool {
	if t.Before(o.ValidFrom) {
		return false
	}
	return o.ValidUntil == nil || t.Before(*o.ValidUntil)
}

// TxAt reports whether the version was the system's belief at t, that is t
// lies in [TxStart, TxEnd).
func (o *Object) TxAt(t time.Time) bool {
	if t.Before(o.TxStart) {
		return false
	}
	return o.TxEnd == nil || t.Before(*o.TxEnd)
}

// Current reports whether this is the latest version (TxEnd unset).
func (o *Object) Current() bool { return o.TxEnd == nil }

// Holds reports whether the version can describe the world inside its
// valid-time window: active or superseded (a superseded claim still holds
// before its successor took over).
func (o *Object) Holds() bool { return o.Status == StatusActive || o.Status == StatusSuperseded }

// Clone returns a deep copy.
func (o Object) Clone() Object {
	c := o
	c.Value = append(json.RawMessage(nil), o.Value...)
	c.CanonicalEntityIDs = cloneStrings(o.CanonicalEntityIDs)
	c.Aliases = cloneStrings(o.Aliases)
	c.ApplicableTaskTypes = append([]TaskType(nil), o.ApplicableTaskTypes...)
	c.DependsOn = cloneStrings(o.DependsOn)
	c.DerivedFacts = cloneStrings(o.DerivedFacts)
	c.PermissionScope.AllowRoles = cloneStrings(o.PermissionScope.AllowRoles)
	c.PermissionScope.DenyRoles = cloneStrings(o.PermissionScope.DenyRoles)
	c.SourceAuthority = clonePtr(o.SourceAuthority)
	c.ConfidenceScore = clonePtr(o.ConfidenceScore)
	c.AuthorityLevel = clonePtr(o.AuthorityLevel)
	c.ValidUntil = clonePtr(o.ValidUntil)
	c.TxEnd = clonePtr(o.TxEnd)
	c.LastUsed = clonePtr(o.LastUsed)
	c.DecayRule = clonePtr(o.DecayRule)
	if o.StateItem != nil {
		si := *o.StateItem
		si.TopicTags = cloneStrings(si.TopicTags)
		si.Refs = cloneStrings(si.Refs)
		si.Alternatives = cloneStrings(si.Alternatives)
		si.SupersessionEvidence = clonePtr(si.SupersessionEvidence)
		c.StateItem = &si
	}
	if o.Memory != nil {
		m := *o.Memory
		m.EntityRefs = cloneStrings(m.EntityRefs)
		m.FoldedFrom = cloneStrings(m.FoldedFrom)
		m.Importance = clonePtr(m.Importance)
		c.Memory = &m
	}
	return c
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Ptr returns a pointer to v; handy for the optional numeric fields.
func Ptr[T any](v T) *T { return &v }

// SearchText is the text full-text search and lexical ranking read: the
// key (unless it is only the id), content, aliases, entity ids,
// why_it_matters, the behavioral implication and state topics.
func (o *Object) SearchText() string {
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	if o.Key != o.ObjectID {
		add(o.Key)
	}
	add(o.Content)
	for _, a := range o.Aliases {
		add(a)
	}
	for _, id := range o.CanonicalEntityIDs {
		add(id)
	}
	add(o.WhyItMatters)
	add(o.BehavioralImplication)
	if o.StateItem != nil {
		for _, t := range o.StateItem.TopicTags {
			add(t)
		}
	}
	return b.String()
}

// AlwaysCandidate reports whether every compilation in the object's scope
// considers it regardless of the query: rules and policies, constraints,
// identity, environment, tools, the working set and structured state.
func (o *Object) AlwaysCandidate() bool {
	switch o.Layer {
	case LayerPolicy, LayerTenant, LayerTool, LayerIdentity, LayerEnvironment, LayerWorkingSet:
		return true
	}
	return o.Level() <= LevelDeveloper || o.IsConstraint || o.StateItem != nil ||
		o.ObjectType == TypePolicyRule || o.ObjectType == TypeToolSchema
}
