package reconcile_test

import (
	"slices"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/reconcile"
)

func item(typ tenure.StateType, text, status string, tags ...string) *tenure.StateItem {
	return &tenure.StateItem{UID: tenure.StateUID(typ, text), Type: typ, Text: text, Status: status, TopicTags: tags,
		Confidence: tenure.ConfidenceMedium}
}

func TestDecideState(t *testing.T) {
	old := item(tenure.StateDecision, "Use Redis for caching", "active", "caching")
	superseding := item(tenure.StateDecision, "Switch to Memcached for caching instead", "active")
	plain := item(tenure.StateDecision, "Use Memcached for caching", "active")
	for _, c := range []struct {
		name    string
		cand    *tenure.StateItem
		userRef string
		matches []reconcile.StateMatch
		want    reconcile.StateAction
	}{
		{"NoMatches", plain, "m1", nil, reconcile.StateInsert},
		{"Merge", plain, "m1", []reconcile.StateMatch{{old, 0.92}}, reconcile.StateMerge},
		{"JustBelowMerge", plain, "m1", []reconcile.StateMatch{{old, 0.9199}}, reconcile.StateConflict},
		{"Supersede", superseding, "m1", []reconcile.StateMatch{{old, 0.85}}, reconcile.StateSupersede},
		{"SupersedeNeedsUserRef", superseding, "", []reconcile.StateMatch{{old, 0.88}}, reconcile.StateConflict},
		{"SupersedeNeedsTrigger", plain, "m1", []reconcile.StateMatch{{old, 0.88}}, reconcile.StateConflict},
		{"SupersedeNeedsVerb", item(tenure.StateDecision, "Memcached instead", "active"), "m1",
			[]reconcile.StateMatch{{old, 0.88}}, reconcile.StateConflict},
		{"BelowBand", plain, "m1", []reconcile.StateMatch{{old, 0.8499}}, reconcile.StateInsert},
		{"TopicBoost", item(tenure.StateDecision, "Use Memcached", "active", "caching"), "m1",
			[]reconcile.StateMatch{{old, 0.83}}, reconcile.StateConflict},
		{"TopicBoostCapped", item(tenure.StateDecision, "Use Memcached", "active", "caching"), "m1",
			[]reconcile.StateMatch{{old, 0.995}}, reconcile.StateMerge},
		{"SameUIDMergesAtAnyScore", item(tenure.StateDecision, "use redis for CACHING", "active"), "m1",
			[]reconcile.StateMatch{{old, 0.1}}, reconcile.StateMerge},
		{"NeverResurrect", item(tenure.StateDecision, "Use Redis for caching", "active"), "m1",
			[]reconcile.StateMatch{{item(tenure.StateDecision, "Use Redis for caching", "superseded"), 1}}, reconcile.StateSkip},
		{"SupersededNotAMatch", plain, "m1",
			[]reconcile.StateMatch{{item(tenure.StateDecision, "Use Redis", "superseded"), 0.99}}, reconcile.StateInsert},
		{"NoCrossType", plain, "m1",
			[]reconcile.StateMatch{{item(tenure.StateQuestion, "Use Memcached for caching", "open"), 1}}, reconcile.StateInsert},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := reconcile.DecideState(reconcile.StateThresholds{}, c.cand, c.userRef, c.matches)
			if d.Action != c.want {
				t.Fatalf("action = %s (score %.4f), want %s", d.Action, d.Score, c.want)
			}
			if d.Action == reconcile.StateSupersede {
				ev := d.Evidence
				if ev == nil || ev.Trigger != "instead" || ev.RefMessageID != c.userRef || ev.CandidateUID != c.cand.UID {
					t.Errorf("evidence = %+v", ev)
				}
			}
		})
	}
}

func TestDecideStatePicksBestMatch(t *testing.T) {
	a := item(tenure.StateRisk, "No rate limiting on login", "active")
	b := item(tenure.StateRisk, "No rate limiting on refresh", "active")
	c := item(tenure.StateRisk, "No rate limit on refresh tokens", "active")
	d := reconcile.DecideState(reconcile.StateThresholds{}, c, "", []reconcile.StateMatch{{a, 0.93}, {b, 0.97}})
	if d.Action != reconcile.StateMerge || d.Target != b {
		t.Errorf("decision = %s into %v, want a merge into the closer item", d.Action, d.Target)
	}
}

func TestStateThresholdsValidate(t *testing.T) {
	if err := (reconcile.StateThresholds{}).WithDefaults().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	for _, bad := range []reconcile.StateThresholds{{Merge: 1.2, Conflict: 0.85}, {Merge: 0.8, Conflict: 0.85}, {Merge: 0.9, Conflict: 0.8, TopicBoost: -1}} {
		if err := bad.Validate(); tenure.ErrorCode(err) != tenure.CodeInvalid {
			t.Errorf("Validate(%+v) = %v, want invalid", bad, err)
		}
	}
}

func TestMergeState(t *testing.T) {
	t1, t2 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	old := item(tenure.StateAction, "Run migration 025", "open", "deploy")
	old.Refs, old.LastSeenAt, old.CreatedAt = []string{"m1"}, t2, t1
	c := item(tenure.StateAction, "Run migration 025", "done", "db", "deploy")
	c.Refs, c.Confidence = []string{"m2", "m1"}, tenure.ConfidenceHigh
	m := reconcile.MergeState(old, c, t1)
	if m.Status != "done" || m.Confidence != tenure.ConfidenceHigh || !slices.Equal(m.Refs, []string{"m1", "m2"}) ||
		!slices.Equal(m.TopicTags, []string{"deploy", "db"}) || !m.LastSeenAt.Equal(t2) || !m.CreatedAt.Equal(t1) {
		t.Errorf("merged = %+v", m)
	}
	if m := reconcile.MergeState(old, c, t2.Add(time.Hour)); !m.LastSeenAt.Equal(t2.Add(time.Hour)) {
		t.Errorf("last_seen_at = %v, want the newer ref time", m.LastSeenAt)
	}
}
