package tenure

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Writer writes claims.
type Writer interface {
	// Put validates o, fills its defaults, reconciles it against the claims
	// already in its slot and stores it as a new immutable version. Errors:
	// CodeInvalid or CodeTooLarge (bad input, nothing written), CodeForbidden
	// (the principal may not write this), CodeNotFound (supersedes or
	// object_id names nothing visible), CodeConflict (stale version,
	// superseding a non-current object, rewriting a read-only layer).
	Put(ctx context.Context, p Principal, o Object) (WriteResult, error)
	// PutBatch writes several objects in one transaction: all or nothing.
	// Errors as Put, with the field prefixed by the object's index.
	PutBatch(ctx context.Context, p Principal, objs []Object) ([]WriteResult, error)
}

// Reader reads claims in the three read modes of the bitemporal model.
type Reader interface {
	// Get returns the version of object id selected by r (the latest when
	// r has no as-of times). Errors: CodeNotFound (missing or not visible).
	Get(ctx context.Context, p Principal, id string, r Read) (Object, error)
	// CurrentValue returns the object that holds key's value at the read
	// point, following supersession links across keys. Errors: CodeNotFound.
	CurrentValue(ctx context.Context, p Principal, key string, r Read) (Object, error)
	// History returns every visible version ever stored under key and the
	// supersession chain through it. Errors: CodeNotFound (no versions).
	History(ctx context.Context, p Principal, key string, s Scope) (History, error)
	// List returns the latest versions matching f, visible to p.
	List(ctx context.Context, p Principal, f Filter) ([]Object, error)
}

// Retirer retires objects.
type Retirer interface {
	// Retire runs the retirement sweep (or retires opt.ObjectIDs) and
	// reports what it did. Errors: CodeForbidden, CodeNotFound, CodeInvalid.
	Retire(ctx context.Context, p Principal, opt RetireOptions) (RetireReport, error)
	// EndSession clears the session's working set and returns how many
	// items were cleared.
	EndSession(ctx context.Context, p Principal, sessionID string) (int, error)
	// Resolutions lists resolution requests (quarantined conflicts and
	// confirmation requests); only open ones when open is true.
	Resolutions(ctx context.Context, p Principal, open bool) ([]Resolution, error)
}

// Store is the whole object store.
type Store interface {
	Writer
	Reader
	Retirer
}

// CandidateQuery asks a store for the candidates of a context compilation.
type CandidateQuery struct {
	Principal Principal
	Scope     Scope
	// Text is the query to prefilter lexically with.
	Text string
	// Limit is how many lexical matches are wanted (and a quarter as many of
	// the most recent objects); objects that are always candidates come on
	// top.
	Limit int
	// AsOfTx reads the versions believed at that time (nil: the latest).
	AsOfTx *time.Time
}

// Read selects a read mode: with no times, what is true now; with AsOfTx,
// what the system believed at that transaction time; with AsOfValid, what
// was true at that valid time according to the latest belief. Both may be
// combined.
type Read struct {
	Scope     Scope      `json:"scope"`
	AsOfTx    *time.Time `json:"as_of_tx,omitempty"`
	AsOfValid *time.Time `json:"as_of_valid,omitempty"`
}

// Outcome says what happened to a written claim.
type Outcome string

// Outcomes.
const (
	OutcomeCreated     Outcome = "created"     // stored and current
	OutcomeUpdated     Outcome = "updated"     // a new version of an existing object
	OutcomeConfirmed   Outcome = "confirmed"   // same claim as the current one; nothing new stored
	OutcomeOverridden  Outcome = "overridden"  // stored, displaced by a more authoritative or trusted claim
	OutcomeSuperseded  Outcome = "superseded"  // stored as history: a newer claim already holds
	OutcomeQuarantined Outcome = "quarantined" // stored, in an unresolved conflict
)

// Reason explains a reconciliation decision.
type Reason string

