package engine

import (
	"context"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/snapshot"
)

// Backend is what a storage adapter provides. Versions are returned with
// every field filled; "latest" means the version whose transaction window is
// still open (tx_end unset).
type Backend interface {
	// Begin starts a write transaction. Write transactions are serialized.
	Begin(ctx context.Context) (Tx, error)
	// KeyVersions returns versions of objects filed under key selected by
	// q, ordered by tx_start.
	KeyVersions(ctx context.Context, tenant, key string, q VersionQuery) ([]tenure.Object, error)
	// ObjectVersions does the same for one object id.
	ObjectVersions(ctx context.Context, tenant, id string, at *time.Time) ([]tenure.Object, error)
	// History returns every version ever stored under key, by tx_start.
	History(ctx context.Context, tenant, key string) ([]tenure.Object, []tenure.Tombstone, error)
	// List returns latest versions matching q after the cursor, in insertion
	// order, at most n; next is the cursor to continue from (0 when done).
	List(ctx context.Context, tenant string, q ListQuery, cursor int64, n int) (objs []tenure.Object, next int64, err error)
	// Candidates returns versions for a context compilation (see
	// CandidateFilter).
	Candidates(ctx context.Context, tenant string, f CandidateFilter) ([]tenure.Object, error)
	// Resolutions lists resolution requests of a tenant.
	Resolutions(ctx context.Context, tenant string, open bool) ([]tenure.Resolution, error)
	// Messages lists a thread's messages (see MessageList).
	Messages(ctx context.Context, tenant string, f MessageList) ([]tenure.Message, error)
	// Dependents returns up to 1,000 open versions whose depends_on
	// contains ref (a key or an object id).
	Dependents(ctx context.Context, tenant, ref string) ([]tenure.Object, error)
	// Threads lists the threads with messages f's UserID and ProjectID
	// can see (ThreadID, AfterTime and AfterID are ignored), the latest
	// first, at most f.Limit.
	Threads(ctx context.Context, tenant string, f MessageList) ([]tenure.Thread, error)
	// MessageCandidates returns the best full-text matches and their
	// neighbours (see MessageCandidateFilter).
	MessageCandidates(ctx context.Context, tenant string, f MessageCandidateFilter) ([]tenure.ScoredMessage, error)
	// MessagesByID returns the messages of a thread with the given ids
	// within the user and project, in thread order; unknown ids are left
	// out.
	MessagesByID(ctx context.Context, tenant string, f MessageIDs) ([]tenure.Message, error)
	// Watermark returns a thread's watermark for channel (false: none).
	Watermark(ctx context.Context, tenant, thread, channel string) (tenure.Watermark, bool, error)
	// Store holds the messages' vectors: CountUnembedded, Unembedded,
	// KnownVectors and PutVectors (see semantic.Store).
	semantic.Store
	// NearestMessages returns the messages nearest in meaning to a vector
	// and their neighbours (see NearestFilter), and the similarity of
	// every message within the filter's scope that has a vector of
	// f.Model, by sequence number.
	NearestMessages(ctx context.Context, tenant string, f NearestFilter) ([]tenure.ScoredMessage, map[int64]float64, error)
	WorkflowReader
	SessionReader
}

// SessionReader reads session records and session states, in and out of
// a transaction.
type SessionReader interface {
	// Sessions returns the session records f selects, the latest activity
	// first.
	Sessions(ctx context.Context, tenant string, f SessionFilter) ([]tenure.Session, error)
	// SessionStates returns the session states of a user (every persona's),
	// or of one persona when persona is not nil, by persona.
	SessionStates(ctx context.Context, tenant, user string, persona *string) ([]tenure.SessionState, error)
}

// SessionWriter writes session records and session states inside a
// transaction.
type SessionWriter interface {
	SessionReader
	// PutSession inserts or replaces the record of the session named by
	// s's tenant, user, persona, thread and session id.
	PutSession(ctx context.Context, s tenure.Session) error
	// PutSessionState inserts or replaces the state of s's tenant, user
	// and persona.
	PutSessionState(ctx context.Context, s tenure.SessionState) error
}

