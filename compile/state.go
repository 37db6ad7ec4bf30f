package compile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// renderStateItem renders a state item in the compact one-line format:
// [uid] TYPE (status[, low]) topic: text[ (owner O, due D)] [refs:N][
// CONFLICT]. Confidence shows only when low; only the first topic tag
// shows; an action's owner and due date show when it has them.
func renderStateItem(s *tenure.StateItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s (%s", s.UID, strings.ToUpper(string(s.Type)), s.Status)
	if s.Confidence == tenure.ConfidenceLow {
		b.WriteString(", low")
	}
	b.WriteString(") ")
	if len(s.TopicTags) > 0 {
		b.WriteString(inlineText(s.TopicTags[0]))
		b.WriteString(": ")
	}
	b.WriteString(inlineText(s.Text))
	switch {
	case s.Owner != "" && s.Due != "":
		fmt.Fprintf(&b, " (owner %s, due %s)", inlineText(s.Owner), inlineText(s.Due))
	case s.Owner != "":
		fmt.Fprintf(&b, " (owner %s)", inlineText(s.Owner))
	case s.Due != "":
		fmt.Fprintf(&b, " (due %s)", inlineText(s.Due))
	}
	fmt.Fprintf(&b, " [refs:%d]", len(s.Refs))
	if s.Conflict {
		b.WriteString(" CONFLICT")
	}
	return b.String()
}

// stateHeader is the one-line freshness header of the state section.
func stateHeader(items []*item) string {
	var updated time.Time
	for _, it := range items {
		if s := it.obj.StateItem; s != nil && s.LastSeenAt.After(updated) {
			updated = s.LastSeenAt
		} else if s == nil && it.obj.ValidFrom.After(updated) {
			// A summary or a working-set object: when what it says became
			// true (a summary's last message), not when it was written.
			updated = it.obj.ValidFrom
		}
	}
	stamp := "unknown"
	if !updated.IsZero() {
		stamp = updated.UTC().Format("2006-01-02T15:04Z")
	}
	return fmt.Sprintf("State (updated: %s, items: %d)", stamp, len(items))
}

// sortState orders state items: pinned first, then type priority
// (decision > constraint > action > risk > question), then confidence
// (high first), then last_seen_at newest first. Working-set items follow.
func sortState(items []*item) {
	slices.SortStableFunc(items, func(x, y *item) int {
		a, b := x.obj.StateItem, y.obj.StateItem
		switch {
		case a == nil && b == nil:
			return strings.Compare(x.obj.Key, y.obj.Key)
		case a == nil:
			return 1
		case b == nil:
			return -1
		}
		return tenure.CompareStateItems(a, b)
	})
}
