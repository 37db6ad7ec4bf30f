package summarize

import "time"

// Policy defaults.
const (
	// DefaultRollingEvery is how many user turns pass between rolling
	// summaries.
	DefaultRollingEvery = 10
	// DefaultInactivity is how long a session stays open without a
	// message.
	DefaultInactivity = 30 * time.Minute
)

// DueRolling reports whether a rolling summary is due after
// userTurnsSinceLast user turns since the last one, one every `every` user
// turns (DefaultRollingEvery when every is not positive).
func DueRolling(userTurnsSinceLast, every int) bool {
	if every <= 0 {
		every = DefaultRollingEvery
	}
	return userTurnsSinceLast >= every
}

// SessionClosed reports whether a session whose last message was at last
// has closed by now, after inactivity without messages (DefaultInactivity
// when inactivity is not positive). A zero last means no session, which
// is not closed.
func SessionClosed(last, now time.Time, inactivity time.Duration) bool {
	if inactivity <= 0 {
		inactivity = DefaultInactivity
	}
	if last.IsZero() {
		return false
	}
	return !now.Before(last.Add(inactivity))
}
