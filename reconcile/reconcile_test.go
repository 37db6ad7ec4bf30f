package reconcile_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/reconcile"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func claim(value string, mut func(*tenure.Object)) *tenure.Object {
	v, _ := json.Marshal(value)
	o := &tenure.Object{Key: "k", Value: v, TenantID: "t", AuthorAuthority: "employee", ValidFrom: t0}
	if mut != nil {
		mut(o)
	}
	o.ApplyDefaults(t0)
	return o
}

// Dates of the precision cases, in 2025.
var (
	jan1  = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	jan10 = time.Date(2025, 1, 10, 9, 30, 0, 0, time.UTC)
	feb5  = time.Date(2025, 2, 5, 18, 0, 0, 0, time.UTC)
)

// reported returns a mutation dating a claim: reported (written) at tx,
// valid from valid at precision p.
func reported(tx, valid time.Time, p tenure.Precision) func(*tenure.Object) {
	return func(o *tenure.Object) { o.TxStart, o.ValidFrom, o.ValidPrecision = tx, valid, p }
}

func TestCompare(t *testing.T) {
	h := tenure.DefaultHierarchy
	later := func(o *tenure.Object) { o.ValidFrom = t0.Add(time.Hour) }
	cases := []struct {
		name   string
		newer  *tenure.Object
		old    *tenure.Object
		winner reconcile.Winner
		reason tenure.Reason
	}{
		{"SameValue", claim("a", later), claim("a", nil), reconcile.NoConflict, ""},
		{"Disjoint", claim("b", later), claim("a", func(o *tenure.Object) { o.ValidUntil = tenure.Ptr(t0.Add(time.Hour)) }), reconcile.NoConflict, ""},
		{"StrongerLevelWinsEvenIfOlder", claim("b", func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(1); o.ValidFrom = t0.Add(-time.Hour) }), claim("a", nil), reconcile.NewWins, tenure.ReasonAuthority},
		{"WeakerLevelLosesEvenIfNewer", claim("b", func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(3); later(o) }), claim("a", nil), reconcile.OldWins, tenure.ReasonAuthority},
		{"HigherRankWins", claim("b", func(o *tenure.Object) { o.AuthorAuthority = "manager" }), claim("a", later), reconcile.NewWins, tenure.ReasonAuthorRank},
		{"LowerRankLoses", claim("b", func(o *tenure.Object) { o.AuthorAuthority = "intern"; later(o) }), claim("a", nil), reconcile.OldWins, tenure.ReasonAuthorRank},
		{"NewerValidTimeWins", claim("b", later), claim("a", nil), reconcile.NewWins, tenure.ReasonValidTime},
		{"OlderValidTimeLoses", claim("b", nil), claim("a", later), reconcile.OldWins, tenure.ReasonValidTime},
		{"SourceAuthority", claim("b", func(o *tenure.Object) { o.SourceAuthority = tenure.Ptr(0.9) }), claim("a", nil), reconcile.NewWins, tenure.ReasonSourceTrust},
		{"Confidence", claim("b", func(o *tenure.Object) { o.ConfidenceScore = tenure.Ptr(0.2) }), claim("a", nil), reconcile.OldWins, tenure.ReasonSourceTrust},
		{"Tie", claim("b", nil), claim("a", nil), reconcile.Tie, tenure.ReasonUnresolved},

		// Valid times at their precision. "I live in Austin" said on
		// 10 January, then "I moved to Denver last month" said on
		// 5 February: January holds 10 January, so the later report wins.
		{"ImpreciseLaterReportWins", claim("Denver", reported(feb5, jan1, tenure.PrecisionMonth)),
			claim("Austin", reported(jan10, jan10, "")), reconcile.NewWins, tenure.ReasonValidTime},
		{"ImpreciseEarlierReportLoses", claim("Austin", reported(jan10, jan10, "")),
			claim("Denver", reported(feb5, jan1, tenure.PrecisionMonth)), reconcile.OldWins, tenure.ReasonValidTime},
		{"ImpreciseSameReportTimeNewWins", claim("Denver", reported(jan10, jan1, tenure.PrecisionMonth)),
			claim("Austin", reported(jan10, jan10, "")), reconcile.NewWins, tenure.ReasonValidTime},
		{"ImpreciseBothSamePeriod", claim("Denver", reported(feb5, jan1, tenure.PrecisionMonth)),
			claim("Austin", reported(jan10, jan1.AddDate(0, 0, 2), tenure.PrecisionDay)), reconcile.NewWins, tenure.ReasonValidTime},
		{"ImpreciseYearHoldsMonth", claim("Denver", reported(feb5, jan1, tenure.PrecisionYear)),
			claim("Austin", reported(jan10, jan1.AddDate(0, 6, 0), tenure.PrecisionMonth)), reconcile.NewWins, tenure.ReasonValidTime},
		// Outside the period the later valid time still wins, whoever
		// reported last: "last month" is before 3 February.
		{"ImpreciseBeforeLaterValidTime", claim("Denver", reported(feb5, jan1, tenure.PrecisionMonth)),
			claim("Austin", reported(jan10, jan1.AddDate(0, 1, 2), "")), reconcile.OldWins, tenure.ReasonValidTime},
		{"ImpreciseAfterEarlierValidTime", claim("Denver", reported(feb5, jan1.AddDate(0, 1, 0), tenure.PrecisionMonth)),
			claim("Austin", reported(feb5.AddDate(0, 0, 1), jan10, "")), reconcile.NewWins, tenure.ReasonValidTime},
		// The period ends where the next one starts: the week of Monday
		// 6 January does not hold the first instant of 13 January.
		{"ImpreciseWeekEnds", claim("Denver", reported(feb5, jan1.AddDate(0, 0, 5), tenure.PrecisionWeek)),
			claim("Austin", reported(jan10, jan1.AddDate(0, 0, 12), "")), reconcile.OldWins, tenure.ReasonValidTime},
		{"ImpreciseWeekHoldsItsSunday", claim("Denver", reported(feb5, jan1.AddDate(0, 0, 5), tenure.PrecisionWeek)),
			claim("Austin", reported(jan10, jan1.AddDate(0, 0, 11), "")), reconcile.NewWins, tenure.ReasonValidTime},
		// Two exact times share no period: same valid time, different
		// report times, still a matter of trust.
		{"ExactSameValidTimeIgnoresReport", claim("b", reported(feb5, jan10, "")),
			claim("a", reported(jan10, jan10, "")), reconcile.Tie, tenure.ReasonUnresolved},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := reconcile.Compare(h, c.newer, c.old)
			if v.Winner != c.winner || v.Reason != c.reason {
				t.Errorf("Compare = %v/%s, want %v/%s", v.Winner, v.Reason, c.winner, c.reason)
			}
		})
	}
}

