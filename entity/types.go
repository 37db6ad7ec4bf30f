package entity

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
)

// Type is an entity's kind.
type Type string

// Entity types.
const (
	Person  Type = "person"
	Org     Type = "org"
	Place   Type = "place"
	Project Type = "project"
	Product Type = "product"
	Other   Type = "other"
)

// Types lists the entity types.
var Types = []Type{Person, Org, Place, Project, Product, Other}

// Valid reports whether t is one of Types.
func (t Type) Valid() bool { return slices.Contains(Types, t) }

// Compatible reports whether a mention of type a may denote an entity of
// type b: the same type, or either is Other (an untyped mention).
func Compatible(a, b Type) bool { return a == b || a == Other || b == Other }

// Status is an entity's state in the registry.
type Status string

// Entity statuses.
const (
	// StatusActive entities are canonical: mentions bind to them.
	StatusActive Status = "active"
	// StatusPending entities are mentions that resembled existing
	// entities too little to bind and too much to be called new; they
	// wait for review (link or keep) and are never merged automatically.
	StatusPending Status = "pending"
	// StatusMerged entities were merged into another (MergedInto); their
	// aliases moved there. Undoing the merge makes them active again.
	StatusMerged Status = "merged"
)

// Entity is one version of a registry entry. Versions are immutable: an
// operation closes the open version (TxEnd) and writes the next.
type Entity struct {
	// ID is the entity's stable id, "<type>:<slug>" of the mention that
	// created it (with "_2", "_3" … appended when taken).
	ID       string `json:"id"`
	TenantID string `json:"tenant_id"`
	// UserID names the registry: a user's own (the entities its objects
	// mention) or, empty, the tenant's shared one.
	UserID string `json:"user_id,omitempty"`
	Type   Type   `json:"type"`
	// Label is the display name ("John Doe").
	Label string `json:"label"`
	// Aliases are the mention keys that resolve to the entity, its id
	// among them; each key resolves to one entity of a registry at most.
	Aliases []string `json:"aliases"`
	// Names are the surface forms seen, for display.
	Names  []string `json:"names,omitempty"`
	Status Status   `json:"status"`
	// MergedInto is set on merged entities.
	MergedInto string `json:"merged_into,omitempty"`
	// Candidates are, for a pending entity, the entities it may be.
	Candidates []Candidate `json:"candidates,omitempty"`
	Version    int         `json:"version"`
	TxStart    time.Time   `json:"tx_start"`
	TxEnd      *time.Time  `json:"tx_end,omitempty"`
	// ChangedBy is the principal (user id) whose write produced the
	// version, and OpID the operation, if any.
	ChangedBy string `json:"changed_by,omitempty"`
	OpID      string `json:"op_id,omitempty"`
}

// Clone returns a deep copy.
func (e Entity) Clone() Entity {
	c := e
	c.Aliases = slices.Clone(e.Aliases)
	c.Names = slices.Clone(e.Names)
	c.Candidates = slices.Clone(e.Candidates)
	if e.TxEnd != nil {
		t := *e.TxEnd
		c.TxEnd = &t
	}
	return c
}

// Candidate is an entity a mention may denote, with its score.
type Candidate struct {
	EntityID string  `json:"entity_id"`
	Score    float64 `json:"score"`
	// Why says which match produced the score: "alias", "normalized",
	// "partial" or "fuzzy".
	Why string `json:"why"`
}

// Action is what a resolution decided.
type Action string

// Actions.
const (
	// Link binds the mention to an existing entity.
	Link Action = "link"
	// Review makes the mention a pending entity with candidates.
	Review Action = "review"
	// New creates an entity for the mention.
	New Action = "new"
)

