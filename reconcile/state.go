package reconcile

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/slot"
)

// StateThresholds are the similarity bands of structured-state
// reconciliation. The zero value means the defaults.
type StateThresholds struct {
	// Merge: at or above it, a candidate is the same item (default 0.92).
	Merge float64 `json:"merge"`
	// Conflict: from it up to Merge, a candidate supersedes the item when
	// the supersession check holds and conflicts with it otherwise
	// (default 0.85). Below it, the candidate is new.
	Conflict float64 `json:"conflict"`
	// TopicBoost is added to the similarity when the two items share a
	// topic tag (default 0.02); the sum is capped at 1.
	TopicBoost float64 `json:"topic_boost"`
}

// Default state thresholds.
const (
	DefaultMergeThreshold    = 0.92
	DefaultConflictThreshold = 0.85
	DefaultTopicBoost        = 0.02
)

// WithDefaults fills unset thresholds.
func (t StateThresholds) WithDefaults() StateThresholds {
	if t.Merge == 0 {
		t.Merge = DefaultMergeThreshold
	}
	if t.Conflict == 0 {
		t.Conflict = DefaultConflictThreshold
	}
	if t.TopicBoost == 0 {
		t.TopicBoost = DefaultTopicBoost
	}
	return t
}

// Validate checks 0 < Conflict ≤ Merge ≤ 1 and 0 ≤ TopicBoost < 1.
func (t StateThresholds) Validate() error {
	switch {
	case t.Merge <= 0 || t.Merge > 1:
		return tenure.Errorf(tenure.CodeInvalid, "merge_threshold", "must be in (0, 1], got %g", t.Merge)
	case t.Conflict <= 0 || t.Conflict > t.Merge:
		return tenure.Errorf(tenure.CodeInvalid, "conflict_threshold", "must be in (0, merge threshold %g], got %g", t.Merge, t.Conflict)
	case t.TopicBoost < 0 || t.TopicBoost >= 1:
		return tenure.Errorf(tenure.CodeInvalid, "topic_boost", "must be in [0, 1), got %g", t.TopicBoost)
	}
	return nil
}

// StateCandidate is a candidate item and what reconciliation reads
// besides it.
type StateCandidate struct {
	Item *tenure.StateItem
	// UserRef is the first of the item's refs that points to a user
	// message, or "" when none does.
	UserRef string
	// Supersedes is the uid of an existing item the extractor says the
	// candidate replaces (an LLM's "supersedes"), or "".
	Supersedes string
	// Context is the text of the messages the item was extracted from,
	// read for reversal cues ("actually", "instead", "no longer") and
	// additive ones ("too", "as well").
	Context string
}

// StateMatch is an existing item and, when an embedder is configured, its
// similarity to the candidate.
type StateMatch struct {
	Item *tenure.StateItem
	// Slot is Item's analysis; nil means DecideState reads it. Callers
	// that compare many candidates with the same items keep it.
	Slot *slot.Item
	// Cosine is the embedding similarity to the candidate, read only when
	// Embedded is set.
	Cosine   float64
	Embedded bool
}

// StateAction is what reconciliation does with a candidate.
type StateAction string

// State actions.
const (
	StateInsert    StateAction = "insert"    // a new item
	StateMerge     StateAction = "merge"     // folded into Target
	StateSupersede StateAction = "supersede" // inserted; Target is superseded by it
	StateConflict  StateAction = "conflict"  // inserted; it and Target are marked conflicting
	StateSkip      StateAction = "skip"      // dropped: it would resurrect a superseded item
)

// StateDecision is the outcome for one candidate.
type StateDecision struct {
	Action StateAction
	// Target is the existing item merged into, superseded or conflicted.
	Target *tenure.StateItem
	// Reason says what decided: "uid", "extractor", the slot relation and
	// what differs ("same", "changed quantity", "changed instead",
	// "refined due" ...), "similarity", or "" for an insert.
	Reason string
	// Score is the boosted similarity to Target when an embedder decided
	// or was consulted, else 0.
	Score float64
	// Evidence is set when Action is StateSupersede.
	Evidence *tenure.SupersessionEvidence
}

