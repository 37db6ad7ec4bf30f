package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// Operation is what a delta does at its path.
type Operation string

// Operations.
const (
	// OpAdd sets a member (creating missing parent objects), or appends
	// its value when the path names an existing array.
	OpAdd Operation = "add"
	// OpModify replaces every node the path selects.
	OpModify Operation = "modify"
	// OpRemove removes every node the path selects; it takes no value.
	OpRemove Operation = "remove"
	// OpRebind changes the concept id bound to a term ($.bindings.TERM),
	// the one way a binding may change; its provenance is the reason.
	OpRebind Operation = "rebind"
)

// Operations lists the operations.
var Operations = []Operation{OpAdd, OpModify, OpRemove, OpRebind}

// Strategy decides what a round's deltas make of a location they touch.
type Strategy string

// Aggregation strategies (docs/snapshots.md says how each decides and
// breaks ties).
const (
	// WeightedMerge applies deltas in descending weight: the heaviest
	// value at a location holds it, objects written to one location merge
	// member by member (heavier members win) and additions to an array
	// are all kept. The default.
	WeightedMerge Strategy = "weighted-merge"
	// MajorityVote keeps the value most agents proposed (one vote per
	// agent); the voters' total weight, then the heaviest voter, then the
	// value's canonical JSON break ties.
	MajorityVote Strategy = "majority-vote"
	// HighestWeight keeps only what the heaviest delta at a location
	// proposed.
	HighestWeight Strategy = "highest-weight"
	// Union keeps every value for arrays, deduplicated; other values are
	// decided by weighted merge.
	Union Strategy = "union"
	// ExpertOverride lets the agents (or roles) configured for a path
	// prefix win there; among them, and where no expert spoke, weighted
	// merge decides.
	ExpertOverride Strategy = "expert-override"
)

// Strategies lists the strategies.
var Strategies = []Strategy{WeightedMerge, MajorityVote, HighestWeight, Union, ExpertOverride}

// ClipStrategy is a way to bring a snapshot back under its size limit.
type ClipStrategy string

// Clipping strategies.
const (
	// TruncateStrings cuts the longest string values to MaxStringBytes
	// with a marker, longest first, until the state fits (never the query
	// or a binding).
	TruncateStrings ClipStrategy = "truncate-strings"
	// EvictOldest removes the oldest entities and rules (the first of
	// their arrays) until the state fits; it also enforces MaxEntities
	// and MaxRules whatever the size.
	EvictOldest ClipStrategy = "evict-oldest"
	// DropLowestWeight leaves out the round's lowest-weight deltas until
	// the state fits. It always runs last: leaving out every delta of the
	// round leaves the previous snapshot, which fit.
	DropLowestWeight ClipStrategy = "drop-lowest-weight"
)

// ClipStrategies lists the clipping strategies.
var ClipStrategies = []ClipStrategy{TruncateStrings, EvictOldest, DropLowestWeight}

// What to do when a round's state exceeds MaxStateSize.
const (
	// OnViolationClip clips with the workflow's clipping strategies.
	OnViolationClip = "clip"
	// OnViolationReject never alters what was accepted: a delta larger
	// than the limit is refused when submitted, and at the close the
	// lowest-weight deltas that would take the state over are rejected.
	OnViolationReject = "reject"
)

// Status says what became of a delta.
type Status string

// Delta statuses.
const (
	StatusPending  Status = "pending"  // its round is open
	StatusApplied  Status = "applied"  // every change it asked for is in the snapshot (or was already)
	StatusPartial  Status = "partial"  // some of its changes are in the snapshot, some lost
	StatusLost     Status = "lost"     // another delta won every location it touched
	StatusClipped  Status = "clipped"  // left out to keep the state under its size limit
	StatusRejected Status = "rejected" // refused at the close for size (onViolation reject)
)

