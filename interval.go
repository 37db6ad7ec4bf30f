package tenure

import "time"

// Relation is one of Allen's 13 interval relations between A and B.
type Relation string

// Allen's interval relations: seven primary and six inverses.
const (
	Before       Relation = "before"
	After        Relation = "after"
	Meets        Relation = "meets"
	MetBy        Relation = "met_by"
	Overlaps     Relation = "overlaps"
	OverlappedBy Relation = "overlapped_by"
	Starts       Relation = "starts"
	StartedBy    Relation = "started_by"
	During       Relation = "during"
	Contains     Relation = "contains"
	Finishes     Relation = "finishes"
	FinishedBy   Relation = "finished_by"
	Equals       Relation = "equals"
)

// Interval is a half-open valid-time interval [From, Until); a nil Until is
// open-ended.
type Interval struct {
	From  time.Time
	Until *time.Time
}

// ValidInterval returns the object's valid-time interval.
func (o *Object) ValidInterval() Interval { return Interval{From: o.ValidFrom, Until: o.ValidUntil} }

// end compares ends where nil means +infinity.
func cmpEnd(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(*b)
}

// cmpEndStart compares the end of one interval with the start of another.
func cmpEndStart(end *time.Time, start time.Time) int {
	if end == nil {
		return 1
	}
	return end.Compare(start)
}

// Relate classifies how interval a relates to interval b.
func Relate(a, b Interval) Relation {
	if c := cmpEndStart(a.Until, b.From); c < 0 {
		return Before
	} else if c == 0 {
		return Meets
	}
	if c := cmpEndStart(b.Until, a.From); c < 0 {
		return After
	} else if c == 0 {
		return MetBy
	}
	s := a.From.Compare(b.From)
	e := cmpEnd(a.Until, b.Until)
	switch {
	case s == 0 && e == 0:
		return Equals
	case s == 0 && e < 0:
		return Starts
	case s == 0:
		return StartedBy
	case e == 0 && s > 0:
		return Finishes
	case e == 0:
		return FinishedBy
	case s > 0 && e < 0:
		return During
	case s < 0 && e > 0:
		return Contains
	case s < 0:
		return Overlaps
	}
	return OverlappedBy
}

// Disjoint reports whether the relation leaves the intervals without a
// common instant (claims in disjoint windows never conflict).
func (r Relation) Disjoint() bool {
	return r == Before || r == After || r == Meets || r == MetBy
}
