package extract

import (
	"context"
	"time"

	"github.com/tenure-dev/tenure"
)

// Extractor turns a batch of new messages into candidates. Errors:
// tenure.CodeTimeout (ran out of time), tenure.CodeUnavailable (a model
// could not be reached), tenure.CodeInvalid (the model's answer was
// unusable as a whole; single bad items are dropped and counted instead).
type Extractor interface {
	Extract(ctx context.Context, b Batch) (Result, error)
}

// Name returns the name extraction results report for x
// (tenure.ExtractionResult.Extractor): what its Name method returns when
// it has one ("rules", "llm"), else "custom". Results go over the wire,
// so a name is never a Go type's.
func Name(x Extractor) string {
	if n, ok := x.(interface{ Name() string }); ok && n.Name() != "" {
		return n.Name()
	}
	return "custom"
}

// Batch is what an extractor reads: the new messages of one thread, in
// order, and the thread's active state items (so an extractor can refer to
// them instead of repeating them).
type Batch struct {
	ThreadID string
	Messages []tenure.Message
	Existing []tenure.StateItem
}

// Candidate is an extracted state item before reconciliation. Item has its
// Type, Text, Status, Confidence, TopicTags and Refs set (Refs are message
// ids of the batch), and its Subject, Value, Owner and Due when the
// extractor found them. Supersedes names an existing item's uid when the
// extractor saw explicit change language; the reconciler honours it for
// an item of the same type. Rules leaves it empty: the reconciler reads
// the change language of the messages itself.
type Candidate struct {
	Item       tenure.StateItem `json:"item"`
	Supersedes string           `json:"supersedes,omitempty"`
}

// FactKind says whom a fact is about.
type FactKind string

// Fact kinds.
const (
	// FactProfile is a fact about the speaker ("I live in Boston").
	FactProfile FactKind = "profile"
	// FactPerson is a fact about someone the speaker knows ("my sister is
	// a nurse").
	FactPerson FactKind = "person"
)

// Fact is a profile or people fact stated in a message.
type Fact struct {
	Kind FactKind `json:"kind"`
	// Subject is whom the fact is about: the speaker's name for a profile
	// fact, "<speaker>'s <relation>" (e.g. "Caroline's sister") for a
	// person fact.
	Subject string `json:"subject"`
	// Attribute is a short snake_case label: lives_in, works_at, likes,
	// dislikes, relation, job, age, from, has, plans ...
	Attribute string `json:"attribute"`
	// Value is the attribute's value as stated ("Boston").
	Value string `json:"value"`
	// Text is a self-contained one-line rendering: "Caroline lives in
	// Boston".
	Text string `json:"text"`
	// Refs are the ids of the messages that state the fact.
	Refs []string `json:"refs"`
	// ValidFrom is when the fact became true, when the message says so
	// ("since last May"); nil means from the message's time.
	ValidFrom *time.Time `json:"valid_from,omitempty"`
	// ValidPrecision is how exactly ValidFrom is known: the granularity of
	// the date it came from ("last month" is a month); empty means exact.
	ValidPrecision tenure.Precision `json:"valid_precision,omitempty"`
	// Confidence is how sure the extractor is.
	Confidence tenure.Confidence `json:"confidence"`
}

// Result is what one extraction produced.
type Result struct {
	Items []Candidate `json:"items"`
	Facts []Fact      `json:"facts,omitempty"`
	// Dropped counts discarded candidates by reason ("invalid_type",
	// "empty_text", "no_valid_refs", "unparsable" ...).
	Dropped map[string]int `json:"dropped,omitempty"`
}

// Drop counts one discarded candidate under reason.
func (r *Result) Drop(reason string) {
	if r.Dropped == nil {
		r.Dropped = map[string]int{}
	}
	r.Dropped[reason]++
}
