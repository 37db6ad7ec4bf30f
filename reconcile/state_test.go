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
	redis := item(tenure.StateDecision, "Use Redis for caching", "active", "caching")
	pg := item(tenure.StateDecision, "Use PostgreSQL for the analytics store", "active")
	load := item(tenure.StateConstraint, "The dashboard p95 must load in under 2 seconds", "active")
	pg15 := item(tenure.StateDecision, "Use PostgreSQL 15 for the primary database", "active")
	// Two risks that say one thing in words that share little: only an
	// embedder can tell.
	bruteForce := item(tenure.StateRisk, "Brute force attempts on the login form are not blocked", "active")
	const guessing = "Login is not protected against password guessing"
	m := func(it *tenure.StateItem) reconcile.StateMatch { return reconcile.StateMatch{Item: it} }
	emb := func(it *tenure.StateItem, cos float64) reconcile.StateMatch {
		return reconcile.StateMatch{Item: it, Cosine: cos, Embedded: true}
	}
	for _, c := range []struct {
		name       string
		cand       reconcile.StateCandidate
		matches    []reconcile.StateMatch
		want       reconcile.StateAction
		wantTarget *tenure.StateItem
	}{
		{"NoMatches", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Use Memcached for caching", "active"), UserRef: "m1"},
			nil, reconcile.StateInsert, nil},
		// The cases: a reversal a hash embedder scored 0.753, and
		// changed values it scored 0.976 and 0.954.
		{"ReversalSupersedes", reconcile.StateCandidate{Item: item(tenure.StateDecision,
			"Use ClickHouse for the analytics store instead of PostgreSQL", "active"), UserRef: "m14",
			Context: "we switched to ClickHouse for the analytics store instead of PostgreSQL"},
			[]reconcile.StateMatch{m(redis), m(pg)}, reconcile.StateSupersede, pg},
		{"ActuallyInsteadSupersedes", reconcile.StateCandidate{Item: item(tenure.StateDecision,
			"Use Memcached instead of Redis", "active"), UserRef: "m2",
			Context: "Actually, we will use Memcached for sessions instead of Redis."},
			[]reconcile.StateMatch{m(pg), m(redis)}, reconcile.StateSupersede, redis},
		{"ChangedNumberNeverMerges", reconcile.StateCandidate{Item: item(tenure.StateConstraint,
			"The dashboard p95 must load in under 5 seconds", "active"), UserRef: "m3"},
			[]reconcile.StateMatch{emb(load, 0.976)}, reconcile.StateSupersede, load},
		{"ChangedVersionNeverMerges", reconcile.StateCandidate{Item: item(tenure.StateDecision,
			"Use PostgreSQL 16 for the primary database", "active"), UserRef: "m3"},
			[]reconcile.StateMatch{emb(pg15, 0.954)}, reconcile.StateSupersede, pg15},
		{"ChangeByAssistantConflicts", reconcile.StateCandidate{Item: item(tenure.StateConstraint,
			"The dashboard p95 must load in under 5 seconds", "active")},
			[]reconcile.StateMatch{m(load)}, reconcile.StateConflict, load},
		{"RestatementMerges", reconcile.StateCandidate{Item: item(tenure.StateConstraint,
			"Dashboard p95 load time must stay below 2 s", "active"), UserRef: "m4"},
			[]reconcile.StateMatch{m(load)}, reconcile.StateMerge, load},
		{"NeighbourInserted", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Use Redis for the job queue", "active"),
			UserRef: "m5", Context: "Let's use Redis for the job queue as well."},
			[]reconcile.StateMatch{m(redis)}, reconcile.StateInsert, nil},
		{"ExtractorSupersedesHonoured", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Go with Memcached", "active"),
			Supersedes: redis.UID}, []reconcile.StateMatch{m(redis)}, reconcile.StateSupersede, redis},
		{"ExtractorSupersedesOtherTypeIgnored", reconcile.StateCandidate{Item: item(tenure.StateRisk, "Memcached may evict sessions", "active"),
			Supersedes: redis.UID}, []reconcile.StateMatch{m(redis)}, reconcile.StateInsert, nil},
		{"ExtractorSupersedesSupersededIgnored", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Go with Memcached", "active"),
			Supersedes: "d_gone"}, []reconcile.StateMatch{m(item(tenure.StateDecision, "x", "superseded"))}, reconcile.StateInsert, nil},
		{"SameUIDMergesWhateverTheText", reconcile.StateCandidate{Item: item(tenure.StateDecision, "use redis for CACHING", "active")},
			[]reconcile.StateMatch{m(redis)}, reconcile.StateMerge, redis},
		{"NeverResurrect", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Use Redis for caching", "active")},
			[]reconcile.StateMatch{m(item(tenure.StateDecision, "Use Redis for caching", "superseded"))}, reconcile.StateSkip, nil},
		{"SupersededNotAMatch", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Use Memcached for caching", "active"), UserRef: "m1"},
			[]reconcile.StateMatch{m(item(tenure.StateDecision, "Use Redis for caching", "superseded"))}, reconcile.StateInsert, nil},
		{"NoCrossType", reconcile.StateCandidate{Item: item(tenure.StateDecision, "Use Memcached for caching", "active"), UserRef: "m1"},
			[]reconcile.StateMatch{m(item(tenure.StateQuestion, "Use Redis for caching?", "open"))}, reconcile.StateInsert, nil},
		// Similarity is a signal only when an embedder supplies it, and
		// never the only one: a high score with a changed value is no
		// merge.
		{"SimilarityMerges", reconcile.StateCandidate{Item: item(tenure.StateRisk, guessing, "active"), UserRef: "m1"},
			[]reconcile.StateMatch{emb(bruteForce, 0.93)}, reconcile.StateMerge, bruteForce},
		{"SimilarityWithChangedValueSupersedes", reconcile.StateCandidate{Item: item(tenure.StateRisk,
			"Login is not protected against password guessing after 2023", "active"), UserRef: "m1"},
			[]reconcile.StateMatch{emb(item(tenure.StateRisk, "Brute force attempts on the login form are not blocked since 2021", "active"), 0.95)},
			reconcile.StateSupersede, nil},
		{"SimilarityBandConflicts", reconcile.StateCandidate{Item: item(tenure.StateRisk, guessing, "active"), UserRef: "m1"},
			[]reconcile.StateMatch{emb(bruteForce, 0.87)}, reconcile.StateConflict, bruteForce},
		{"SimilarityBandWithCueSupersedes", reconcile.StateCandidate{Item: item(tenure.StateRisk, guessing, "active"),
			UserRef: "m1", Context: "Correction: login is not protected against password guessing."},
			[]reconcile.StateMatch{emb(bruteForce, 0.87)}, reconcile.StateSupersede, bruteForce},
		{"SimilarityBelowBandInserts", reconcile.StateCandidate{Item: item(tenure.StateRisk, guessing, "active"), UserRef: "m1"},
			[]reconcile.StateMatch{emb(bruteForce, 0.84)}, reconcile.StateInsert, nil},
		{"TopicBoost", reconcile.StateCandidate{Item: item(tenure.StateRisk, guessing, "active", "auth"), UserRef: "m1"},
			[]reconcile.StateMatch{emb(item(tenure.StateRisk, bruteForce.Text, "active", "auth"), 0.83)}, reconcile.StateConflict, nil},
		{"NoSimilarityWithoutEmbedder", reconcile.StateCandidate{Item: item(tenure.StateRisk, guessing, "active"), UserRef: "m1"},
			[]reconcile.StateMatch{{Item: bruteForce, Cosine: 0.99}}, reconcile.StateInsert, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := reconcile.DecideState(reconcile.StateThresholds{}, c.cand, c.matches)
			if d.Action != c.want {
				t.Fatalf("action = %s (%s, score %.3f), want %s", d.Action, d.Reason, d.Score, c.want)
			}
			if c.wantTarget != nil && d.Target != c.wantTarget {
				t.Errorf("target = %v, want %v", d.Target, c.wantTarget)
			}
			if d.Action == reconcile.StateSupersede {
				ev := d.Evidence
				if ev == nil || ev.Trigger == "" || ev.RefMessageID != c.cand.UserRef || ev.CandidateUID != c.cand.Item.UID {
					t.Errorf("evidence = %+v", ev)
				}
			}
		})
	}
}

