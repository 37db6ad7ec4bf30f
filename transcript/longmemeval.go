package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// ReadLongMemEval reads LongMemEval questions ("LongMemEval: Benchmarking
// Chat Assistants on Long-Term Interactive Memory", Wu et al., ICLR 2025):
// a JSON array of question objects, one a line, or one question. Each
// question's haystack becomes a thread named by its question_id: session
// haystack_session_ids[k] dated haystack_dates[k] ("2023/05/30 (Tue)
// 23:40"), its turns one second apart with ids "<session id>:<turn>".
// Only the haystack is read: the question, its answer, the evidence
// sessions and the has_answer marks never reach a message.
func ReadLongMemEval(r io.Reader) (*Result, error) {
	b := newBuilder(LongMemEval)
	err := eachValue(r, "a question object", func(raw json.RawMessage, at place, err error) {
		if err == nil {
			err = longMemEvalQuestion(b, at, raw)
		}
		if err != nil {
			b.problem(at.source(""), nil, err)
		}
	})
	if err != nil {
		return nil, err
	}
	return &b.res, nil
}

// lmeDate is the layout of haystack_dates.
const lmeDate = "2006/01/02 (Mon) 15:04"

func longMemEvalQuestion(b *builder, at place, raw json.RawMessage) error {
	q, err := decodeObject(raw)
	if err != nil {
		return err
	}
	thread, err := q.str("question_id")
	if err != nil {
		return err
	}
	if thread == "" {
		return tenure.Errorf(tenure.CodeInvalid, "question_id", "required: it names the question's thread")
	}
	var ids, dates []string
	var sessions [][]json.RawMessage
	for _, f := range []struct {
		key string
		dst any
	}{{"haystack_session_ids", &ids}, {"haystack_dates", &dates}, {"haystack_sessions", &sessions}} {
		if !q.has(f.key) {
			return tenure.Errorf(tenure.CodeInvalid, f.key, "required")
		}
		if err := json.Unmarshal(q[f.key], f.dst); err != nil {
			return tenure.Errorf(tenure.CodeInvalid, f.key, "want an array: %v", err)
		}
	}
	if len(ids) != len(sessions) || len(dates) != len(sessions) {
		return tenure.Errorf(tenure.CodeInvalid, "haystack_sessions", "%d sessions, %d session ids and %d dates: want as many of each",
			len(sessions), len(ids), len(dates))
	}
	for k, turns := range sessions {
		date, err := time.Parse(lmeDate, strings.TrimSpace(dates[k]))
		if err != nil {
			b.problem(at.source(fmt.Sprintf("haystack_dates[%d]", k)), &tenure.Message{ThreadID: thread, SessionID: ids[k]},
				tenure.Errorf(tenure.CodeInvalid, "", "%q is not a date like \"2023/05/30 (Tue) 23:40\"", dates[k]))
			continue
		}
		for j, raw := range turns {
			path := fmt.Sprintf("haystack_sessions[%d][%d]", k, j)
			m := tenure.Message{ThreadID: thread, ID: fmt.Sprintf("%s:%d", ids[k], j), SessionID: ids[k],
				CreatedAt: date.Add(time.Duration(j) * time.Second)}
			t, err := decodeObject(raw)
			if err == nil {
				m.Role, err = t.str("role")
			}
			if err == nil {
				m.Content, err = t.str("content")
			}
			if err == nil && m.Role != "user" && m.Role != "assistant" {
				err = tenure.Errorf(tenure.CodeInvalid, "role", "unknown value %q (want user or assistant)", m.Role)
			}
			if err != nil {
				b.problem(at.source(path), &m, err)
				continue
			}
			if strings.TrimSpace(m.Content) == "" {
				b.res.Omitted.EmptyTurns++
				continue
			}
			b.add(m, at.source(path))
		}
	}
	return nil
}
