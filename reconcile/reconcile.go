package reconcile

import (
	"cmp"

	"github.com/tenure-dev/tenure"
)

// Winner says which side of a comparison prevails.
type Winner int

// Winners.
const (
	NoConflict Winner = iota // same claim, or disjoint valid-time windows
	NewWins
	OldWins
	Tie // a true contradiction: quarantine both
)

// Verdict is the outcome of comparing a new claim with an existing one.
type Verdict struct {
	Winner   Winner
	Reason   tenure.Reason
	Relation tenure.Relation
}

// Compare decides between a new claim and an old one for the same slot.
// Claims with the same value, or whose valid-time windows do not overlap
// (Allen's before/meets/met-by/after), do not conflict. Valid times are
// compared at their precision: within one period the later report wins
// (see validOrder).
func Compare(h tenure.Hierarchy, newer, old *tenure.Object) Verdict {
	rel := tenure.Relate(newer.ValidInterval(), old.ValidInterval())
	if tenure.SameValue(newer, old) || rel.Disjoint() {
		return Verdict{Winner: NoConflict, Relation: rel}
	}
	v := Verdict{Relation: rel}
	// Lower authority level is stronger, so compare old against new.
	if c := cmp.Compare(old.Level(), newer.Level()); c != 0 {
		v.Winner, v.Reason = side(c), tenure.ReasonAuthority
		return v
	}
	if c := cmp.Compare(h.Rank(newer.AuthorAuthority), h.Rank(old.AuthorAuthority)); c != 0 {
		v.Winner, v.Reason = side(c), tenure.ReasonAuthorRank
		return v
	}
	if c := validOrder(newer, old); c != 0 {
		v.Winner, v.Reason = side(c), tenure.ReasonValidTime
		return v
	}
	nsa, ncs := newer.Trust()
	osa, ocs := old.Trust()
	if c := cmp.Or(cmp.Compare(nsa, osa), cmp.Compare(ncs, ocs)); c != 0 {
		v.Winner, v.Reason = side(c), tenure.ReasonSourceTrust
		return v
	}
	v.Winner, v.Reason = Tie, tenure.ReasonUnresolved
	return v
}

// validOrder compares the valid times of a new claim and an old one: the
// later valid_from is the newer state of the world. When the two are the
// same period at their precisions ("last month" and 10 January, see
// tenure.SamePeriod), neither is known to be later, and the later report
// is: the claim written later in transaction time, the new one when both
// were written at the same instant.
func validOrder(newer, old *tenure.Object) int {
	if !tenure.SamePeriod(newer, old) {
		return newer.ValidFrom.Compare(old.ValidFrom)
	}
	if c := newer.TxStart.Compare(old.TxStart); c < 0 {
		return c
	}
	return 1
}

func side(c int) Winner {
	if c > 0 {
		return NewWins
	}
	return OldWins
}

// Displaced returns the status and contradiction status a claim gets when
// it loses for reason r: superseded (history) for valid time, overridden
// for authority and rank, overridden and disputed for source trust,
// quarantined and disputed for an unresolved tie.
func Displaced(r tenure.Reason) (tenure.Status, tenure.ContradictionStatus) {
	switch r {
	case tenure.ReasonValidTime, tenure.ReasonExplicit:
		return tenure.StatusSuperseded, tenure.Overridden
	case tenure.ReasonSourceTrust:
		return tenure.StatusOverridden, tenure.Disputed
	case tenure.ReasonUnresolved:
		return tenure.StatusQuarantined, tenure.Disputed
	}
	return tenure.StatusOverridden, tenure.Overridden
}

// MayDisplace reports whether a principal may explicitly supersede or
// otherwise displace target with a claim at the given authority level: the
// target must not be held at a stronger authority level, and its author
// must not outrank the principal.
func MayDisplace(h tenure.Hierarchy, p tenure.Principal, level int, target *tenure.Object) (bool, tenure.Reason) {
	if target.Level() < level {
		return false, tenure.ReasonAuthority
	}
	if h.Rank(target.AuthorAuthority) > h.Rank(p.Authority) {
		return false, tenure.ReasonAuthorRank
	}
	return true, ""
}

// Prefer orders claims visible at the same read point: stronger authority
// level, then higher author rank, then narrower scope, then newer valid
// time, then newer transaction time. It returns a negative number when a
// should be preferred over b.
func Prefer(h tenure.Hierarchy, a, b *tenure.Object) int {
	return cmp.Or(
		cmp.Compare(a.Level(), b.Level()),
		cmp.Compare(h.Rank(b.AuthorAuthority), h.Rank(a.AuthorAuthority)),
		cmp.Compare(b.Specificity(), a.Specificity()),
		b.ValidFrom.Compare(a.ValidFrom),
		b.TxStart.Compare(a.TxStart),
		cmp.Compare(a.ObjectID, b.ObjectID),
	)
}