// Reconciliation reasons, in the order the protocol applies them.
const (
	ReasonExplicit     Reason = "explicit_supersession"
	ReasonAuthority    Reason = "authority_level"
	ReasonAuthorRank   Reason = "author_rank"
	ReasonValidTime    Reason = "valid_time"
	ReasonSourceTrust  Reason = "source_trust"
	ReasonUnresolved   Reason = "conflicting_claim_unresolved"
	ReasonDependency   Reason = "dependency_invalidated"
	ReasonReplaced     Reason = "replaced"
	ReasonDecayed      Reason = "decayed"
	ReasonExpired      Reason = "expired"
	ReasonSessionEnded Reason = "session_ended"
	ReasonRequested    Reason = "requested"
)

// WriteResult reports a write: the stored object, what happened to it and
// what happened to the objects it touched.
type WriteResult struct {
	Object       Object   `json:"object"`
	Outcome      Outcome  `json:"outcome"`
	Reason       Reason   `json:"reason,omitempty"`
	Changes      []Change `json:"changes,omitempty"`
	ResolutionID string   `json:"resolution_id,omitempty"`
}

// Change is a status change the write caused on another object.
type Change struct {
	ObjectID    string `json:"object_id"`
	Key         string `json:"key"`
	Version     int    `json:"version"`
	From        Status `json:"from"`
	To          Status `json:"to"`
	Reason      Reason `json:"reason"`
	NeedsReview bool   `json:"needs_review,omitempty"`
}

// History is the full record of a key.
type History struct {
	Key string `json:"key"`
	// Versions holds every stored version of every object that filled the
	// key, ordered by transaction time.
	Versions []Object `json:"versions"`
	// Chain lists the objects linked by supersession through this key, from
	// the oldest to the current head, with both timelines.
	Chain []ChainLink `json:"chain"`
	// Deletions records hard deletes of objects under the key.
	Deletions []Tombstone `json:"deletions,omitempty"`
}

// ChainLink is one object of a supersession chain, at its latest version.
type ChainLink struct {
	ObjectID     string          `json:"object_id"`
	Key          string          `json:"key"`
	Value        json.RawMessage `json:"value,omitempty"`
	Status       Status          `json:"status"`
	ValidFrom    time.Time       `json:"valid_from"`
	ValidUntil   *time.Time      `json:"valid_until"`
	TxStart      time.Time       `json:"tx_start"`
	TxEnd        *time.Time      `json:"tx_end"`
	SupersededBy string          `json:"superseded_by,omitempty"`
}

// Tombstone records a hard delete.
type Tombstone struct {
	ObjectID  string    `json:"object_id"`
	Key       string    `json:"key"`
	Versions  int       `json:"versions"`
	DeletedAt time.Time `json:"deleted_at"`
	DeletedBy string    `json:"deleted_by"`
	Reason    Reason    `json:"reason"`
	// Audience is the deleted object reduced to what decides who may read
	// it (tenant, user, classification, permission scope): a tombstone is
	// shown only to those who could read the object. Set by the store; nil
	// for tombstones recorded before it was kept, which are shown to no
	// one.
	Audience *Object `json:"-"`
}

// Filter selects objects for List. Empty fields match everything.
type Filter struct {
	Scope      Scope      `json:"scope"`
	Layer      Layer      `json:"layer,omitempty"`
	ScopeKind  ScopeKind  `json:"scope_kind,omitempty"`
	Status     Status     `json:"status,omitempty"`
	ObjectType ObjectType `json:"object_type,omitempty"`
	// KeyPrefix matches keys starting with it.
	KeyPrefix string `json:"key_prefix,omitempty"`
	// Author matches objects written by this principal (WrittenBy).
	Author string `json:"author,omitempty"`
	// ValidAt matches objects whose valid time covers it (true at T).
	ValidAt *time.Time `json:"valid_at,omitempty"`
	// TxFrom and TxUntil match objects whose latest version was stored
	// at or after TxFrom and before TxUntil.
	TxFrom  *time.Time `json:"tx_from,omitempty"`
	TxUntil *time.Time `json:"tx_until,omitempty"`
	// Newest lists the most recently stored objects first (ListPage).
	Newest bool `json:"newest,omitempty"`
	// Cursor continues a listing where the page that returned it as Next
	// stopped (ListPage); empty starts at the beginning.
	Cursor string `json:"cursor,omitempty"`
	// Limit caps the result (default 100, at most 10,000).
	Limit int `json:"limit,omitempty"`
}

