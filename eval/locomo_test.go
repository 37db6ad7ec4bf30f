package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/eval"
)

func TestLoadConversation(t *testing.T) {
	c, err := eval.LoadConversation("testdata/locomo/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "tiny" || c.SpeakerA != "Ann" || c.SpeakerB != "Ben" || len(c.Sessions) != 2 || len(c.QA) != 5 {
		t.Fatalf("loaded %+v", c)
	}
	if want := time.Date(2023, 6, 20, 10, 4, 0, 0, time.UTC); !c.Sessions[1].Date.Equal(want) {
		t.Errorf("session 2 date = %v, want %v", c.Sessions[1].Date, want)
	}
	if c.QA[3].Answer != "" || c.QA[4].Answer != "2023" {
		t.Errorf("answers = %q, %q; want none for the adversarial question and 2023", c.QA[3].Answer, c.QA[4].Answer)
	}
	msgs := c.Messages()
	if len(msgs) != 8 || msgs[2].ID != "D1:3" || msgs[2].SessionID != "session 1" {
		t.Fatalf("messages = %+v", msgs)
	}
	if got := msgs[2].Text(); !strings.Contains(got, "a photo of a blue ceramic vase") {
		t.Errorf("the caption is not part of the turn: %q", got)
	}
	for _, m := range msgs {
		// Only turns reach the system: never the photo search query,
		// observations or summaries.
		if s := m.Text(); strings.Contains(s, "zz") {
			t.Errorf("message %s carries gold data: %q", m.ID, s)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("message %s: %v", m.ID, err)
		}
	}
}

func TestLoadConversationInvalid(t *testing.T) {
	good, err := os.ReadFile("testdata/locomo/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, to, field string
	}{
		{"not JSON", `"speaker_a"`, `speaker_a`, ""},
		{"no speaker", `"speaker_b": "Ben"`, `"speaker_b": ""`, "speaker_b"},
		{"bad date", `10:04 am on 20 June, 2023`, `sometime in June`, "session_2_date_time"},
		{"turn without id", `"dia_id": "D2:3"`, `"dia_id": ""`, "session_2[2]"},
		{"turn of wrong type", `"dia_id": "D2:3"`, `"dia_id": 7`, "session_2"},
		{"unknown category", `"category": 3`, `"category": 9`, "qa[4]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(string(good), c.from, c.to, 1)
			if bad == string(good) {
				t.Fatalf("fixture does not contain %q", c.from)
			}
			path := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := eval.LoadConversation(path)
			if tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != c.field {
				t.Errorf("err = %v (field %q), want invalid with field %q", err, tenure.ErrorField(err), c.field)
			}
		})
	}
}

func TestParseSessionDate(t *testing.T) {
	got, err := eval.ParseSessionDate("1:56 pm on 8 May, 2023")
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); err != nil || !got.Equal(want) {
		t.Errorf("ParseSessionDate = %v, %v; want %v", got, err, want)
	}
	if _, err := eval.ParseSessionDate("yesterday"); err == nil {
		t.Error("ParseSessionDate accepted a relative date")
	}
}

// The released annotations hold a few malformed evidence ids; the loader
// repairs the two slips that have one reading and keeps the rest as given.
func TestLoadConversationEvidenceIDs(t *testing.T) {
	good, err := os.ReadFile("testdata/locomo/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(good), `"evidence": ["D1:4", "D2:2"]`, `"evidence": ["D1:4; D2:2", "D:2:1", "D"]`, 1)
	if bad == string(good) {
		t.Fatal("fixture changed: no two-id evidence list")
	}
	path := filepath.Join(t.TempDir(), "slips.json")
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := eval.LoadConversation(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range c.QA {
		if len(q.Evidence) > 2 {
			got = q.Evidence
		}
	}
	if want := []string{"D1:4", "D2:2", "D2:1", "D"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("evidence = %q, want %q", got, want)
	}
}
