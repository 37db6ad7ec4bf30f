package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// messageLine is one line of Tenure's JSON Lines: a message without the
// fields the store derives.
type messageLine struct {
	ThreadID    string              `json:"thread_id"`
	ID          string              `json:"id"`
	SessionID   string              `json:"session_id"`
	UserID      string              `json:"user_id"`
	ProjectID   string              `json:"project_id"`
	Role        string              `json:"role"`
	Speaker     string              `json:"speaker"`
	Content     string              `json:"content"`
	CreatedAt   time.Time           `json:"created_at"`
	Attachments []tenure.Attachment `json:"attachments"`
}

// MaxLine caps one line of Tenure's JSON Lines.
const MaxLine = tenure.MaxContentLen + 64<<10

// ReadJSONL reads Tenure's message lines: one JSON message object a line,
// decoded strictly (an unknown field is a problem), blank lines skipped.
// Every message must be valid as it is: an empty one is a problem, not a
// turn to leave out.
func ReadJSONL(r io.Reader) (*Result, error) {
	b := newBuilder(JSONL)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		src := Source{Line: n}
		raw, err := jsonx.ValueAt(line, "a message object", n)
		if err != nil {
			b.problem(src, nil, err)
			continue
		}
		m, err := parseMessage(raw)
		if err != nil {
			b.problem(src, &m, err)
			continue
		}
		b.add(m, src)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, tenure.Errorf(tenure.CodeTooLarge, "", "line %d: longer than %d bytes", n+1, MaxLine)
		}
		return nil, &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot read input", Err: err}
	}
	return &b.res, nil
}

func parseMessage(raw []byte) (tenure.Message, error) {
	if raw[0] != '{' {
		return tenure.Message{}, tenure.Errorf(tenure.CodeInvalid, "", "want a message object, got %s", clip(string(raw), 40))
	}
	l, err := jsonx.Decode[messageLine](raw, "message")
	if err != nil {
		return tenure.Message{}, err
	}
	return tenure.Message{ThreadID: l.ThreadID, ID: l.ID, SessionID: l.SessionID, UserID: l.UserID, ProjectID: l.ProjectID,
		Role: l.Role, Speaker: l.Speaker, Content: l.Content, CreatedAt: l.CreatedAt, Attachments: l.Attachments}, nil
}

// clip shortens s to n characters.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