// Page is one page of a listing: the objects, and the cursor of the next
// page (empty on the last one).
type Page struct {
	Objects []Object `json:"objects"`
	Next    string   `json:"next,omitempty"`
}

// ThreadFilter selects the conversation threads a principal can see.
type ThreadFilter struct {
	Scope Scope `json:"scope"`
	// Limit caps the result (default 100, at most 10,000).
	Limit int `json:"limit,omitempty"`
}

// Thread summarizes a conversation thread: how many of its messages the
// reader can see, and when the first and the latest were written.
type Thread struct {
	ThreadID string    `json:"thread_id"`
	Messages int       `json:"messages"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
}

// Validate checks the filter's vocabularies and limit.
func (f Filter) Validate() error {
	checks := map[string]error{}
	if f.Layer != "" {
		checks["layer"] = checkVocab("layer", f.Layer, Layers)
	}
	if f.ScopeKind != "" {
		checks["scope"] = checkVocab("scope", f.ScopeKind, ScopeKinds)
	}
	if f.Status != "" {
		checks["status"] = checkVocab("status", f.Status, Statuses)
	}
	if f.ObjectType != "" {
		checks["object_type"] = checkVocab("object_type", f.ObjectType, ObjectTypes)
	}
	for _, name := range []string{"layer", "scope", "status", "object_type"} {
		if err := checks[name]; err != nil {
			return err
		}
	}
	if f.Limit < 0 || f.Limit > 10000 {
		return Errorf(CodeInvalid, "limit", "must be between 0 and 10000")
	}
	if f.TxFrom != nil && f.TxUntil != nil && !f.TxUntil.After(*f.TxFrom) {
		return Errorf(CodeInvalid, "tx_until", "must be after tx_from (the window is [tx_from, tx_until))")
	}
	if f.Cursor != "" {
		if n, err := strconv.ParseInt(f.Cursor, 10, 64); err != nil || n <= 0 {
			return Errorf(CodeInvalid, "cursor", "not a cursor of this listing")
		}
	}
	if err := checkID("author", f.Author, false); err != nil {
		return err
	}
	return checkID("key_prefix", f.KeyPrefix, false)
}

// RetireOptions controls Retire. Without ObjectIDs it runs the sweep: every
// visible object whose decay weight fell below its threshold, or whose
// valid time ended, gets its retirement rule (archive when none is set for
// a decayed object; expired objects without a rule are left alone).
type RetireOptions struct {
	Scope  Scope `json:"scope"`
	DryRun bool  `json:"dry_run,omitempty"`
	// ObjectIDs retires these objects now with Rule (default archive).
	ObjectIDs []string       `json:"object_ids,omitempty"`
	Rule      RetirementRule `json:"rule,omitempty"`
}

// RetireReport says what a retirement run did.
type RetireReport struct {
	At      time.Time      `json:"at"`
	DryRun  bool           `json:"dry_run,omitempty"`
	Scanned int            `json:"scanned"`
	Actions []RetireAction `json:"actions"`
}

// RetireAction is one retirement.
type RetireAction struct {
	ObjectID string         `json:"object_id"`
	Key      string         `json:"key"`
	Rule     RetirementRule `json:"rule"`
	Reason   Reason         `json:"reason"`
	Weight   float64        `json:"weight"`
	// ResolutionID is set for trigger_user_confirmation.
	ResolutionID string `json:"resolution_id,omitempty"`
}

// ResolutionKind says what a resolution request asks for.
type ResolutionKind string

// Resolution kinds.
const (
	ResolveConflict     ResolutionKind = "conflict"
	ResolveConfirmation ResolutionKind = "confirmation"
)

// Resolution is a request for a person or a tool to settle something the
// store could not decide: a true contradiction or a confirmation.
type Resolution struct {
	ID         string         `json:"id"`
	TenantID   string         `json:"tenant_id"`
	Kind       ResolutionKind `json:"kind"`
	Key        string         `json:"key"`
	Slot       string         `json:"slot"`
	ObjectIDs  []string       `json:"object_ids"`
	Reason     Reason         `json:"reason"`
	CreatedAt  time.Time      `json:"created_at"`
	ResolvedAt *time.Time     `json:"resolved_at,omitempty"`
	ResolvedBy string         `json:"resolved_by,omitempty"`
}
