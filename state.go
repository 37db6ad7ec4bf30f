package tenure

import (
	"time"
)

// StateType is the fixed set of structured-state item types.
type StateType string

// State item types.
const (
	StateDecision   StateType = "decision"
	StateConstraint StateType = "constraint"
	StateAction     StateType = "action"
	StateQuestion   StateType = "question"
	StateRisk       StateType = "risk"
)

// StateTypes lists the state item types in rendering priority order.
var StateTypes = []StateType{StateDecision, StateConstraint, StateAction, StateRisk, StateQuestion}

// Confidence is a state item's extraction confidence.
type Confidence string

// Confidence levels.
const (
	ConfidenceLow    Confidence = "low"
	ConfidenceMedium Confidence = "medium"
	ConfidenceHigh   Confidence = "high"
)

// Confidences lists the confidence levels from low to high.
var Confidences = []Confidence{ConfidenceLow, ConfidenceMedium, ConfidenceHigh}

// StateItem is a typed item of structured conversation state (a decision,
// constraint, action, question or risk) with references to the messages it
// came from. It rides on a Context Object, so scope, permissions and
// history apply to it like to any other claim.
//
// Subject and Value are the item's slot: what it is about and what it
// says of that. Reconciliation compares items by their slots first, so
// that a restatement merges, a changed value supersedes and a neighbouring
// subject stays a separate item (docs/state.md).
type StateItem struct {
	UID        string     `json:"uid"`
	Type       StateType  `json:"type_tag"`
	Text       string     `json:"text"`
	Status     string     `json:"status"`
	TopicTags  []string   `json:"topic_tags,omitempty"`
	Refs       []string   `json:"refs"`
	Confidence Confidence `json:"confidence"`
	// Subject is what the item is about, a short noun phrase ("analytics
	// store", "dashboard p95 load time", "cache"); empty when unknown.
	Subject string `json:"subject,omitempty"`
	// Value is what the item holds of its subject: the choice, the bound,
	// the date ("ClickHouse", "under 2 s", "Memcached"); empty when
	// unknown.
	Value string `json:"value,omitempty"`
	// Owner is who is to do an action ("Marco"); empty when unstated or
	// when the group is. Only actions have one.
	Owner string `json:"owner,omitempty"`
	// Due is when an action is due, at the precision stated: YYYY-MM-DD,
	// YYYY-MM or YYYY; empty when no date was stated. Only actions have
	// one.
	Due string `json:"due,omitempty"`
	// Alternatives are the options a decision set aside: the other sides
	// of the question it answers ("a replacement or a refund?" "A
	// replacement" sets aside "a refund"). A later decision that takes
	// one of them reverses it. Only decisions have them.
	Alternatives []string `json:"alternatives,omitempty"`
	ReplacedBy   string   `json:"replaced_by,omitempty"`
	// SupersessionEvidence records why the item was superseded.
	SupersessionEvidence *SupersessionEvidence `json:"supersession_evidence,omitempty"`
	Conflict             bool                  `json:"conflict,omitempty"`
	Pinned               bool                  `json:"pinned,omitempty"`
	Source               string                `json:"source,omitempty"`
	ThreadID             string                `json:"thread_id,omitempty"`
	CreatedAt            time.Time             `json:"created_at"`
	LastSeenAt           time.Time             `json:"last_seen_at"`
}

// SupersessionEvidence is the structured reason a state item was replaced.
type SupersessionEvidence struct {
	Trigger      string `json:"trigger"`
	RefMessageID string `json:"ref_msg_id"`
	CandidateUID string `json:"candidate_uid"`
}

// StateStatuses lists each type's statuses in merge precedence order,
// strongest first; the last is the type's default.
var StateStatuses = map[StateType][]string{
	StateAction:     {"superseded", "done", "blocked", "open"},
	StateQuestion:   {"superseded", "answered", "open"},
	StateDecision:   {"superseded", "active"},
	StateConstraint: {"superseded", "active"},
	StateRisk:       {"superseded", "active"},
}