func TestDecideStateEvidenceNamesCue(t *testing.T) {
	old := item(tenure.StateDecision, "Use Recharts for charts", "active")
	d := reconcile.DecideState(reconcile.StateThresholds{}, reconcile.StateCandidate{
		Item: item(tenure.StateDecision, "Use ECharts instead of Recharts", "active"), UserRef: "p41",
		Context: "We're no longer using Recharts; we switched to ECharts because of the bundle size."},
		[]reconcile.StateMatch{{Item: old}})
	if d.Action != reconcile.StateSupersede || d.Evidence.Trigger != "switched" {
		t.Errorf("decision = %s, evidence %+v; want a supersession triggered by %q", d.Action, d.Evidence, "switched")
	}
}

func TestDecideStatePicksClosestSlot(t *testing.T) {
	a := item(tenure.StateConstraint, "Hosting must stay under $500 a month", "active")
	b := item(tenure.StateConstraint, "Monitoring must stay under $100 a month", "active")
	c := item(tenure.StateConstraint, "Monitoring must stay under $150 a month", "active")
	d := reconcile.DecideState(reconcile.StateThresholds{}, reconcile.StateCandidate{Item: c, UserRef: "m1"},
		[]reconcile.StateMatch{{Item: a}, {Item: b}})
	if d.Action != reconcile.StateSupersede || d.Target != b {
		t.Errorf("decision = %s of %v, want a supersession of the monitoring budget", d.Action, d.Target)
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
	old.Refs, old.LastSeenAt, old.CreatedAt, old.Subject = []string{"m1"}, t2, t1, "run migration"
	c := item(tenure.StateAction, "Run migration 025", "done", "db", "deploy")
	c.Refs, c.Confidence, c.Subject, c.Value, c.Owner = []string{"m2", "m1"}, tenure.ConfidenceHigh, "migration", "025", "Dev"
	m := reconcile.MergeState(old, c, t1)
	if m.Status != "done" || m.Confidence != tenure.ConfidenceHigh || !slices.Equal(m.Refs, []string{"m1", "m2"}) ||
		!slices.Equal(m.TopicTags, []string{"deploy", "db"}) || !m.LastSeenAt.Equal(t2) || !m.CreatedAt.Equal(t1) {
		t.Errorf("merged = %+v", m)
	}
	if m.Subject != "run migration" || m.Value != "025" || m.Owner != "Dev" {
		t.Errorf("slots = %q %q %q, want old's subject kept and the missing value and owner taken", m.Subject, m.Value, m.Owner)
	}
	if m := reconcile.MergeState(old, c, t2.Add(time.Hour)); !m.LastSeenAt.Equal(t2.Add(time.Hour)) {
		t.Errorf("last_seen_at = %v, want the newer ref time", m.LastSeenAt)
	}
}
