package compile

import (
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// Tier is a relevance priority tier.
type Tier string

// Priority tiers, from must-have to omitted.
const (
	TierCritical   Tier = "critical"
	TierImportant  Tier = "important"
	TierUseful     Tier = "useful"
	TierMinimal    Tier = "minimal"
	TierIrrelevant Tier = "irrelevant"
)

// CompiledAs says how an object entered the envelope (the rung of the
// fact-to-instruction ladder it reached).
type CompiledAs string

// Compilation forms.
const (
	AsHardConstraint CompiledAs = "hard_constraint"
	AsGuidance       CompiledAs = "behavioral_guidance"
	AsContext        CompiledAs = "context"
	AsData           CompiledAs = "data"
)

// OmitReason says why a candidate did not reach the envelope.
type OmitReason string

// Omission reasons.
const (
	OmitBudget       OmitReason = "budget"
	OmitPermission   OmitReason = "permission"
	OmitScope        OmitReason = "scope"
	OmitSuperseded   OmitReason = "superseded"
	OmitOverridden   OmitReason = "overridden"
	OmitShadowed     OmitReason = "shadowed" // another claim for the key is preferred
	OmitExpired      OmitReason = "expired"
	OmitNotYetValid  OmitReason = "not_yet_valid"
	OmitArchived     OmitReason = "archived"
	OmitQuarantined  OmitReason = "quarantined"
	OmitIrrelevant   OmitReason = "irrelevant_to_active_task"
	OmitInactiveTask OmitReason = "inactive_for_task_type"
	OmitDuplicate    OmitReason = "duplicate"
	// OmitOtherThread drops another conversation's state and summaries
	// (see Request.ThreadID).
	OmitOtherThread OmitReason = "other_thread"
	// OmitRuleOverBudget drops a binding rule that did not fit, only when
	// the request allows it (RulesDrop); the trace also warns.
	OmitRuleOverBudget OmitReason = "binding_rule_over_budget"
	// OmitDecayed drops an object whose decay weight fell below its
	// rule's threshold, before the retirement sweep retires it (a pinned
	// memory never decays out).
	OmitDecayed OmitReason = "decayed"
	// OmitCoveredByHistory drops a conversation summary whose messages
	// the history section holds in full, from the thread's first.
	OmitCoveredByHistory OmitReason = "covered_by_history"
)

// OmitReasons lists every omission reason.
var OmitReasons = []OmitReason{OmitBudget, OmitPermission, OmitScope, OmitSuperseded, OmitOverridden, OmitShadowed, OmitExpired,
	OmitNotYetValid, OmitArchived, OmitQuarantined, OmitIrrelevant, OmitInactiveTask, OmitDuplicate, OmitOtherThread, OmitRuleOverBudget, OmitDecayed, OmitCoveredByHistory}

// Trace records one compilation.
type Trace struct {
	TraceID   string          `json:"trace_id"`
	TenantID  string          `json:"tenant_id"`
	UserID    string          `json:"user_id,omitempty"`
	ProjectID string          `json:"project_id,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	TaskID    string          `json:"task_id,omitempty"`
	Task      tenure.TaskType `json:"active_task,omitempty"`
	Mode      Mode            `json:"mode"`
	Budget    int             `json:"budget"`
	Tokenizer string          `json:"tokenizer"`
	AsOf      *time.Time      `json:"as_of,omitempty"`
	At        time.Time       `json:"compiled_at"`

	CompiledPromptTokens int `json:"compiled_prompt_tokens"`

	Compiled    []CompiledObject    `json:"compiled_objects"`
	Omitted     []OmittedObject     `json:"omitted_objects"`
	Quarantined []QuarantinedObject `json:"quarantined_objects"`
	// Withheld counts candidates dropped by the scope and permission gates,
	// which Omitted lists by id. Both are filled only for principals
	// allowed full traces (trace:full); for anyone else a denied object
	// must look missing, so it is neither listed nor counted.
	Withheld map[OmitReason]int `json:"withheld,omitempty"`
	// Compacted marks a trace kept in its compact form (see Trace.Compact):
	// Omitted lists at most a few candidates a reason, OmittedTotal counts
	// them all.
	Compacted    bool               `json:"compacted,omitempty"`
	OmittedTotal map[OmitReason]int `json:"omitted_total,omitempty"`

	// Warnings say what the caller must know about this envelope, e.g.
	// binding rules dropped for budget.
	Warnings []string `json:"warnings,omitempty"`
	// Notes say what was done before compiling, e.g. a thread's pending
	// messages digested (added by the caller that did it).
	Notes []string `json:"notes,omitempty"`
	// Workflow says what of the request's workflow snapshot the envelope
	// holds (with Request.WorkflowID).
	Workflow *WorkflowTrace `json:"workflow,omitempty"`
	// EntityCards lists the entity cards built for the memory section:
	// which were added and which dropped for budget.
	EntityCards []EntityCard `json:"entity_cards,omitempty"`

	Retrieval RetrievalMeta  `json:"retrieval_metadata"`
	Cache     CacheMeta      `json:"cache_metadata"`
	Sections  []SectionTrace `json:"sections"`
	Steps     []StepTrace    `json:"steps"`
	LatencyMS float64        `json:"compilation_latency_ms"`
}

// Compact returns the trace in the form a server keeps it: the omitted
// candidates summarized by reason (OmittedTotal) with the first maxIDs of
// each reason listed, in the order Omitted lists them, and the compiled
// history turns without their source origin (message://thread/id, which
// their object id already names). Everything else is kept as it is. A
// trace compacted already is returned unchanged.
func (t Trace) Compact(maxIDs int) Trace {
	if t.Compacted {
		return t
	}
	t.Compacted = true
	t.OmittedTotal = make(map[OmitReason]int)
	omitted := make([]OmittedObject, 0, min(len(t.Omitted), maxIDs*4))
	for _, o := range t.Omitted {
		if t.OmittedTotal[o.Reason]++; t.OmittedTotal[o.Reason] <= maxIDs {
			omitted = append(omitted, o)
		}
	}
	t.Omitted = slices.Clip(omitted)
	compiled := slices.Clone(t.Compiled)
	for i := range compiled {
		if strings.HasPrefix(compiled[i].SourceOrigin, "message://") {
			compiled[i].SourceOrigin = ""
		}
	}
	t.Compiled = compiled
	return t
}

// CompiledObject describes an object in the envelope.
type CompiledObject struct {
	ObjectID               string                     `json:"object_id"`
	ObjectType             tenure.ObjectType          `json:"object_type"`
	AuthorityLevel         int                        `json:"authority_level"`
	SourceOrigin           string                     `json:"source_origin,omitempty"`
	SourceAuthority        float64                    `json:"source_authority"`
	ConfidenceScore        float64                    `json:"confidence_score"`
	SecurityClassification tenure.Classification      `json:"security_classification"`
	ContradictionStatus    tenure.ContradictionStatus `json:"contradiction_status"`
	PriorityTier           Tier                       `json:"priority_tier"`
	CompiledAs             CompiledAs                 `json:"compiled_as"`
	Section                SectionKind                `json:"section"`
	Score                  float64                    `json:"score"`
	// RescuedFrom and AttachedTo describe a rescued document subunit.
	RescuedFrom string `json:"rescued_from,omitempty"`
	AttachedTo  string `json:"attached_to,omitempty"`
	// Fill says why a memory that matched nothing in the query was
	// compiled: "foundation" (pinned or of importance 3) or "fill" (an
	// important or recent memory in budget the rest left free).
	Fill string `json:"fill,omitempty"`
}

// OmittedObject describes a candidate left out.
type OmittedObject struct {
	ObjectID     string     `json:"object_id"`
	Reason       OmitReason `json:"reason"`
	PriorityTier Tier       `json:"priority_tier,omitempty"`
	ValidUntil   *time.Time `json:"valid_until,omitempty"`
	// SupersededBy names the claim that displaced it, when known.
	SupersededBy string `json:"superseded_by,omitempty"`
}

// QuarantinedObject describes a claim held back by an unresolved conflict.
type QuarantinedObject struct {
	ObjectID            string                     `json:"object_id"`
	Reason              tenure.Reason              `json:"reason"`
	ContradictionStatus tenure.ContradictionStatus `json:"contradiction_status"`
}

// RetrievalMeta counts candidates.
type RetrievalMeta struct {
	QueryHash      string `json:"query_hash"`
	CandidateCount int    `json:"retrieved_candidate_count"`
	CompiledCount  int    `json:"compiled_candidate_count"`
	// HistoryVectors reports semantic history retrieval, when the
	// compiler has a MessageEmbedder.
	HistoryVectors *VectorsMeta `json:"history_vectors,omitempty"`
	// ExpandedNames lists the names of the query that denote entities of
	// the registries the principal reads, with the other names of each
	// that the compilation searched for too (see NameExpander).
	ExpandedNames []tenure.NameExpansion `json:"expanded_names,omitempty"`
}

// VectorsMeta reports the semantic half of history retrieval.
type VectorsMeta struct {
	// Model names the embedding space.
	Model string `json:"model,omitempty"`
	// Fused is true when vector and lexical relevance were fused, false
	// when history was ranked lexically only, for Reason.
	Fused  bool         `json:"fused"`
	Reason VectorReason `json:"reason,omitempty"`
	// Nearest counts the candidates among the query's nearest messages,
	// Embedded the candidates with a vector.
	Nearest  int `json:"nearest"`
	Embedded int `json:"embedded"`
}

// VectorReason says why history was ranked lexically only.
type VectorReason string

// Reasons for lexical-only history.
const (
	// VectorsKeptLocal: the tenant's text is not sent for embedding.
	VectorsKeptLocal VectorReason = "kept_local"
	// VectorsFailed: the query could not be embedded (the endpoint is
	// down, say); the trace warns.
	VectorsFailed VectorReason = "endpoint_failed"
	// VectorsMissing: no message in scope has a vector of the model yet
	// (tenure embed fills them).
	VectorsMissing VectorReason = "no_vectors"
	// VectorsNoQuery: the query has no text to embed.
	VectorsNoQuery VectorReason = "no_query"
)

// CacheMeta describes the cacheable prefix.
type CacheMeta struct {
	PromptCacheKey      string `json:"prompt_cache_key"`
	StaticPrefixTokens  int    `json:"static_prefix_tokens"`
	DynamicSuffixTokens int    `json:"dynamic_suffix_tokens"`
	// Breakpoints lists the sections after which a cache breakpoint goes.
	Breakpoints []SectionKind `json:"breakpoints"`
}

// SectionTrace records a section's budget.
type SectionTrace struct {
	Kind      SectionKind `json:"kind"`
	Allocated int         `json:"allocated"`
	Tokens    int         `json:"tokens"`
	Items     int         `json:"items"`
	Truncated bool        `json:"truncated,omitempty"`
}

// StepTrace records one pipeline step.
type StepTrace struct {
	Step   int     `json:"step"`
	Name   string  `json:"name"`
	In     int     `json:"in"`
	Out    int     `json:"out"`
	Micros float64 `json:"micros"`
}