// Validate checks a state item's type, status, confidence and text.
func (s *StateItem) Validate() error {
	if err := checkVocab("state_item.type_tag", s.Type, StateTypes); err != nil {
		return err
	}
	if err := checkVocab("state_item.status", s.Status, StateStatuses[s.Type]); err != nil {
		return err
	}
	if err := checkVocab("state_item.confidence", s.Confidence, Confidences); err != nil {
		return err
	}
	if s.Text == "" {
		return Errorf(CodeInvalid, "state_item.text", "required")
	}
	if len(s.Text) > MaxContentLen {
		return Errorf(CodeTooLarge, "state_item.text", "longer than %d bytes", MaxContentLen)
	}
	for _, f := range []struct{ field, v string }{{"state_item.subject", s.Subject}, {"state_item.value", s.Value},
		{"state_item.owner", s.Owner}} {
		if err := checkID(f.field, f.v, false); err != nil {
			return err
		}
	}
	if s.Type != StateAction && (s.Owner != "" || s.Due != "") {
		return Errorf(CodeInvalid, "state_item.owner", "only actions have an owner or a due date")
	}
	if s.Type != StateDecision && len(s.Alternatives) > 0 {
		return Errorf(CodeInvalid, "state_item.alternatives", "only decisions have alternatives")
	}
	if len(s.Alternatives) > MaxAlternatives {
		return Errorf(CodeTooLarge, "state_item.alternatives", "more than %d", MaxAlternatives)
	}
	for _, a := range s.Alternatives {
		if err := checkID("state_item.alternatives", a, true); err != nil {
			return err
		}
	}
	if s.Due != "" {
		if _, _, err := ParseDue(s.Due); err != nil {
			return err
		}
	}
	for _, r := range s.Refs {
		if err := checkID("state_item.refs", r, true); err != nil {
			return err
		}
	}
	for _, r := range s.TopicTags {
		if err := checkID("state_item.topic_tags", r, true); err != nil {
			return err
		}
	}
	return nil
}

// Expansion is a state item with the messages it was extracted from: what
// EXPAND returns.
type Expansion struct {
	Item     StateItem `json:"item"`
	Messages []Message `json:"messages"`
	// Missing lists refs whose message is gone or not visible.
	Missing []string `json:"missing,omitempty"`
}

// ExpandRequest names the state item to expand. ThreadID may be empty when
// the uid is unique among the threads the caller can see.
type ExpandRequest struct {
	UID      string `json:"uid"`
	ThreadID string `json:"thread_id,omitempty"`
}

// Watermark is how far a background channel (state extraction, rolling
// summaries) has read a thread: every message up to and including
// MessageID, ordered by (created_at, append position), has been applied.
type Watermark struct {
	ThreadID  string    `json:"thread_id"`
	Channel   string    `json:"channel"`
	CreatedAt time.Time `json:"created_at"`
	MessageID string    `json:"message_id"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ExtractionResult reports one state extraction run over a thread.
type ExtractionResult struct {
	ThreadID  string `json:"thread_id"`
	Extractor string `json:"extractor,omitempty"`
	// Messages is how many new messages the batch held.
	Messages int `json:"messages"`
	// Watermark is the thread's watermark after the run.
	Watermark       *Watermark `json:"watermark,omitempty"`
	ItemsExtracted  int        `json:"items_extracted"`
	ItemsInserted   int        `json:"items_inserted"`
	ItemsMerged     int        `json:"items_merged"`
	ItemsSuperseded int        `json:"items_superseded"`
	ItemsConflicted int        `json:"items_conflicted"`
	ItemsDropped    int        `json:"items_dropped"`
	FactsWritten    int        `json:"facts_written"`
	// Dropped counts dropped candidates by reason.
	Dropped    map[string]int `json:"dropped,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	// SkippedReason says why nothing was extracted: no_new_messages,
	// no_user_messages.
	SkippedReason string `json:"skipped_reason,omitempty"`
}

// Add folds the result of a later run over the same thread into r.
func (r *ExtractionResult) Add(n ExtractionResult) {
	r.ThreadID, r.Extractor = n.ThreadID, n.Extractor
	if n.Watermark != nil {
		r.Watermark = n.Watermark
		r.Messages += n.Messages
	}
	r.ItemsExtracted += n.ItemsExtracted
	r.ItemsInserted += n.ItemsInserted
	r.ItemsMerged += n.ItemsMerged
	r.ItemsSuperseded += n.ItemsSuperseded
	r.ItemsConflicted += n.ItemsConflicted
	r.ItemsDropped += n.ItemsDropped
	r.FactsWritten += n.FactsWritten
	r.DurationMS += n.DurationMS
	for k, v := range n.Dropped {
		if r.Dropped == nil {
			r.Dropped = map[string]int{}
		}
		r.Dropped[k] += v
	}
	if r.Watermark == nil {
		r.SkippedReason = n.SkippedReason
	}
}
