package tenure

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// stateUIDPrefix is the uid prefix of each state item type.
var stateUIDPrefix = map[StateType]string{
	StateDecision: "d_", StateConstraint: "c_", StateAction: "a_",
	StateQuestion: "q_", StateRisk: "r_",
}

var (
	bulletPrefix = regexp.MustCompile(`^(?:[-*•·‣◦]+|\d+[.)])\s+`)
	quoteChars   = strings.NewReplacer(`"`, "", "'", "", "“", "", "”", "", "‘", "", "’", "", "`", "", "«", "", "»", "")
)

// NormalizeStateText is the canonical form a state item's text is compared
// and hashed in: NFC, lowercase, quotes and leading bullets removed,
// whitespace collapsed and trimmed.
func NormalizeStateText(s string) string {
	s = norm.NFC.String(s)
	s = strings.ToLower(s)
	s = quoteChars.Replace(s)
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	for {
		t := bulletPrefix.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(s)
}

// StateUID is a state item's deterministic uid: the type's prefix (d_, c_,
// a_, q_, r_) and the first 12 hex digits of sha256("type:normalized text").
func StateUID(t StateType, text string) string {
	sum := sha256.Sum256([]byte(string(t) + ":" + NormalizeStateText(text)))
	return stateUIDPrefix[t] + hex.EncodeToString(sum[:])[:12]
}

// ItemUID is the uid of an item: StateUID of its type and text, with its
// owner and due date hashed in when it has them, so that the same task
// handed to someone else or moved to another day is another item. An item
// without either has the uid StateUID gives.
func (s *StateItem) ItemUID() string {
	if s.Owner == "" && s.Due == "" {
		return StateUID(s.Type, s.Text)
	}
	return StateUID(s.Type, s.Text+"\x1fowner="+NormalizeStateText(s.Owner)+"\x1fdue="+s.Due)
}

// Due precisions.
const (
	DueDay   = "day"
	DueMonth = "month"
	DueYear  = "year"
)

// ParseDue reads a due date, YYYY-MM-DD, YYYY-MM or YYYY, and returns its
// first day and precision (DueDay, DueMonth or DueYear). Errors:
// CodeInvalid naming state_item.due.
func ParseDue(s string) (time.Time, string, error) {
	for _, f := range []struct{ layout, precision string }{{"2006-01-02", DueDay}, {"2006-01", DueMonth}, {"2006", DueYear}} {
		if len(s) == len(f.layout) {
			if t, err := time.Parse(f.layout, s); err == nil {
				return t, f.precision, nil
			}
		}
	}
	return time.Time{}, "", Errorf(CodeInvalid, "state_item.due", "want YYYY-MM-DD, YYYY-MM or YYYY, got %q", s)
}

// DefaultStateStatus is the status a new item of type t starts in.
func DefaultStateStatus(t StateType) string {
	st := StateStatuses[t]
	if len(st) == 0 {
		return ""
	}
	return st[len(st)-1]
}

// MergeStateStatus returns the stronger of two statuses of type t by the
// merge precedence of StateStatuses (superseded > done > blocked > open for
// actions, superseded > answered > open for questions, superseded > active
// otherwise). An unknown status loses to a known one.
func MergeStateStatus(t StateType, a, b string) string {
	order := StateStatuses[t]
	ia, ib := slices.Index(order, a), slices.Index(order, b)
	switch {
	case ia < 0:
		return b
	case ib < 0 || ia <= ib:
		return a
	default:
		return b
	}
}

// MaxConfidence returns the higher of two confidence levels.
func MaxConfidence(a, b Confidence) Confidence {
	if slices.Index(Confidences, b) > slices.Index(Confidences, a) {
		return b
	}
	return a
}

// SupersessionTriggers are the phrases the LLM extraction prompt names as
// change language. Reconciliation reads a wider set of cues, "actually"
// among them, and lets an item's slot decide what a cue reverses
// (package slot); these stay unambiguous for a model.
var SupersessionTriggers = []string{"instead", "replaced", "switched", "changed to", "no longer"}

// SupersessionTrigger returns the first trigger phrase present in text as a
// whole word or phrase, or "".
func SupersessionTrigger(text string) string {
	return firstPhrase(NormalizeStateText(text), SupersessionTriggers)
}

// firstPhrase returns the first phrase that occurs in s on word boundaries.
func firstPhrase(s string, phrases []string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	padded := " " + strings.Join(words, " ") + " "
	for _, p := range phrases {
		if strings.Contains(padded, " "+p+" ") {
			return p
		}
	}
	return ""
}

// Coerce repairs what can be repaired in an extracted item and reports what
// it changed: an unknown status becomes the type's default and an unknown
// confidence becomes medium, and either lowers the confidence to low. The
// text is trimmed, subject, value, owner and alternatives are put on one
// trimmed line (empty and repeated alternatives dropped),
// topic tags are normalized to at most three short lowercase labels,
// duplicate refs are dropped and the uid is recomputed (ItemUID). Coerce
// does not repair an unknown type, empty text, or an owner or due date on
// another type than an action; Validate reports those.
func (s *StateItem) Coerce() []string {
	var fixed []string
	s.Text = strings.TrimSpace(s.Text)
	s.Subject, s.Value, s.Owner = oneLine(s.Subject), oneLine(s.Value), oneLine(s.Owner)
	s.Due = strings.TrimSpace(s.Due)
	if st := StateStatuses[s.Type]; st != nil && !slices.Contains(st, s.Status) {
		fixed = append(fixed, "status")
		s.Status = DefaultStateStatus(s.Type)
		s.Confidence = ConfidenceLow
	}
	if !slices.Contains(Confidences, s.Confidence) {
		fixed = append(fixed, "confidence")
		s.Confidence = ConfidenceLow
	}
	s.TopicTags = normalizeTags(s.TopicTags)
	s.Refs = dedupe(s.Refs)
	for i, a := range s.Alternatives {
		s.Alternatives[i] = oneLine(a)
	}
	s.Alternatives = dedupe(s.Alternatives)
	if _, ok := stateUIDPrefix[s.Type]; ok && s.Text != "" {
		s.UID = s.ItemUID()
	}
	return fixed
}

// oneLine collapses runs of white space, line breaks included, to single
// spaces and trims the ends.
func oneLine(s string) string { return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ") }

// maxTopicTags is how many topic tags an item keeps.
const maxTopicTags = 3

func normalizeTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.Join(strings.Fields(strings.ToLower(quoteChars.Replace(t))), "-")
		if t == "" || len(t) > 40 || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == maxTopicTags {
			break
		}
	}
	return out
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// CompareStateItems orders state items for rendering: pinned first, then
// type priority (decision > constraint > action > risk > question), then
// confidence (high first), then the most recently seen, then uid and
// thread. It returns a negative number when a comes first.
func CompareStateItems(a, b *StateItem) int {
	rank := func(c Confidence) int { return -slices.Index(Confidences, c) }
	switch {
	case a.Pinned != b.Pinned:
		if a.Pinned {
			return -1
		}
		return 1
	case a.Type != b.Type:
		return slices.Index(StateTypes, a.Type) - slices.Index(StateTypes, b.Type)
	case a.Confidence != b.Confidence:
		return rank(a.Confidence) - rank(b.Confidence)
	case !a.LastSeenAt.Equal(b.LastSeenAt):
		return b.LastSeenAt.Compare(a.LastSeenAt)
	}
	return cmp.Or(strings.Compare(a.UID, b.UID), strings.Compare(a.ThreadID, b.ThreadID))
}
