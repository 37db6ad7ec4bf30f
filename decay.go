package tenure

import (
	"math"
	"time"
)

// DecayWeight returns the object's current weight in (0, 1]: 1 without a
// decay rule, otherwise 0.5^(age/half-life) where age runs from the last
// confirmation.
func (o *Object) DecayWeight(now time.Time) float64 {
	if o.DecayRule == nil || o.DecayRule.HalfLifeDays <= 0 {
		return 1
	}
	from := o.LastConfirmed
	if from.IsZero() {
		from = o.ValidFrom
	}
	age := now.Sub(from).Hours() / 24
	if age <= 0 {
		return 1
	}
	return math.Pow(0.5, age/o.DecayRule.HalfLifeDays)
}

// Decayed reports whether the weight fell below the rule's threshold.
func (o *Object) Decayed(now time.Time) bool {
	return o.DecayRule != nil && o.DecayWeight(now) < o.DecayRule.MinimumThreshold
}