// Decision is the outcome of resolving a mention.
type Decision struct {
	Mention Mention `json:"mention"`
	Action  Action  `json:"action"`
	// EntityID is the entity linked to (Link); empty otherwise.
	EntityID string `json:"entity_id,omitempty"`
	// Score is the best candidate's score (0 without candidates).
	Score float64 `json:"score"`
	// Candidates are every candidate at or above Review, best first.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Ambiguous says a link was withheld because another candidate
	// scored within AmbiguityMargin of the best.
	Ambiguous bool `json:"ambiguous,omitempty"`
}

// OpKind is the kind of a registry operation.
type OpKind string

// Operation kinds.
const (
	OpMerge OpKind = "merge"
	OpSplit OpKind = "split"
	// OpLink settles a pending entity as one of its candidates (a merge
	// of the pending node into it); OpKeep settles it as an entity of its
	// own.
	OpLink OpKind = "link"
	OpKeep OpKind = "keep"
)

// Op records an operation of the registry. Merges, links and splits can
// be undone; the undo is recorded on the op (UndoneAt, UndoneBy) and by
// the entity versions it writes.
type Op struct {
	ID       string `json:"id"`
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id,omitempty"`
	Kind     OpKind `json:"kind"`
	// From is the entity merged away (merge, link), split from (split) or
	// kept (keep); Into the entity merged into or created by a split.
	From string `json:"from"`
	Into string `json:"into,omitempty"`
	// FromVersion is the version of From the operation closed.
	FromVersion int `json:"from_version,omitempty"`
	// Aliases are the alias keys the operation moved from From to Into.
	Aliases []string `json:"aliases,omitempty"`
	// Names are the surface forms it moved.
	Names    []string   `json:"names,omitempty"`
	Reason   string     `json:"reason,omitempty"`
	By       string     `json:"by"`
	At       time.Time  `json:"at"`
	UndoneAt *time.Time `json:"undone_at,omitempty"`
	UndoneBy string     `json:"undone_by,omitempty"`
	// Reconciled are the claims a merge or link re-reconciled, each with
	// the state undoing the operation restores, and Slots the conflict
	// slots where it quarantined claims (undoing it closes their
	// requests). Stores keep them; the engine never returns them (they
	// name claims the caller may not read).
	Reconciled []Reconciled `json:"-"`
	Slots      []string     `json:"-"`
}

// storedOp is how stores keep an Op (EncodeOp): with what the engine
// alone reads.
type storedOp struct {
	Op
	Reconciled []Reconciled `json:"reconciled,omitempty"`
	Slots      []string     `json:"slots,omitempty"`
}

// EncodeOp returns the JSON a store keeps for op, Reconciled and Slots
// included (they are left out of op's own JSON, which callers see).
func EncodeOp(op *Op) ([]byte, error) {
	return json.Marshal(storedOp{Op: *op, Reconciled: op.Reconciled, Slots: op.Slots})
}

// DecodeOp reads what EncodeOp wrote.
func DecodeOp(b []byte) (Op, error) {
	var s storedOp
	if err := json.Unmarshal(b, &s); err != nil {
		return Op{}, err
	}
	s.Op.Reconciled, s.Op.Slots = s.Reconciled, s.Slots
	return s.Op, nil
}

// Public returns op without what only the engine reads (Reconciled,
// Slots).
func (op Op) Public() Op {
	op.Reconciled, op.Slots = nil, nil
	return op
}

// Reconciled is a claim a merge re-reconciled: the version the merge
// wrote last and the claim's state before the merge.
type Reconciled struct {
	ObjectID string `json:"object_id"`
	// Version is the last version the merge wrote; undoing the merge
	// restores the state only while it is the claim's latest.
	Version             int                        `json:"version"`
	Status              tenure.Status              `json:"status"`
	ContradictionStatus tenure.ContradictionStatus `json:"contradiction_status,omitempty"`
	SupersessionLink    string                     `json:"supersession_link,omitempty"`
	ValidUntil          *time.Time                 `json:"valid_until,omitempty"`
	IsValid             bool                       `json:"is_valid"`
}