// Statuses lists the delta statuses.
var Statuses = []Status{StatusPending, StatusApplied, StatusPartial, StatusLost, StatusClipped, StatusRejected}

// Loss reasons: why a delta lost a location.
const (
	LostOutweighed = "outweighed"      // a heavier delta holds the location
	LostOutvoted   = "outvoted"        // more agents proposed another value
	LostExpert     = "expert_override" // an expert for the path spoke
	LostOverlap    = "overlap"         // a heavier change above or below the location won
	LostSameAgent  = "same_agent"      // the agent's heavier delta at the location is its vote
	LostStateSize  = "state_size"      // clipped or rejected to keep the state under its limit
)

// Default limits.
const (
	// DefaultMaxStateSize is the state's size limit in bytes when a
	// workflow sets none (the specification's validator example).
	DefaultMaxStateSize = 50_000
	// MaxMaxStateSize bounds the limit a workflow may set.
	MaxMaxStateSize = 16 << 20
	// DefaultMaxStringBytes is how long truncate-strings leaves a string.
	DefaultMaxStringBytes = 512
	// MaxProvenanceBytes bounds a delta's provenance.
	MaxProvenanceBytes = 4096
	// MaxPathBytes bounds a delta's path.
	MaxPathBytes = 1024
)

// Reserved names: the snapshot's own fields, which a delta may not write
// (the query is set when the workflow starts).
var Reserved = []string{"id", "workflowId", "round", "openRound", "timestamp", "stateSize", "maxStateSize",
	"converged", "workflow", "report", "deltas", "query"}

// Well-known members of the state.
const (
	KeyQuery    = "query"
	KeyBindings = "bindings"
	KeyEntities = "entities"
	KeyRules    = "rules"
)