// Score is a candidate's similarity to an existing item: the cosine plus
// the topic boost when they share a topic tag, capped at 1.
func (t StateThresholds) Score(c, old *tenure.StateItem, cosine float64) float64 {
	s := cosine
	if sharesTopic(c.TopicTags, old.TopicTags) {
		s += t.TopicBoost
	}
	return min(s, 1)
}

func sharesTopic(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// DecideState decides what becomes of candidate c among matches, the
// existing items of its thread (items of other types are never merged
// into, superseded or conflicted; superseded items only stop a candidate
// with their uid, which is skipped rather than resurrected). In order:
//
//  1. An active item with c's uid: merge.
//  2. c.Supersedes naming an active item of c's type: supersede it (the
//     extractor saw the change; the spec's guard is the type).
//  3. Slots (package slot): among the active items of c's type, the one
//     on the same slot with the largest frame overlap, an item c says it
//     replaces first. The same value: merge. A changed value (number,
//     unit, bound, date, time, version, name, owner, due date, polarity)
//     or a value added (a refinement): supersede when a user message
//     states c, conflict otherwise (an assistant does not overrule the
//     user). A changed value is never merged.
//  4. Only when matches carry embedding similarities (a real embedder is
//     configured): the best-scoring active item of c's type. At or above
//     Merge it is merged into, unless a value differs (then as in 3); in
//     [Conflict, Merge) c supersedes it when the message has a reversal
//     cue and a user message states c, and conflicts with it otherwise.
//  5. Otherwise c is inserted.
func DecideState(t StateThresholds, c StateCandidate, matches []StateMatch) StateDecision {
	t = t.WithDefaults()
	it := c.Item
	var active []StateMatch
	for _, m := range matches {
		old := m.Item
		if old.Type != it.Type {
			continue
		}
		if old.UID == it.UID {
			if old.Status == "superseded" {
				return StateDecision{Action: StateSkip, Target: old, Reason: "uid"}
			}
			return StateDecision{Action: StateMerge, Target: old, Reason: "uid"}
		}
		if old.Status != "superseded" {
			active = append(active, m)
		}
	}
	cues := slot.ReadCues(c.Context)
	trigger := func(fallback string) string { return cmp.Or(cues.Reversal, fallback) }
	if c.Supersedes != "" {
		for _, m := range active {
			if m.Item.UID == c.Supersedes {
				return supersede(c, m.Item, "extractor", trigger("supersedes"), 0)
			}
		}
	}
	cand := slot.NewItem(it)
	var best *tenure.StateItem
	var bestRes slot.Result
	for _, m := range active {
		sx := m.Slot
		if sx == nil {
			sx = slot.NewItem(m.Item)
		}
		r := slot.Compare(sx, cand, cues)
		if r.Relation == slot.Different {
			continue
		}
		// The item c says it replaces first, then the largest overlap;
		// ties go to the earlier match, so the order of matches (by uid)
		// makes the decision deterministic.
		if best == nil || rank(r) > rank(bestRes) {
			best, bestRes = m.Item, r
		}
	}
	if best != nil {
		reason := bestRes.Relation.String() + " " + bestRes.Reason
		if bestRes.Relation == slot.Same {
			return StateDecision{Action: StateMerge, Target: best, Reason: reason}
		}
		if c.UserRef == "" {
			return StateDecision{Action: StateConflict, Target: best, Reason: reason}
		}
		return supersede(c, best, reason, trigger(reason), 0)
	}
	return decideBySimilarity(t, c, cand, cues, active)
}

// rank orders slot results: an item the candidate names as replaced, then
// by frame overlap.
func rank(r slot.Result) float64 {
	if r.Reason == "instead" || r.Reason == "alternative" {
		return 2 + r.Overlap
	}
	return r.Overlap
}

// decideBySimilarity is step 4 of DecideState.
func decideBySimilarity(t StateThresholds, c StateCandidate, cand *slot.Item, cues slot.Cues, active []StateMatch) StateDecision {
	var best *StateMatch
	bestScore := -1.0
	for i := range active {
		m := &active[i]
		if !m.Embedded {
			continue
		}
		if s := t.Score(c.Item, m.Item, m.Cosine); s > bestScore {
			best, bestScore = m, s
		}
	}
	if best == nil || bestScore < t.Conflict {
		return StateDecision{Action: StateInsert}
	}
	sx := best.Slot
	if sx == nil {
		sx = slot.NewItem(best.Item)
	}
	change := slot.ValueChange(sx, cand)
	switch {
	case bestScore >= t.Merge && change == "":
		return StateDecision{Action: StateMerge, Target: best.Item, Reason: "similarity", Score: bestScore}
	case c.UserRef != "" && (change != "" || cues.Reversal != ""):
		return supersede(c, best.Item, "similarity", cmp.Or(cues.Reversal, "changed "+change), bestScore)
	}
	return StateDecision{Action: StateConflict, Target: best.Item, Reason: "similarity", Score: bestScore}
}

func supersede(c StateCandidate, old *tenure.StateItem, reason, trigger string, score float64) StateDecision {
	return StateDecision{Action: StateSupersede, Target: old, Reason: reason, Score: score,
		Evidence: &tenure.SupersessionEvidence{Trigger: trigger, RefMessageID: c.UserRef, CandidateUID: c.Item.UID}}
}

// MergeState folds candidate c into old: refs and topic tags are unioned,
// the status is the stronger by merge precedence, the confidence the
// higher, last_seen_at never moves back (it becomes the later of the old
// value and newest, the creation time of c's newest ref), and a subject,
// value, owner or due date old lacks is taken from c, and the alternatives
// are unioned. Everything else of old, its text and uid included, is kept.
func MergeState(old, c *tenure.StateItem, newest time.Time) tenure.StateItem {
	m := *old
	m.Subject, m.Value = cmp.Or(m.Subject, c.Subject), cmp.Or(m.Value, c.Value)
	m.Owner, m.Due = cmp.Or(m.Owner, c.Owner), cmp.Or(m.Due, c.Due)
	m.Refs = union(old.Refs, c.Refs)
	m.TopicTags = union(old.TopicTags, c.TopicTags)
	m.Alternatives = alternatives(old.Alternatives, c.Alternatives)
	if len(m.TopicTags) > 3 {
		m.TopicTags = m.TopicTags[:3]
	}
	m.Status = tenure.MergeStateStatus(old.Type, old.Status, c.Status)
	m.Confidence = tenure.MaxConfidence(old.Confidence, c.Confidence)
	if newest.After(m.LastSeenAt) {
		m.LastSeenAt = newest
	}
	return m
}

// Refines reports whether d supersedes its target by a refinement: the
// same choice with a value added ("A refund" → "The refund should go to
// my Visa ending 4417").
func (d StateDecision) Refines() bool {
	return d.Action == StateSupersede && strings.HasPrefix(d.Reason, "refined")
}

// Refine is c as it supersedes old by a refinement: a decision keeps the
// options old set aside, which the refinement has not taken up.
func Refine(old, c *tenure.StateItem) tenure.StateItem {
	r := *c
	if r.Type == tenure.StateDecision {
		r.Alternatives = alternatives(c.Alternatives, old.Alternatives)
	}
	return r
}

// alternatives unions two lists of alternatives within the cap.
func alternatives(a, b []string) []string {
	out := union(a, b)
	if len(out) > tenure.MaxAlternatives {
		out = out[:tenure.MaxAlternatives]
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