func TestDisplaced(t *testing.T) {
	for _, c := range []struct {
		r  tenure.Reason
		s  tenure.Status
		cs tenure.ContradictionStatus
	}{
		{tenure.ReasonExplicit, tenure.StatusSuperseded, tenure.Overridden},
		{tenure.ReasonValidTime, tenure.StatusSuperseded, tenure.Overridden},
		{tenure.ReasonAuthority, tenure.StatusOverridden, tenure.Overridden},
		{tenure.ReasonAuthorRank, tenure.StatusOverridden, tenure.Overridden},
		{tenure.ReasonSourceTrust, tenure.StatusOverridden, tenure.Disputed},
		{tenure.ReasonUnresolved, tenure.StatusQuarantined, tenure.Disputed},
	} {
		if s, cs := reconcile.Displaced(c.r); s != c.s || cs != c.cs {
			t.Errorf("Displaced(%s) = %s/%s, want %s/%s", c.r, s, cs, c.s, c.cs)
		}
	}
}

func TestPrefer(t *testing.T) {
	h := tenure.DefaultHierarchy
	global := claim("g", nil)
	project := claim("p", func(o *tenure.Object) { o.ProjectID = "p1" })
	strong := claim("s", func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(1) })
	if reconcile.Prefer(h, project, global) >= 0 {
		t.Error("narrower scope not preferred at equal authority")
	}
	if reconcile.Prefer(h, strong, project) >= 0 {
		t.Error("stronger authority level not preferred over narrower scope")
	}
	if reconcile.Prefer(h, global, global) != 0 {
		t.Error("an object is not equal to itself")
	}
}

func TestMayDisplace(t *testing.T) {
	h := tenure.DefaultHierarchy
	intern := tenure.Principal{Authority: "intern"}
	policy := claim("max 15%", func(o *tenure.Object) { o.AuthorAuthority = "manager" })
	if ok, why := reconcile.MayDisplace(h, intern, tenure.LevelUser, policy); ok || why != tenure.ReasonAuthorRank {
		t.Errorf("intern displaces manager's policy: %v %s", ok, why)
	}
	rule := claim("no PII", func(o *tenure.Object) { o.AuthorityLevel = tenure.Ptr(0) })
	if ok, why := reconcile.MayDisplace(h, tenure.Principal{Authority: "policy"}, tenure.LevelInferred, rule); ok || why != tenure.ReasonAuthority {
		t.Errorf("inferred claim displaces platform rule: %v %s", ok, why)
	}
}