// Workflow configures a workflow: its query, how its rounds aggregate, its
// size policy and who may see it. Zero fields take the defaults.
type Workflow struct {
	// WorkflowID names the workflow (required). Two workflows whose
	// audiences differ may share a name: each principal works on the
	// first created among those it can see.
	WorkflowID string `json:"workflowId"`
	// Query is the original user query (required); it is the round-0
	// state's query and never changes.
	Query string `json:"query"`
	// Strategy is the default aggregation strategy (weighted-merge).
	Strategy Strategy `json:"strategy,omitempty"`
	// PathStrategies overrides the strategy under path prefixes, given as
	// singular JSONPaths ("$.entities"); the longest matching prefix wins.
	PathStrategies map[string]Strategy `json:"pathStrategies,omitempty"`
	// Experts names, per path prefix, the agents (by agent id or role)
	// that win where the strategy is expert-override.
	Experts []Expert `json:"experts,omitempty"`
	// MaxStateSize bounds the state in bytes of compact JSON
	// (DefaultMaxStateSize).
	MaxStateSize int `json:"maxStateSize,omitempty"`
	// OnViolation is clip (default) or reject.
	OnViolation string `json:"onViolation,omitempty"`
	// Clipping orders the clipping strategies (default truncate-strings,
	// then drop-lowest-weight, which always runs last).
	Clipping []ClipStrategy `json:"clipping,omitempty"`
	// MaxStringBytes is what truncate-strings leaves of a long string
	// (DefaultMaxStringBytes).
	MaxStringBytes int `json:"maxStringBytes,omitempty"`
	// MaxEntities and MaxRules cap $.entities and $.rules (0: no cap);
	// beyond a cap the oldest are evicted.
	MaxEntities int `json:"maxEntities,omitempty"`
	MaxRules    int `json:"maxRules,omitempty"`
	// ConvergenceThreshold: a round converges when it changed nothing, or
	// when the bytes it changed (before and after) are less than this
	// share of the state (0: only a round that changed nothing).
	ConvergenceThreshold float64 `json:"convergenceThreshold,omitempty"`

	// UserID makes the workflow private to that user (default: every
	// principal of the tenant who may read its classification and roles).
	UserID string `json:"userId,omitempty"`
	// SecurityClassification is the clearance needed to see it (public).
	SecurityClassification tenure.Classification `json:"securityClassification,omitempty"`
	// AllowRoles and DenyRoles restrict it like an object's permission
	// scope: one of AllowRoles when any are listed, none of DenyRoles.
	AllowRoles []string `json:"allowRoles,omitempty"`
	DenyRoles  []string `json:"denyRoles,omitempty"`

	// CreatedBy and CreatedAt are set by the store.
	CreatedBy string    `json:"createdBy,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
}

// Expert gives agents precedence under a path prefix.
type Expert struct {
	// Path is a singular JSONPath prefix ("$.bindings").
	Path string `json:"path"`
	// Agents lists agent ids or roles.
	Agents []string `json:"agents"`
}

// Delta is one agent's contribution to a round.
type Delta struct {
	// ID is set by the store: a hash of the delta's content, so that the
	// same delta submitted twice (or to two servers) is one delta.
	ID string `json:"id,omitempty"`
	// AgentID is the agent: the calling principal's user id (filled when
	// empty; another agent's is forbidden).
	AgentID string `json:"agentId"`
	// Round is the round the delta is for: the workflow's open round.
	Round int `json:"round"`
	// Weight is the router-assigned weight, in [0, 1] (required).
	Weight *float64 `json:"weight"`
	// Operation is add, modify, remove or rebind.
	Operation Operation `json:"operation"`
	// Path is an RFC 9535 JSONPath into the state ("$.bindings.customer").
	Path string `json:"path"`
	// Value is the new value, any JSON (none for remove).
	Value json.RawMessage `json:"value,omitempty"`
	// Provenance says why the change (required).
	Provenance string `json:"provenance"`

	// Set by the store: the agent's roles when it submitted (expert
	// override matches them), when it was submitted, the locations it
	// touches in its round's base state as normalized paths, and what
	// became of it.
	AgentRoles  []string  `json:"agentRoles,omitempty"`
	SubmittedAt time.Time `json:"submittedAt,omitzero"`
	Targets     []string  `json:"targets,omitempty"`
	Status      Status    `json:"status,omitempty"`
	Reason      string    `json:"reason,omitempty"`
}

// W returns the delta's weight (0 when unset).
func (d *Delta) W() float64 {
	if d.Weight == nil {
		return 0
	}
	return *d.Weight
}

// String renders the delta as a line of history: "Round 1: semantic-mapper
// → "sea:customer:001" (add $.bindings.customer, weight 0.35, applied):
// provenance".
func (d Delta) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d: %s → ", d.Round, d.AgentID)
	if d.Operation == OpRemove {
		b.WriteString("(removed)")
	} else {
		b.Write(Compact(d.Value))
	}
	fmt.Fprintf(&b, " (%s %s, weight %s", d.Operation, d.Path, strconv.FormatFloat(d.W(), 'f', -1, 64))
	if d.Status != "" {
		b.WriteString(", " + string(d.Status))
		if d.Reason != "" {
			b.WriteString(": " + d.Reason)
		}
	}
	b.WriteString(")")
	if d.Provenance != "" {
		b.WriteString(" — " + d.Provenance)
	}
	return b.String()
}

// Compact returns raw JSON without insignificant space (raw itself when it
// is not valid JSON).
func Compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// SubmitResult reports a submission.
type SubmitResult struct {
	WorkflowID string `json:"workflowId"`
	Round      int    `json:"round"`
	// Deltas are the submitted deltas as stored (ids, targets, status).
	Deltas []Delta `json:"deltas"`
	// Accepted counts the new deltas; Duplicates those already submitted
	// (same content), which change nothing.
	Accepted   int `json:"accepted"`
	Duplicates int `json:"duplicates"`
}

// Report says what closing a round did.
type Report struct {
	// Deltas counts the round's deltas by what became of them.
	Deltas   int `json:"deltas"`
	Applied  int `json:"applied"`
	Partial  int `json:"partial"`
	Lost     int `json:"lost"`
	Clipped  int `json:"clipped"`
	Rejected int `json:"rejected"`
	// Changes lists what changed from the previous snapshot.
	Changes []Change `json:"changes"`
	// Conflicts lists the locations where deltas disagreed: who won, who
	// lost and why.
	Conflicts []Conflict `json:"conflicts"`
	// Clips lists what was clipped to keep the state under its limit;
	// everything clipped stays in the delta log.
	Clips []Clip `json:"clips"`
	// Rebinds lists the bindings an explicit rebind changed.
	Rebinds []Rebind `json:"rebinds"`
	// ChangedBytes counts the bytes of the changed values, before and
	// after; ChangeRatio is their share of the state.
	ChangedBytes int     `json:"changedBytes"`
	ChangeRatio  float64 `json:"changeRatio"`
	Converged    bool    `json:"converged"`
}

// ChangeKind says how a location changed.
type ChangeKind string

// Change kinds.
const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified"
	Removed  ChangeKind = "removed"
)

// Change is one location that changed in a round.
type Change struct {
	Path   string          `json:"path"`
	Kind   ChangeKind      `json:"kind"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// Conflict records deltas that disagreed at a location.
type Conflict struct {
	// Path is the location, as a normalized path.
	Path     string     `json:"path"`
	Strategy Strategy   `json:"strategy"`
	Winners  []DeltaRef `json:"winners"`
	Losers   []Loser    `json:"losers"`
}

// DeltaRef names a delta.
type DeltaRef struct {
	DeltaID string  `json:"deltaId"`
	AgentID string  `json:"agentId"`
	Weight  float64 `json:"weight"`
}

// Loser is a delta that lost a location, and why.
type Loser struct {
	DeltaRef
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Clip records what was clipped.
type Clip struct {
	Strategy ClipStrategy `json:"strategy"`
	// Path is the clipped location (for a dropped delta, its path).
	Path string `json:"path"`
	// Bytes is how many bytes of state the clip removed (0 for a
	// dropped delta: it was never in the state).
	Bytes int `json:"bytes"`
	// DeltaIDs names the round's deltas whose contribution was clipped.
	DeltaIDs []string `json:"deltaIds,omitempty"`
	Detail   string   `json:"detail,omitempty"`
}

// Rebind records a binding changed by a rebind.
type Rebind struct {
	Term    string `json:"term"`
	From    string `json:"from"`
	To      string `json:"to"`
	DeltaID string `json:"deltaId"`
	AgentID string `json:"agentId"`
	Reason  string `json:"reason"`
}

// Binding is one term's concept id in a snapshot.
type Binding struct {
	WorkflowID string `json:"workflowId"`
	Round      int    `json:"round"`
	Term       string `json:"term"`
	ConceptID  string `json:"conceptId"`
}

// PathHistory is the delta history of a path.
type PathHistory struct {
	WorkflowID string `json:"workflowId"`
	Path       string `json:"path"`
	// Deltas are the deltas that touched the path (or, for a query with
	// wildcards or filters, a location it selects), by round, then as
	// the aggregation ordered them.
	Deltas []Delta `json:"deltas"`
}

// Read selects a snapshot: the current one (the latest closed round), a
// past round's, or the latest closed at or before AsOf.
type Read struct {
	Round *int       `json:"round,omitempty"`
	AsOf  *time.Time `json:"asOf,omitempty"`
	// OmitDeltas leaves the round's deltas out of the snapshot.
	OmitDeltas bool `json:"omitDeltas,omitempty"`
}

// Meta is the snapshot's own fields, beside its state.
type Meta struct {
	// ID identifies the snapshot: the workflow's store id and the round.
	ID         string `json:"id"`
	WorkflowID string `json:"workflowId"`
	// Round is the snapshot's round; OpenRound the round deltas are
	// submitted for now.
	Round     int       `json:"round"`
	OpenRound int       `json:"openRound"`
	Timestamp time.Time `json:"timestamp"`
	// StateSize is the state's size in bytes of compact JSON.
	StateSize    int  `json:"stateSize"`
	MaxStateSize int  `json:"maxStateSize"`
	Converged    bool `json:"converged"`
	// Workflow is the workflow's configuration.
	Workflow *Workflow `json:"workflow,omitempty"`
	// Report says what closing the round did (none for round 0).
	Report *Report `json:"report,omitempty"`
	// Deltas are the round's deltas with what became of them.
	Deltas []Delta `json:"deltas"`
}

// Snapshot is a workflow's shared state after a round. Its JSON form is
// one object: the fields of Meta and the members of State side by side,
// as context-snapshot.md lays it out ({"id", "workflowId", "round",
// "query", "bindings", "entities", "rules", …, "deltas", "timestamp",
// "stateSize", "maxStateSize"}). A delta's JSONPath $ is the state.
type Snapshot struct {
	Meta
	// State holds the query, bindings (term → concept id), entities,
	// rules (rule evaluations) and whatever else agents contributed.
	State map[string]any
}

// Query returns the state's query.
func (s Snapshot) Query() string { q, _ := s.State[KeyQuery].(string); return q }

// Bindings returns the state's bindings, term → concept id.
func (s Snapshot) Bindings() map[string]string {
	out := map[string]string{}
	m, _ := s.State[KeyBindings].(map[string]any)
	for k, v := range m {
		if id, ok := v.(string); ok {
			out[k] = id
		}
	}
	return out
}

// Entities returns the state's entities.
func (s Snapshot) Entities() []any { a, _ := s.State[KeyEntities].([]any); return a }

// Rules returns the state's rule evaluations.
func (s Snapshot) Rules() []any { a, _ := s.State[KeyRules].([]any); return a }

// MarshalJSON writes Meta's fields and the state's members as one object.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	meta, err := json.Marshal(s.Meta)
	if err != nil {
		return nil, err
	}
	if len(s.State) == 0 {
		return meta, nil
	}
	state, err := Canonical(s.State)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(meta)+len(state))
	out = append(out, meta[:len(meta)-1]...)
	out = append(out, ',')
	return append(out, state[1:]...), nil
}

