package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/transcript"
)

// LongMemEvalTypes are LongMemEval's question types, in the order they are
// shown.
var LongMemEvalTypes = []string{"single-session-user", "single-session-assistant", "single-session-preference",
	"multi-session", "temporal-reasoning", "knowledge-update"}

// Question is one LongMemEval question with its own haystack.
type Question struct {
	ID       string
	Type     string
	Question string
	// Answer is the gold answer as text; never given to the system.
	Answer string
	// Date is when the question is asked: "now" for its compilation.
	Date time.Time
	// Messages are the haystack as the system under test sees it, read
	// by transcript.ReadLongMemEval (what tenure ingest reads): thread
	// ID, ids "<session id>:<turn>", roles, contents and session dates,
	// nothing of the gold annotations.
	Messages []tenure.Message
	// Evidence are the ids of the turns marked has_answer; AnswerSessions
	// the evidence sessions. Both are used only to score.
	Evidence       []string
	AnswerSessions []string
}

// LoadOptions selects the questions LoadLongMemEval keeps.
type LoadOptions struct {
	// Types keeps only these question types (all when empty).
	Types []string
	// Limit keeps the first Limit selected questions (all when 0).
	Limit int
}

// LoadStats counts what LoadLongMemEval read and left out.
type LoadStats struct {
	Read int `json:"read"`
	// Abstention questions ("_abs") have no evidence: retrieval metrics
	// leave them out. OtherTypes were not asked for.
	Abstention int `json:"abstention"`
	OtherTypes int `json:"other_types"`
	// NoEvidence counts questions without any has_answer turn.
	NoEvidence int `json:"no_evidence"`
	// InvalidTurns counts the turns of selected questions that the
	// transcript reader refused (a session repeated with another date,
	// say): they are left out of the haystack, as tenure ingest
	// --skip-invalid leaves them out.
	InvalidTurns int `json:"invalid_turns"`
}