// SessionFilter selects session records of the users listed ("" for the
// sessions of shared messages). Personas, when not nil, keeps those of
// the personas listed ("" for none); ThreadID and
// SessionID, when set, those of the thread and session; Open those not
// ended (EndedAt unset); Summarized those with a summary key. Limit caps
// the result (0: no cap).
type SessionFilter struct {
	Users      []string
	Personas   []string
	ThreadID   string
	SessionID  string
	Open       bool
	Summarized bool
	Limit      int
}

// NearestFilter selects messages by meaning: the Limit messages whose
// vectors of Model are most similar to Vector (Similarity set, Near their
// rank from 1), plus up to Neighbors messages on each side of each in its
// thread (one more for the WideMatches nearest), counted within the
// user's view as MessageCandidateFilter's are; all within the user and
// project, created before Before when it is set, of Threads when it is
// not nil. Score is 0; Similarity is set on every message with a vector
// of Model. Vectors of another length than Vector's are not compared.
type NearestFilter struct {
	Model       string
	Vector      []float32
	Limit       int
	Neighbors   int
	WideMatches int
	UserID      string
	// PersonaID is the reader's persona: other personas' messages are
	// left out (empty: only the global ones are read).
	PersonaID string
	ProjectID string
	Before    *time.Time
	Threads   []string
}

// MessageIDs selects messages of one thread by id.
type MessageIDs struct {
	ThreadID string
	IDs      []string
	UserID   string
	// PersonaID is the reader's persona: other personas' messages are
	// left out (empty: only the global ones are read).
	PersonaID string
	ProjectID string
}

// MessageList selects a thread's messages ordered by (created_at, append position),
// created after AfterTime and after message AfterID when set, within the
// scope's user and project. AfterID names a message of the user's view:
// the user's own with that id, else a shared one (CodeNotFound: neither).
type MessageList struct {
	ThreadID  string
	AfterTime *time.Time
	AfterID   string
	UserID    string
	// PersonaID is the reader's persona: other personas' messages are
	// left out (empty: only the global ones are read).
	PersonaID string
	ProjectID string
	// AnyProject lists the messages of every project (ProjectID is then
	// ignored): projects are not access control, and a thread's digest
	// reads all of it.
	AnyProject bool
	Limit      int
}

// MessageCandidateFilter selects messages for a compilation: the Limit
// best full-text matches of any of Words (Score = relevance, higher is
// better), plus up to Neighbors messages on each side of every match in
// its thread (Score 0; one more on each side of the WideMatches best),
// plus the Recent latest appended messages (Score 0) unless
// RecentUnlessTokens is positive and the matches and neighbours hold at
// least that many tokens; all within the user and project, and created
// before Before when it is set. Neighbours and positions (Pos) are counted
// within the user's view, its own messages and the shared ones: another
// user's messages neither show nor take a neighbour's place.
type MessageCandidateFilter struct {
	Words              []string
	Limit              int
	Neighbors          int
	WideMatches        int
	Recent             int
	RecentUnlessTokens int
	UserID             string
	// PersonaID is the reader's persona: other personas' messages are
	// left out (empty: only the global ones are read).
	PersonaID string
	ProjectID string
	Before    *time.Time
	// Threads keeps only these threads' messages (nil: every thread).
	Threads []string
}

// NewMessage is a message to insert with what the store derived for it.
type NewMessage struct {
	Message *tenure.Message
	// Search holds the resolved dates as text, for full-text search.
	Search string
	// Dates and Attachments hold the resolved dates and the attachments
	// as stored (JSON), empty when there are none; Text the text to index
	// when attachments' captions add to the content, else empty. They are
	// encoded while messages are prepared, on every core, not on the
	// write path.
	Dates, Attachments, Text string
}

// VersionQuery selects versions for a read.
type VersionQuery struct {
	// TxAt selects versions whose transaction window covers it; nil means
	// the open (latest) versions.
	TxAt *time.Time
	// ValidAt, when set, keeps versions whose valid-time window covers it.
	ValidAt *time.Time
	// Holding keeps only active and superseded versions (tenure.Object.Holds).
	Holding bool
}

