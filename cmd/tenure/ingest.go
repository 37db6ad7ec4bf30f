package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/eval"
	"github.com/tenure-dev/tenure/sqlite"
)

var ingestSpec = commandSpec{
	name:    "ingest",
	args:    "FILE",
	summary: "import conversation messages (JSONL or a LoCoMo file)",
	detail: `ingest appends the messages of FILE ("-" for standard input) to the
store, all or nothing: a malformed line or field is reported by line and
field, and nothing is imported.

--format jsonl (the default) reads one JSON object a line:
  {"thread_id": "t1", "id": "m1", "role": "user", "speaker": "Ann",
   "content": "...", "created_at": "2023-05-08T13:56:00Z"}
with optional session_id, user_id, project_id and attachments
([{"kind": "photo", "caption": "..."}]). Blank lines are skipped.

--format locomo reads one LoCoMo conversation file: each turn becomes a
message of thread --thread (default: the file's base name) with the turn's
dia_id as its id, the speaker as author, the session's date as created_at
and a shared photo's caption as an attachment.

Re-importing the same messages is a no-op; a known id with other content
is a conflict.`,
	new: func() subcommand { return new(ingestCmd) },
}

type ingestCmd struct {
	common
	format, thread      string
	noProgress, extract bool
}

func (c *ingestCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.format, "format", "jsonl", "input `format`: jsonl or locomo")
	fs.StringVar(&c.thread, "thread", "", "thread `id` for --format locomo (default: the file's base name)")
	fs.BoolVar(&c.noProgress, "no-progress", false, "never show the progress bar (it shows only on a terminal)")
	fs.BoolVar(&c.extract, "extract", true, "then digest the threads imported into (state items and summaries, as 'tenure extract' does); --extract=false skips it")
}

// ingestResult is ingest's JSON output.
type ingestResult struct {
	File     string `json:"file"`
	Messages int    `json:"messages"`
	Appended int    `json:"appended"`
	Skipped  int    `json:"skipped"`
	// Digests say what digesting each thread did (with --extract).
	Digests []threadDigest `json:"digests,omitempty"`
}

func (c *ingestCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(ingestSpec, args, 1); err != nil {
		return err
	}
	p, _, err := c.identity()
	if err != nil {
		return err
	}
	var msgs []tenure.Message
	var lines []int // lines[i] is the input line of msgs[i], for errors
	switch c.format {
	case "jsonl":
		msgs, lines, err = c.readJSONL(sio, args[0])
	case "locomo":
		msgs, err = c.readLoCoMo(args[0])
	default:
		err = tenure.Errorf(tenure.CodeInvalid, "--format", "unknown format %q (want jsonl or locomo)", c.format)
	}
	if err != nil {
		return err
	}
	return c.withStore(ctx, func(st *sqlite.Store) error {
		bar := c.progress(sio, len(msgs))
		res, err := st.ImportMessages(ctx, p, msgs, bar.Set)
		bar.Finish()
		if err != nil {
			return atLine(err, lines)
		}
		out := ingestResult{File: args[0], Messages: len(msgs), Appended: res.Appended, Skipped: res.Skipped}
		if c.extract {
			threads := threadsOf(msgs)
			bar := newProgress(progressOut(sio, c.noProgress), len(threads), "digest", "thread")
			out.Digests = digestThreads(ctx, st, p, threads, bar.Set)
			bar.Finish()
		}
		return c.output(sio, out, func() error {
			_, err := fmt.Fprintf(sio.out, "%s: appended %s, skipped %d already present\n",
				out.File, plural(out.Appended, "message"), out.Skipped)
			for _, d := range out.Digests {
				if err == nil && d.did() {
					_, err = fmt.Fprintln(sio.out, digestNote(d))
				}
			}
			return err
		})
	})
}

// progress returns the import's progress (shown after a second).
func (c *ingestCmd) progress(sio stdio, n int) *progress {
	return newProgress(progressOut(sio, c.noProgress), n, "ingest", "msg")
}

// messageLine is one line of a JSONL import: a message without the fields
// the store derives.
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

// maxLine caps one JSONL line.
const maxLine = tenure.MaxContentLen + 64<<10

func (c *ingestCmd) readJSONL(sio stdio, path string) ([]tenure.Message, []int, error) {
	r, closeFn, err := openInput(sio, path)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var msgs []tenure.Message
	var lines []int
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		raw, err := oneValueAt(line, "a message object", n)
		if err != nil {
			return nil, nil, err
		}
		m, err := parseMessage(raw)
		if err != nil {
			return nil, nil, prefixLine(n, err)
		}
		msgs = append(msgs, m)
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, tenure.Errorf(tenure.CodeTooLarge, "", "line %d: longer than %d bytes", n+1, maxLine)
		}
		return nil, nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "FILE", Message: "cannot read " + path, Err: err}
	}
	if len(msgs) == 0 {
		return nil, nil, tenure.Errorf(tenure.CodeInvalid, "FILE", "%s holds no messages", path)
	}
	return msgs, lines, nil
}

func parseMessage(raw []byte) (tenure.Message, error) {
	if raw[0] != '{' {
		return tenure.Message{}, tenure.Errorf(tenure.CodeInvalid, "", "want a message object, got %s", clip(string(raw), 40))
	}
	l, err := decodeOne[messageLine](raw, "message")
	if err != nil {
		return tenure.Message{}, err
	}
	m := tenure.Message{ThreadID: l.ThreadID, ID: l.ID, SessionID: l.SessionID, UserID: l.UserID, ProjectID: l.ProjectID,
		Role: l.Role, Speaker: l.Speaker, Content: l.Content, CreatedAt: l.CreatedAt, Attachments: l.Attachments}
	return m, m.Validate()
}

func (c *ingestCmd) readLoCoMo(path string) ([]tenure.Message, error) {
	if path == "-" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "FILE", "--format locomo reads a file, not standard input")
	}
	conv, err := eval.LoadConversation(path)
	if err != nil {
		return nil, err
	}
	if c.thread != "" {
		conv.ID = c.thread
	}
	msgs := conv.Messages()
	for i := range msgs {
		if err := msgs[i].Validate(); err != nil {
			return nil, fmt.Errorf("%s: turn %s: %w", path, msgs[i].ID, err)
		}
	}
	return msgs, nil
}

// openInput opens path, or standard input for "-".
func openInput(sio stdio, path string) (io.Reader, func(), error) {
	if path == "-" {
		return sio.in, func() {}, nil
	}
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "FILE", Message: "cannot open " + path, Err: err}
	}
	return f, func() { f.Close() }, nil
}

// prefixLine names the input line in err, keeping its code and field.
func prefixLine(n int, err error) error { return fmt.Errorf("line %d: %w", n, err) }

var batchIndex = regexp.MustCompile(`^\[(\d+)\]\.?`)

// atLine rewrites a store error about message [i] of the batch to name its
// input line instead.
func atLine(err error, lines []int) error {
	te := tenure.AsError(err)
	m := batchIndex.FindStringSubmatch(te.Field)
	if m == nil || lines == nil {
		return err
	}
	i, _ := strconv.Atoi(m[1])
	if i >= len(lines) {
		return err
	}
	out := *te
	out.Field = strings.TrimPrefix(te.Field, m[0])
	return prefixLine(lines[i], &out)
}
