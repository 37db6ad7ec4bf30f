package tenure

import (
	"slices"
	"strings"
)

// Bounded vocabularies. Every metadata field that classifies an object takes
// one of a closed set of values; an unknown value is rejected with an error
// naming the field and the allowed values.

// ObjectType is the kind of claim an object carries.
type ObjectType string

// Object types.
const (
	TypePreference           ObjectType = "preference"
	TypeIdentityFact         ObjectType = "identity_fact"
	TypeProjectDecision      ObjectType = "project_decision"
	TypeRetrievedPassage     ObjectType = "retrieved_passage"
	TypePolicyRule           ObjectType = "policy_rule"
	TypeToolSchema           ObjectType = "tool_schema"
	TypeInferredBelief       ObjectType = "inferred_belief"
	TypeActionableConstraint ObjectType = "actionable_constraint"
	// TypeFact is a plain persistent fact (a key and a value) that fits none
	// of the spec's narrower types; it is the default for keyed writes.
	TypeFact ObjectType = "fact"
)

// ObjectTypes lists the allowed object types.
var ObjectTypes = []ObjectType{TypePreference, TypeIdentityFact, TypeProjectDecision,
	TypeRetrievedPassage, TypePolicyRule, TypeToolSchema, TypeInferredBelief,
	TypeActionableConstraint, TypeFact}

// Classification is a security classification, ordered from least to most
// sensitive.
type Classification string

// Security classifications.
const (
	Public           Classification = "public"
	Restricted       Classification = "restricted"
	Confidential     Classification = "confidential"
	HighlyRestricted Classification = "highly_restricted"
)

// Classifications lists the classifications from least to most sensitive.
var Classifications = []Classification{Public, Restricted, Confidential, HighlyRestricted}

// Rank returns the position of c in Classifications, or -1 if unknown.
func (c Classification) Rank() int { return slices.Index(Classifications, c) }

// TaskType names the kind of task a request serves.
type TaskType string

// Task types: the spec's four plus two for conversational agents.
const (
	TaskCodeGeneration      TaskType = "code_generation"
	TaskAnalyticalReporting TaskType = "analytical_reporting"
	TaskDataExtraction      TaskType = "data_extraction"
	TaskSystemOrchestration TaskType = "system_orchestration"
	TaskQuestionAnswering   TaskType = "question_answering"
	TaskConversation        TaskType = "conversation"
)

// TaskTypes lists the allowed task types.
var TaskTypes = []TaskType{TaskCodeGeneration, TaskAnalyticalReporting, TaskDataExtraction,
	TaskSystemOrchestration, TaskQuestionAnswering, TaskConversation}

// ContradictionStatus records how an object fared in reconciliation.
type ContradictionStatus string

// Contradiction statuses.
const (
	Clean       ContradictionStatus = "clean"
	Disputed    ContradictionStatus = "disputed"
	Overridden  ContradictionStatus = "overridden"
	Quarantined ContradictionStatus = "quarantined"
)

// ContradictionStatuses lists the allowed contradiction statuses.
var ContradictionStatuses = []ContradictionStatus{Clean, Disputed, Overridden, Quarantined}

// RetirementRule says what the retirement sweep does with an object whose
// decayed weight fell below its threshold or whose valid time ended.
type RetirementRule string

// Retirement rules.
const (
	RetireArchive          RetirementRule = "archive"
	RetireHardDelete       RetirementRule = "hard_delete"
	RetireDemoteToArchival RetirementRule = "demote_to_archival"
	RetireConfirm          RetirementRule = "trigger_user_confirmation"
)

// RetirementRules lists the allowed retirement rules.
var RetirementRules = []RetirementRule{RetireArchive, RetireHardDelete, RetireDemoteToArchival, RetireConfirm}

// MemoryType is the tri-partite memory classification of state-layers.md.
type MemoryType string

// Memory types.
const (
	MemoryUser           MemoryType = "user"
	MemoryCapability     MemoryType = "capability"
	MemoryOrganizational MemoryType = "organizational"
)

// MemoryTypes lists the allowed memory types.
var MemoryTypes = []MemoryType{MemoryUser, MemoryCapability, MemoryOrganizational}

// ScopeKind says how widely a claim holds.
type ScopeKind string