// UnmarshalJSON splits an object into Meta's fields and the state.
func (s *Snapshot) UnmarshalJSON(data []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	meta := map[string]json.RawMessage{}
	state := map[string]json.RawMessage{}
	for k, v := range all {
		if slices.Contains(Reserved, k) && k != KeyQuery {
			meta[k] = v
		} else {
			state[k] = v
		}
	}
	mb, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(mb, &s.Meta); err != nil {
		return err
	}
	s.State = map[string]any{}
	for k, v := range state {
		val, err := Decode(v)
		if err != nil {
			return fmt.Errorf("state member %q: %w", k, err)
		}
		s.State[k] = val
	}
	return nil
}

// DeltaID returns a delta's id in the workflow whose store id is
// workflowUID: a hash of its round, agent, operation, path, canonical
// value, weight and provenance. The same delta has the same id wherever
// it is submitted, so a retry (or a second server) adds nothing, and ids
// break ties in the aggregation order without depending on arrival.
func DeltaID(workflowUID string, d Delta) string {
	value := string(Compact(d.Value))
	if v, err := Decode(d.Value); err == nil && len(d.Value) > 0 {
		value = canon(v)
	}
	h := sha256.New()
	for _, part := range []string{workflowUID, strconv.Itoa(d.Round), d.AgentID, string(d.Operation), d.Path, value,
		strconv.FormatFloat(d.W(), 'g', -1, 64), d.Provenance} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return "d_" + hex.EncodeToString(h.Sum(nil)[:12])
}
