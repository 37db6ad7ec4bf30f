package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// Conversation is one LoCoMo conversation.
type Conversation struct {
	ID       string
	SpeakerA string
	SpeakerB string
	Sessions []Session
	QA       []QA
}

// Session is a dated group of turns.
type Session struct {
	N     int
	Date  time.Time
	Turns []Turn
}

// Turn is one dialogue turn.
type Turn struct {
	DiaID   string `json:"dia_id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	// Caption is the BLIP caption of a shared photo. The dataset's "query"
	// field (the search used to find the photo) is never read.
	Caption string `json:"blip_caption"`
	ImgURL  any    `json:"img_url"`
}

// QA is a question with its gold answer, evidence and category.
type QA struct {
	Question string
	// Answer is the gold answer as text (numbers are formatted); empty for
	// adversarial questions.
	Answer   string
	Evidence []string
	Category int
}

// Categories names LoCoMo's question categories as released.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// LoadLoCoMo reads every *.json conversation file in dir, in name order.
func LoadLoCoMo(dir string) ([]Conversation, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "data", "no *.json conversation files in %s", dir)
	}
	sort.Strings(paths)
	var out []Conversation
	for _, p := range paths {
		c, err := LoadConversation(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// LoadConversation reads one LoCoMo conversation file. Only the keys the
// harness needs are decoded: speakers, sessions, their dates and the QA.
func LoadConversation(path string) (Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Conversation{}, &tenure.Error{Code: tenure.CodeInvalid, Field: "data", Message: "cannot read " + path, Err: err}
	}
	id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	fail := func(field, format string, args ...any) (Conversation, error) {
		return Conversation{}, tenure.Errorf(tenure.CodeInvalid, field, "%s: %s", path, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fail("", "not a JSON object: %v", err)
	}
	if conv, ok := top["conversation"]; ok { // the upstream locomo10.json nesting
		qa := top["qa"]
		if err := json.Unmarshal(conv, &top); err != nil {
			return fail("conversation", "not a JSON object: %v", err)
		}
		top["qa"] = qa
	}
	c := Conversation{ID: id}
	for _, f := range []struct {
		key string
		dst *string
	}{{"speaker_a", &c.SpeakerA}, {"speaker_b", &c.SpeakerB}} {
		if err := json.Unmarshal(top[f.key], f.dst); err != nil || *f.dst == "" {
			return fail(f.key, "missing or not a string")
		}
	}
	for key, raw := range top {
		m := sessionKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var turns []Turn
		if err := json.Unmarshal(raw, &turns); err != nil { // fields the harness does not read (such as "query") are ignored
			return fail(key, "%v", err)
		}
		if len(turns) == 0 {
			continue
		}
		var when string
		if err := json.Unmarshal(top[key+"_date_time"], &when); err != nil {
			return fail(key+"_date_time", "missing or not a string")
		}
		date, err := ParseSessionDate(when)
		if err != nil {
			return fail(key+"_date_time", "%v", err)
		}
		for i, t := range turns {
			if t.DiaID == "" || t.Speaker == "" {
				return fail(fmt.Sprintf("%s[%d]", key, i), "turn without dia_id or speaker")
			}
		}
		c.Sessions = append(c.Sessions, Session{N: n, Date: date, Turns: turns})
	}
	sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].N < c.Sessions[j].N })
	if len(c.Sessions) == 0 {
		return fail("session_1", "no sessions with turns")
	}
	var qa []struct {
		Question    string          `json:"question"`
		Answer      json.RawMessage `json:"answer"`
		Adversarial json.RawMessage `json:"adversarial_answer"`
		Evidence    []string        `json:"evidence"`
		Category    int             `json:"category"`
	}
	if raw := top["qa"]; len(raw) == 0 || string(raw) == "null" {
		return c, nil // a conversation without questions can still be ingested
	}
	if err := json.Unmarshal(top["qa"], &qa); err != nil {
		return fail("qa", "not a list of questions: %v", err)
	}
	for i, q := range qa {
		if q.Question == "" || Categories[q.Category] == "" {
			return fail(fmt.Sprintf("qa[%d]", i), "question without text or with unknown category %d", q.Category)
		}
		c.QA = append(c.QA, QA{Question: q.Question, Answer: answerText(q.Answer), Evidence: evidenceIDs(q.Evidence), Category: q.Category})
	}
	return c, nil
}

// misplacedColon is an evidence id with a stray colon ("D:11:26").
var misplacedColon = regexp.MustCompile(`^D:(\d+:\d+)$`)

// evidenceIDs repairs the two slips in the released annotations: several
// ids in one string ("D8:6; D9:17") and a stray colon ("D:11:26"). Ids that
// still name no turn are kept, and count as missed for every system.
func evidenceIDs(raw []string) []string {
	var out []string
	for _, e := range raw {
		for _, id := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
			if m := misplacedColon.FindStringSubmatch(id); m != nil {
				id = "D" + m[1]
			}
			out = append(out, id)
		}
	}
	return out
}

func answerText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.Trim(string(raw), `"`)
}

// ParseSessionDate parses LoCoMo's "1:56 pm on 8 May, 2023".
func ParseSessionDate(s string) (time.Time, error) {
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognized session date %q (want e.g. \"1:56 pm on 8 May, 2023\")", s)
}

// Messages turns a conversation into messages of thread c.ID: each turn by
// its speaker at its session's date, a shared photo as an image
// attachment with its caption.
func (c Conversation) Messages() []tenure.Message {
	var out []tenure.Message
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			m := tenure.Message{ThreadID: c.ID, ID: t.DiaID, SessionID: fmt.Sprintf("session %d", s.N), Role: "user",
				Speaker: t.Speaker, Content: t.Text, CreatedAt: s.Date}
			if t.Caption != "" {
				m.Attachments = []tenure.Attachment{{Kind: "photo", Caption: t.Caption}}
			}
			out = append(out, m)
		}
	}
	return out
}
