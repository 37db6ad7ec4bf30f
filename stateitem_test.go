package tenure_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestNormalizeStateText(t *testing.T) {
	for in, want := range map[string]string{
		"  Use   PostgreSQL\tfor analytics ": "use postgresql for analytics",
		`- "Use Redis"`:                      "use redis",
		"• 1) Ship it":                       "ship it",
		"Cafe\u0301 menu":                    "café menu", // NFD → NFC
		"“Quoted” it’s":                      "quoted its",
	} {
		if got := tenure.NormalizeStateText(in); got != want {
			t.Errorf("NormalizeStateText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStateUID(t *testing.T) {
	uid := regexp.MustCompile(`^[dcaqr]_[0-9a-f]{12}$`)
	for typ, prefix := range map[tenure.StateType]string{tenure.StateDecision: "d_", tenure.StateConstraint: "c_",
		tenure.StateAction: "a_", tenure.StateQuestion: "q_", tenure.StateRisk: "r_"} {
		got := tenure.StateUID(typ, "Use Redis")
		if !uid.MatchString(got) || got[:2] != prefix {
			t.Errorf("StateUID(%s) = %q, want prefix %s and 12 hex digits", typ, got, prefix)
		}
	}
	if a, b := tenure.StateUID(tenure.StateDecision, "Use Redis"), tenure.StateUID(tenure.StateDecision, ` - "use  redis" `); a != b {
		t.Errorf("uids differ for texts with the same normal form: %s %s", a, b)
	}
	if a, b := tenure.StateUID(tenure.StateDecision, "Use Redis"), tenure.StateUID(tenure.StateRisk, "Use Redis"); a[2:] == b[2:] {
		t.Errorf("type is not part of the hash: %s %s", a, b)
	}
	// Locked value: sha256("decision:use redis")[:12].
	if got := tenure.StateUID(tenure.StateDecision, "Use Redis"); got != "d_974b5eaa6d38" {
		t.Errorf("StateUID = %s, want d_974b5eaa6d38", got)
	}
}

func TestMergeStateStatus(t *testing.T) {
	for _, c := range []struct {
		typ        tenure.StateType
		a, b, want string
	}{
		{tenure.StateAction, "open", "done", "done"},
		{tenure.StateAction, "blocked", "open", "blocked"},
		{tenure.StateAction, "done", "blocked", "done"},
		{tenure.StateAction, "done", "superseded", "superseded"},
		{tenure.StateQuestion, "answered", "open", "answered"},
		{tenure.StateDecision, "active", "superseded", "superseded"},
		{tenure.StateRisk, "active", "bogus", "active"},
		{tenure.StateRisk, "bogus", "active", "active"},
	} {
		if got := tenure.MergeStateStatus(c.typ, c.a, c.b); got != c.want {
			t.Errorf("MergeStateStatus(%s, %s, %s) = %s, want %s", c.typ, c.a, c.b, got, c.want)
		}
		if got := tenure.MergeStateStatus(c.typ, c.b, c.a); got != c.want {
			t.Errorf("MergeStateStatus is not symmetric for %s %s/%s: %s", c.typ, c.b, c.a, got)
		}
	}
}

func TestSupersessionSignals(t *testing.T) {
	for text, want := range map[string]string{
		"Use Memcached instead of Redis": "instead",
		"We switched to Postgres":        "switched",
		"Deadline changed to Friday":     "changed to",
		"Redis is no longer needed":      "no longer",
		"Actually, use Redis":            "",
		"Correction: the budget is 5k":   "",
		"Insteadfully wrong":             "",
	} {
		if got := tenure.SupersessionTrigger(text); got != want {
			t.Errorf("SupersessionTrigger(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestStateItemCoerce(t *testing.T) {
	it := tenure.StateItem{Type: tenure.StateAction, Text: "  Ship it ", Status: "in-progress", Confidence: tenure.ConfidenceHigh,
		TopicTags: []string{"Release Plan", "release plan", "a", "b", "c"}, Refs: []string{"m1", "m1", " ", "m2"}}
	fixed := it.Coerce()
	if !slices.Equal(fixed, []string{"status"}) || it.Status != "open" || it.Confidence != tenure.ConfidenceLow {
		t.Errorf("coerce fixed %v → status %s confidence %s; want status fixed to open with low confidence", fixed, it.Status, it.Confidence)
	}
	if !slices.Equal(it.TopicTags, []string{"release-plan", "a", "b"}) || !slices.Equal(it.Refs, []string{"m1", "m2"}) || it.Text != "Ship it" {
		t.Errorf("coerce → tags %v refs %v text %q", it.TopicTags, it.Refs, it.Text)
	}
	if it.UID != tenure.StateUID(tenure.StateAction, "Ship it") {
		t.Errorf("uid %s not recomputed", it.UID)
	}
	if err := it.Validate(); err != nil {
		t.Errorf("coerced item does not validate: %v", err)
	}
	ok := tenure.StateItem{Type: tenure.StateRisk, Text: "x", Status: "active", Confidence: tenure.ConfidenceMedium}
	if fixed := ok.Coerce(); len(fixed) != 0 || ok.Confidence != tenure.ConfidenceMedium {
		t.Errorf("a valid item was changed: %v, %s", fixed, ok.Confidence)
	}
	bad := tenure.StateItem{Type: "wish", Text: "x", Status: "active", Confidence: tenure.ConfidenceHigh}
	bad.Coerce()
	if tenure.ErrorField(bad.Validate()) != "state_item.type_tag" {
		t.Errorf("unknown type: validate = %v, want an error naming state_item.type_tag", bad.Validate())
	}
}

func TestCompareStateItems(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	items := []tenure.StateItem{
		{UID: "q_1", Type: tenure.StateQuestion, Confidence: tenure.ConfidenceHigh, LastSeenAt: day(9)},
		{UID: "d_2", Type: tenure.StateDecision, Confidence: tenure.ConfidenceLow, LastSeenAt: day(9)},
		{UID: "d_3", Type: tenure.StateDecision, Confidence: tenure.ConfidenceHigh, LastSeenAt: day(1)},
		{UID: "d_4", Type: tenure.StateDecision, Confidence: tenure.ConfidenceHigh, LastSeenAt: day(5)},
		{UID: "r_5", Type: tenure.StateRisk, Confidence: tenure.ConfidenceHigh, Pinned: true, LastSeenAt: day(1)},
		{UID: "a_6", Type: tenure.StateAction, Confidence: tenure.ConfidenceMedium, LastSeenAt: day(1)},
		{UID: "c_7", Type: tenure.StateConstraint, Confidence: tenure.ConfidenceMedium, LastSeenAt: day(1)},
	}
	slices.SortFunc(items, func(a, b tenure.StateItem) int { return tenure.CompareStateItems(&a, &b) })
	var got []string
	for _, it := range items {
		got = append(got, it.UID)
	}
	// Pinned first, then decision > constraint > action > risk > question,
	// then high confidence first, then the most recently seen.
	want := []string{"r_5", "d_4", "d_3", "d_2", "c_7", "a_6", "q_1"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestStateItemSlots(t *testing.T) {
	base := func() tenure.StateItem {
		return tenure.StateItem{Type: tenure.StateAction, Text: "Set up the ingestion pipeline", Status: "open",
			Confidence: tenure.ConfidenceHigh, Subject: "ingestion pipeline", Owner: "Marco", Due: "2025-03-14"}
	}
	for _, c := range []struct {
		name  string
		edit  func(*tenure.StateItem)
		field string
	}{
		{"OK", func(*tenure.StateItem) {}, ""},
		{"OKMonthDue", func(s *tenure.StateItem) { s.Due = "2025-03" }, ""},
		{"OKYearDue", func(s *tenure.StateItem) { s.Due = "2025" }, ""},
		{"ErrDue", func(s *tenure.StateItem) { s.Due = "14 March" }, "state_item.due"},
		{"ErrDueDay", func(s *tenure.StateItem) { s.Due = "2025-02-30" }, "state_item.due"},
		{"ErrOwnerOnDecision", func(s *tenure.StateItem) { s.Type, s.Status = tenure.StateDecision, "active" }, "state_item.owner"},
		{"ErrSubjectControl", func(s *tenure.StateItem) { s.Subject = "a\x00b" }, "state_item.subject"},
		{"ErrValueTooLong", func(s *tenure.StateItem) { s.Value = strings.Repeat("x", 300) }, "state_item.value"},
		{"OKAlternativesOnDecision", func(s *tenure.StateItem) {
			s.Type, s.Status, s.Owner, s.Due, s.Alternatives = tenure.StateDecision, "active", "", "", []string{"a refund"}
		}, ""},
		{"ErrAlternativesOnAction", func(s *tenure.StateItem) { s.Alternatives = []string{"a refund"} }, "state_item.alternatives"},
		{"ErrAlternativeEmpty", func(s *tenure.StateItem) {
			s.Type, s.Status, s.Owner, s.Due, s.Alternatives = tenure.StateDecision, "active", "", "", []string{""}
		}, "state_item.alternatives"},
		{"ErrAlternativeControl", func(s *tenure.StateItem) {
			s.Type, s.Status, s.Owner, s.Due, s.Alternatives = tenure.StateDecision, "active", "", "", []string{"a\x00b"}
		}, "state_item.alternatives"},
		{"ErrTooManyAlternatives", func(s *tenure.StateItem) {
			s.Type, s.Status, s.Owner, s.Due = tenure.StateDecision, "active", "", ""
			s.Alternatives = strings.Fields("a b c d e f g h i")
		}, "state_item.alternatives"},
	} {
		t.Run(c.name, func(t *testing.T) {
			it := base()
			c.edit(&it)
			err := it.Validate()
			if got := tenure.ErrorField(err); got != c.field {
				t.Errorf("Validate() = %v (field %q), want field %q", err, got, c.field)
			}
		})
	}
}

func TestItemUID(t *testing.T) {
	a := tenure.StateItem{Type: tenure.StateAction, Text: "Set up the ingestion pipeline"}
	if a.ItemUID() != tenure.StateUID(a.Type, a.Text) {
		t.Errorf("an item without owner or due date has uid %s, want StateUID's %s", a.ItemUID(), tenure.StateUID(a.Type, a.Text))
	}
	b, c := a, a
	b.Owner, c.Owner = "Marco", "Priya"
	if b.ItemUID() == a.ItemUID() || b.ItemUID() == c.ItemUID() {
		t.Errorf("uids %s %s %s: the same task for another owner must be another item", a.ItemUID(), b.ItemUID(), c.ItemUID())
	}
	d := b
	d.Owner = " marco "
	d.Coerce()
	if d.UID != b.ItemUID() {
		t.Errorf("uid %s after Coerce, want %s: owners compare normalised", d.UID, b.ItemUID())
	}
	if _, p, err := tenure.ParseDue("2025-03"); err != nil || p != tenure.DueMonth {
		t.Errorf("ParseDue(2025-03) = %s, %v; want month", p, err)
	}
}
