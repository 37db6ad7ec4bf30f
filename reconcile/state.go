package reconcile

import (
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
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

// StateMatch is an existing item and its raw similarity to a candidate.
type StateMatch struct {
	Item   *tenure.StateItem
	Cosine float64
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
	// Score is the boosted similarity to Target.
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

// DecideState applies the deterministic decision tree to candidate c.
// matches are the existing items of c's thread (any type: other types are
// ignored, so items never merge or conflict across types). userRef is the
// first of c's refs that points to a user message ("" when none does).
//
// An item with c's uid is a merge whatever the similarity, unless it is
// superseded (never resurrected: skip). Otherwise the best-scoring active
// item of the same type decides: ≥ Merge merges; in [Conflict, Merge) the
// candidate supersedes it when the supersession check holds (a trigger
// phrase, a user ref and a replacement verb) and conflicts with it
// otherwise; below Conflict, or with no match, the candidate is inserted.
func DecideState(t StateThresholds, c *tenure.StateItem, userRef string, matches []StateMatch) StateDecision {
	t = t.WithDefaults()
	var best *tenure.StateItem
	bestScore := -1.0
	for _, m := range matches {
		old := m.Item
		if old.Type != c.Type {
			continue
		}
		if old.UID == c.UID {
			if old.Status == "superseded" {
				return StateDecision{Action: StateSkip, Target: old, Score: 1}
			}
			return StateDecision{Action: StateMerge, Target: old, Score: 1}
		}
		if old.Status == "superseded" {
			continue
		}
		// Ties go to the earlier match, so the order of matches (by uid)
		// makes the decision deterministic.
		if s := t.Score(c, old, m.Cosine); s > bestScore {
			best, bestScore = old, s
		}
	}
	switch {
	case best == nil || bestScore < t.Conflict:
		return StateDecision{Action: StateInsert}
	case bestScore >= t.Merge:
		return StateDecision{Action: StateMerge, Target: best, Score: bestScore}
	}
	trigger := tenure.SupersessionTrigger(c.Text)
	if trigger != "" && userRef != "" && tenure.HasReplacementVerb(c.Text) {
		return StateDecision{Action: StateSupersede, Target: best, Score: bestScore,
			Evidence: &tenure.SupersessionEvidence{Trigger: trigger, RefMessageID: userRef, CandidateUID: c.UID}}
	}
	return StateDecision{Action: StateConflict, Target: best, Score: bestScore}
}

// MergeState folds candidate c into old: refs and topic tags are unioned,
// the status is the stronger by merge precedence, the confidence the
// higher, and last_seen_at never moves back (it becomes the later of the
// old value and newest, the creation time of c's newest ref). Everything
// else of old is kept.
func MergeState(old, c *tenure.StateItem, newest time.Time) tenure.StateItem {
	m := *old
	m.Refs = union(old.Refs, c.Refs)
	m.TopicTags = union(old.TopicTags, c.TopicTags)
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

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