// Scope kinds.
const (
	ScopeGlobal       ScopeKind = "global"
	ScopeTask         ScopeKind = "task"
	ScopeHypothetical ScopeKind = "hypothetical"
	ScopeDraft        ScopeKind = "draft"
	ScopeSession      ScopeKind = "session"
)

// ScopeKinds lists the allowed scope kinds.
var ScopeKinds = []ScopeKind{ScopeGlobal, ScopeTask, ScopeHypothetical, ScopeDraft, ScopeSession}

// Sandboxed reports whether objects of this kind live in an isolated sandbox
// (visible only inside their scope id, never affecting global state).
func (k ScopeKind) Sandboxed() bool { return k == ScopeHypothetical || k == ScopeDraft }

// ConstraintType classifies a constraint.
type ConstraintType string

// Constraint types.
const (
	ConstraintBudget   ConstraintType = "budget"
	ConstraintDeadline ConstraintType = "deadline"
	ConstraintCapacity ConstraintType = "capacity"
	ConstraintPolicy   ConstraintType = "policy"
)

// ConstraintTypes lists the allowed constraint types.
var ConstraintTypes = []ConstraintType{ConstraintBudget, ConstraintDeadline, ConstraintCapacity, ConstraintPolicy}

// Layer places an object in one of the state layers of the spec.
type Layer string

// Layers: the four of state-layers.md, then the state layers of the context
// architecture.
const (
	LayerIdentity       Layer = "identity"
	LayerPersistentFact Layer = "persistent_fact"
	LayerWorkingSet     Layer = "working_set"
	LayerEnvironment    Layer = "environment"
	LayerSession        Layer = "session"
	LayerTask           Layer = "task"
	LayerProject        Layer = "project"
	LayerUser           Layer = "user"
	LayerTenant         Layer = "tenant"
	LayerCorpus         Layer = "corpus"
	LayerTool           Layer = "tool"
	LayerPolicy         Layer = "policy"
	LayerBelief         Layer = "belief"
)

// Layers lists the allowed layers.
var Layers = []Layer{LayerIdentity, LayerPersistentFact, LayerWorkingSet, LayerEnvironment,
	LayerSession, LayerTask, LayerProject, LayerUser, LayerTenant, LayerCorpus, LayerTool,
	LayerPolicy, LayerBelief}

// Reconciled reports whether writes to the layer go through supersession and
// conflict reconciliation. Identity, working-set and environment objects
// have their own, simpler semantics.
func (l Layer) Reconciled() bool {
	return l != LayerIdentity && l != LayerWorkingSet && l != LayerEnvironment
}

// Status is the lifecycle state of an object version, set by the store.
type Status string

// Statuses.
const (
	// StatusActive: a current claim, valid within its valid-time window.
	StatusActive Status = "active"
	// StatusSuperseded: replaced by a newer claim; it still describes the
	// world inside its (closed) valid-time window.
	StatusSuperseded Status = "superseded"
	// StatusOverridden: displaced by a more authoritative or more trusted
	// claim; never current.
	StatusOverridden Status = "overridden"
	// StatusQuarantined: in an unresolved conflict; never current.
	StatusQuarantined Status = "quarantined"
	// StatusArchived: retired; kept for history, never current.
	StatusArchived Status = "archived"
	// StatusCleared: a working-set item whose session ended.
	StatusCleared Status = "cleared"
)

// Statuses lists the allowed statuses.
var Statuses = []Status{StatusActive, StatusSuperseded, StatusOverridden, StatusQuarantined, StatusArchived, StatusCleared}

// Tier is an object's retrieval tier.
type Tier string

// Tiers.
const (
	TierHot      Tier = "hot"      // normal
	TierArchival Tier = "archival" // demoted: still current, ranked last
)

// Tiers lists the allowed tiers.
var Tiers = []Tier{TierHot, TierArchival}

// checkVocab returns an invalid-input error naming field and the allowed
// values when v is not in allowed.
func checkVocab[T ~string](field string, v T, allowed []T) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return Errorf(CodeInvalid, field, "unknown value %q (allowed: %s)", string(v), strings.Join(names, ", "))
}

// ParseVocab parses s as a member of allowed, returning a field-named error.
func ParseVocab[T ~string](field, s string, allowed []T) (T, error) {
	v := T(s)
	return v, checkVocab(field, v, allowed)
}