// LoadLongMemEval reads LongMemEval questions from a JSON file (a list of
// question objects), gzip-compressed or not, keeping those opt selects
// that have evidence. Questions are decoded one at a time, so a file of
// every question costs the memory of the selected ones only.
func LoadLongMemEval(path string, opt LoadOptions) ([]Question, LoadStats, error) {
	var st LoadStats
	for _, t := range opt.Types {
		if !slices.Contains(LongMemEvalTypes, t) {
			return nil, st, tenure.Errorf(tenure.CodeInvalid, "types", "unknown question type %q (want one of %s)", t,
				strings.Join(LongMemEvalTypes, ", "))
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, st, tenure.Errorf(tenure.CodeInvalid, "data",
			"%s is a directory: name the questions file itself (a JSON list, .json or .json.gz, e.g. %s)", path, longMemEvalExample(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, st, &tenure.Error{Code: tenure.CodeInvalid, Field: "data", Message: "cannot read " + path, Err: err}
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if head, err := r.(*bufio.Reader).Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, st, tenure.Errorf(tenure.CodeInvalid, "data", "%s: %v", path, err)
		}
		defer gz.Close()
		r = gz
	}
	fail := func(format string, args ...any) ([]Question, LoadStats, error) {
		return nil, st, tenure.Errorf(tenure.CodeInvalid, "data", "%s: %s", path, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fail("want a JSON list of question objects")
	}
	var out []Question
	for dec.More() && (opt.Limit <= 0 || len(out) < opt.Limit) {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail("question %d: %v", st.Read, err)
		}
		st.Read++
		var head struct {
			ID   string `json:"question_id"`
			Type string `json:"question_type"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fail("question %d: not a question object: %v", st.Read-1, err)
		}
		if strings.HasSuffix(head.ID, "_abs") {
			st.Abstention++
			continue
		}
		if len(opt.Types) > 0 && !slices.Contains(opt.Types, head.Type) {
			st.OtherTypes++
			continue
		}
		q, skipped, err := parseQuestion(raw)
		if err != nil {
			return fail("question %d: %v", st.Read-1, err)
		}
		st.InvalidTurns += skipped
		if len(q.Evidence) == 0 {
			st.NoEvidence++
			continue
		}
		out = append(out, q)
	}
	return out, st, nil
}

// lmeDate is the layout of question_date and haystack_dates.
const lmeDate = "2006/01/02 (Mon) 15:04"

// parseQuestion reads one question object. The harness reads the gold
// fields itself; only the haystack, stripped of its has_answer marks, goes
// to the transcript reader that makes the messages.
// It returns how many turns the reader refused.
func parseQuestion(raw json.RawMessage) (Question, int, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return Question{}, 0, fmt.Errorf("not a question object: %v", err)
	}
	var q Question
	var date string
	for _, f := range []struct {
		key string
		dst any
	}{{"question_id", &q.ID}, {"question_type", &q.Type}, {"question", &q.Question}, {"question_date", &date}} {
		if err := json.Unmarshal(top[f.key], f.dst); err != nil {
			return Question{}, 0, fmt.Errorf("%s: missing or not a string", f.key)
		}
	}
	if q.ID == "" || q.Question == "" {
		return Question{}, 0, fmt.Errorf("question_id and question must not be empty")
	}
	q.Answer = answerText(top["answer"])
	var err error
	if q.Date, err = time.Parse(lmeDate, strings.TrimSpace(date)); err != nil {
		return Question{}, 0, fmt.Errorf("%s: question_date %q is not a date like \"2023/05/30 (Tue) 23:40\"", q.ID, date)
	}
	if raw := top["answer_session_ids"]; raw != nil {
		if err := json.Unmarshal(raw, &q.AnswerSessions); err != nil {
			return Question{}, 0, fmt.Errorf("%s: answer_session_ids: %v", q.ID, err)
		}
	}
	var ids []string
	var sessions [][]map[string]json.RawMessage
	if json.Unmarshal(top["haystack_session_ids"], &ids) != nil || json.Unmarshal(top["haystack_sessions"], &sessions) != nil ||
		len(ids) != len(sessions) {
		return Question{}, 0, fmt.Errorf("%s: want haystack_session_ids and haystack_sessions, lists of the same length", q.ID)
	}
	var evidence []string
	for k, turns := range sessions {
		for j, t := range turns {
			var has bool
			if t["has_answer"] != nil && json.Unmarshal(t["has_answer"], &has) == nil && has {
				evidence = append(evidence, fmt.Sprintf("%s:%d", ids[k], j))
			}
			turns[j] = map[string]json.RawMessage{"role": t["role"], "content": t["content"]}
		}
	}
	stripped, err := json.Marshal(sessions)
	if err != nil {
		return Question{}, 0, err
	}
	haystack, err := json.Marshal(map[string]json.RawMessage{"question_id": top["question_id"],
		"haystack_session_ids": top["haystack_session_ids"], "haystack_dates": top["haystack_dates"], "haystack_sessions": stripped})
	if err != nil {
		return Question{}, 0, err
	}
	res, err := transcript.ReadLongMemEval(bytes.NewReader(haystack))
	if err != nil {
		return Question{}, 0, fmt.Errorf("%s: %w", q.ID, err)
	}
	q.Messages = res.Messages
	have := map[string]bool{}
	for _, m := range res.Messages {
		have[m.ID] = true
	}
	for _, id := range evidence {
		if have[id] { // an empty or refused turn is no message
			q.Evidence = append(q.Evidence, id)
			have[id] = false // a repeated session's turn counts once
		}
	}
	return q, len(res.Problems), nil
}

// longMemEvalExample names a questions file inside dir when there is one,
// so that the error for a directory says what to pass instead.
func longMemEvalExample(dir string) string {
	for _, pattern := range []string{"*.json.gz", "*.json"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return m[0]
		}
	}
	return filepath.Join(dir, "dev.json.gz")
}