// CandidateFilter selects compile candidates. With AsOfTx, every version
// believed at that time within Scope and MaxClassRank (Classification.Rank);
// otherwise the union of the open versions that are always candidates, the
// Limit best full-text matches of any of Words within Scope and
// MaxClassRank, and the Recent newest open versions within them.
//
// Keep, when set, says whether the principal may read an object in the
// scope. The full-text and recent legs return the first objects it keeps
// (their limits count only those), so that an object the principal cannot
// read never takes the place of one it can; the always and as-of legs
// return only those too, unless Withheld is set (a compilation whose
// trace lists what its gates withheld). Keep must decide on what
// Audience encodes (and the tenant) only: the full-text leg asks it once
// per audience class (ReadableClasses), and ranks with the statistics of
// the classes it keeps.
type CandidateFilter struct {
	Words  []string
	Limit  int
	Recent int
	// Foundation is how many foundation memories (pinned, then of
	// importance 3, newest first; tenure.Object.FoundationRank) to add
	// within Scope and MaxClassRank, whatever the words.
	Foundation   int
	AsOfTx       *time.Time
	Scope        tenure.Scope
	MaxClassRank int
	Keep         func(*tenure.Object) bool
	Withheld     bool
}

// SeqLister is a Backend that also lists with each object's cursor, so
// that a page can scan rows in batches larger than it needs and still end
// exactly at its last object (Engine.ListPage uses it when the backend has
// it).
type SeqLister interface {
	// ListSeqs is List with seqs[i] the cursor that continues after
	// objs[i].
	ListSeqs(ctx context.Context, tenant string, q ListQuery, cursor int64, n int) (objs []tenure.Object, seqs []int64, err error)
}

// ListQuery filters List on indexed columns.
type ListQuery struct {
	Layer      tenure.Layer
	ScopeKind  tenure.ScopeKind
	Status     tenure.Status
	ObjectType tenure.ObjectType
	KeyPrefix  string
	SessionID  string
	// Author, ValidAt, TxFrom and TxUntil are tenure.Filter's.
	Author          string
	ValidAt         *time.Time
	TxFrom, TxUntil *time.Time
	// Desc pages from the newest object down (the cursor is then an upper
	// bound; 0 starts at the newest).
	Desc bool
	// RetireDue selects active objects that have a decay rule, or whose
	// valid time ended before RetireDueAt.
	RetireDue   bool
	RetireDueAt time.Time
}

// Tx is a write transaction.
type Tx interface {
	// LastTxTime returns the latest tx_start or tx_end stored (zero if none).
	LastTxTime(ctx context.Context) (time.Time, error)
	// Latest returns the open version of an object.
	Latest(ctx context.Context, tenant, id string) (tenure.Object, bool, error)
	// LatestByKey returns the open versions of the objects filed under key
	// whose status is one of statuses (any status when none are given).
	LatestByKey(ctx context.Context, tenant, key string, statuses ...tenure.Status) ([]tenure.Object, error)
	// Dependents returns open versions whose depends_on contains ref.
	Dependents(ctx context.Context, tenant, ref string) ([]tenure.Object, error)
	// LatestInSession returns open versions with the session id and layer.
	LatestInSession(ctx context.Context, tenant, session string, layer tenure.Layer) ([]tenure.Object, error)
	// Insert stores o as a new open version.
	Insert(ctx context.Context, o *tenure.Object) error
	// Close ends the transaction window of an open version.
	Close(ctx context.Context, tenant, id string, version int, at time.Time) error
	// Touch rewrites the bookkeeping fields (last_confirmed, last_used) of
	// an open version in place.
	Touch(ctx context.Context, o *tenure.Object) error
	// Delete removes every version of an object and records the tombstone.
	Delete(ctx context.Context, tenant string, t tenure.Tombstone) error
	// AddResolution records a resolution request.
	AddResolution(ctx context.Context, r tenure.Resolution) error
	// OpenResolution finds an open request of the kind naming the object.
	OpenResolution(ctx context.Context, tenant string, kind tenure.ResolutionKind, objectID string) (string, bool, error)
	// ResolveSlot closes the open conflict requests of a slot.
	ResolveSlot(ctx context.Context, tenant, slot, by string, at time.Time) error
	// InsertMessages appends messages, assigning positions and sessions;
	// inserted[i] is false when a message with that thread, user and id
	// already existed, in which case existing[i] holds it (existing is nil
	// when every message was inserted). Each user's
	// messages (and the shared ones, with no user) have ids of their own,
	// and a message's derived session depends only on messages everyone
	// who can read it can read.
	InsertMessages(ctx context.Context, tenant string, msgs []NewMessage, sessionGap time.Duration) (inserted []bool, existing []tenure.Message, err error)
	// Watermark reads a thread's watermark for channel inside the
	// transaction (false: none).
	Watermark(ctx context.Context, tenant, thread, channel string) (tenure.Watermark, bool, error)
	// SetWatermark stores a thread's watermark for w.Channel.
	SetWatermark(ctx context.Context, tenant string, w tenure.Watermark) error
	WorkflowWriter
	SessionWriter
	Commit() error
	Rollback() error
}

// WorkflowRecord is a stored workflow.
type WorkflowRecord struct {
	// Key is the store's row key; UID the workflow's opaque store id, in
	// its snapshots' ids.
	Key      int64
	UID      string
	TenantID string
	// Workflow is its configuration, with defaults, CreatedBy and
	// CreatedAt.
	Workflow snapshot.Workflow
	// OpenRound is the round deltas are submitted for; Converged says
	// whether the latest closed round converged.
	OpenRound int
	Converged bool
	UpdatedAt time.Time
}

// RoundRecord is a closed round of a workflow: its snapshot's state (the
// canonical JSON snapshot.Canonical writes) and report (none for round 0).
type RoundRecord struct {
	Round    int
	State    []byte
	Report   *snapshot.Report
	ClosedAt time.Time
}

// RoundQuery selects a closed round: Round, or with AsOf the latest
// closed at or before it.
type RoundQuery struct {
	Round int
	AsOf  *time.Time
}

// WorkflowReader reads workflow snapshots, in and out of a transaction.
type WorkflowReader interface {
	// Workflows returns the tenant's workflows named id, oldest first.
	Workflows(ctx context.Context, tenant, id string) ([]WorkflowRecord, error)
	// WorkflowRound returns a closed round of the workflow with key
	// (false: no such round).
	WorkflowRound(ctx context.Context, key int64, q RoundQuery) (RoundRecord, bool, error)
	// WorkflowDeltas returns the workflow's deltas of round (of every
	// round when round < 0), by round, then in submission order, with
	// their status and reason.
	WorkflowDeltas(ctx context.Context, key int64, round int) ([]snapshot.Delta, error)
}

// WorkflowWriter writes workflow snapshots inside a transaction.
type WorkflowWriter interface {
	WorkflowReader
	// OpenRound returns the open round of the workflow with key (false:
	// no such workflow). A workflow's audience never changes, so a
	// principal who could see it before the transaction still can.
	OpenRound(ctx context.Context, key int64) (int, bool, error)
	// InsertWorkflow stores a new workflow and sets w.Key.
	InsertWorkflow(ctx context.Context, w *WorkflowRecord) error
	// InsertRound stores a closed round's snapshot.
	InsertRound(ctx context.Context, key int64, r RoundRecord) error
	// SetOpenRound records the workflow's open round and whether the
	// round just closed converged.
	SetOpenRound(ctx context.Context, key int64, open int, converged bool, at time.Time) error
	// InsertDeltas stores deltas (ids set) as pending; inserted[i] is
	// false when the workflow already had a delta with that id.
	InsertDeltas(ctx context.Context, key int64, ds []snapshot.Delta) (inserted []bool, err error)
	// SetDeltaStatuses records what became of deltas (by id).
	SetDeltaStatuses(ctx context.Context, key int64, ds []snapshot.Delta) error
}

// AutoSessionPrefix is the prefix of the sessions a store derives for
// messages appended without one (numbered after it: "auto-1"): "auto-"
// for shared messages, "auto-USER-" for a user's own, so that a user's
// sessions and the shared ones, numbered apart, never share a name; a
// persona's add "@PERSONA-". Every store names derived sessions by it.
func AutoSessionPrefix(user, persona string) string {
	p := "auto-"
	if user != "" {
		p += user + "-"
	}
	if persona != "" {
		p += "@" + persona + "-"
	}
	return p
}
