package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/eval"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/transcript"
)

var ingestSpec = commandSpec{
	name:    "ingest",
	args:    "FILE",
	summary: "import conversations: Tenure JSONL, chat exports, LoCoMo, LongMemEval",
	detail: `ingest appends the conversations of FILE ("-" for standard input; gzip
is read as such) to the store, all or nothing: a malformed record or field
is reported by line and field, and nothing is imported. --skip-invalid
imports the valid messages instead and reports each invalid one (line,
field, reason) in the summary and in --json's "invalid"; it exits 0.

--format auto (the default) tells the format from the start of the file:
  jsonl        Tenure messages, one JSON object a line:
               {"thread_id": "t1", "id": "m1", "role": "user",
                "speaker": "Ann", "content": "...",
                "created_at": "2023-05-08T13:56:00Z"}
               with optional session_id, user_id, project_id and attachments
               ([{"kind": "photo", "caption": "..."}]). Blank lines are
               skipped.
  locomo       one LoCoMo conversation: each turn becomes a message of thread
               --thread (default: the file's base name) with its dia_id as id,
               the speaker as author, the session's date as created_at and a
               shared photo's caption as an attachment.
  openai       {"messages": [{"role", "content"}, ...]}: one, a JSON array of
               them or one a line; ChatGPT's conversations.json (the branch
               last shown of each conversation); or ShareGPT's
               {"conversations": [{"from", "value"}, ...]}.
  anthropic    {"system", "messages": [{"role", "content"}, ...]}, content a
               string or text, tool_use and tool_result blocks; or claude.ai's
               conversations.json.
  longmemeval  LongMemEval questions: each question's haystack becomes thread
               question_id, each session a session, turn ids "<session>:<n>";
               questions, answers and evidence marks are not read.
A wrong --format names the format the file looks like.

Chat exports (openai, anthropic) carry no ids and often no times. Each
conversation becomes thread --thread (default: the file's base name), or
NAME-0, NAME-1, ... when the file holds several; turn i gets id m<i> unless
the export gives it one, and its tool calls and tool results become
messages of role tool with ids m<i>.<n>. A turn keeps its timestamp
(created_at, timestamp or create_time: RFC 3339 or Unix seconds); one
without is one second after the turn before, the file's first turn at
--start (default: the file's modification time, or now for standard
input). System and developer prompts, empty turns and content blocks of
other types (images, thinking, files) are left out and counted.

Re-importing the same file is a no-op, also after its modification time
changed: a derived time never makes a conflict. Otherwise a known id with
other content is a conflict, and so is an id the file repeats with other
content (both skipped and reported with --skip-invalid).

With --embedder openai the tenant's messages that have no vector are then
embedded (a text embedded before is not sent again), so that compilations
find them by meaning; if the endpoint fails, the import stands, the summary
says how many are left, and 'tenure embed' (or the next ingest or digest)
embeds them.`,
	new: func() subcommand { return new(ingestCmd) },
}

type ingestCmd struct {
	common
	format, thread, start            string
	skipInvalid, noProgress, extract bool
	embed                            embedFlags
}

func (c *ingestCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.format, "format", "auto", "`format`: auto, jsonl, locomo, openai, anthropic or longmemeval")
	fs.StringVar(&c.thread, "thread", "", "thread `id` of a chat export or LoCoMo file (default: file name)")
	fs.StringVar(&c.start, "start", "", "`time` of a chat export's first turn (default: file's mtime)")
	fs.BoolVar(&c.skipInvalid, "skip-invalid", false, "import the valid messages and report the others")
	fs.BoolVar(&c.noProgress, "no-progress", false, "never show the progress bar (it shows only on a terminal)")
	fs.BoolVar(&c.extract, "extract", true, "then digest the threads imported into (state items and summaries, as 'tenure extract' does); --extract=false skips it")
	c.embed.define(fs, false)
}

// ingestResult is ingest's JSON output.
type ingestResult struct {
	File   string            `json:"file"`
	Format transcript.Format `json:"format"`
	// Messages counts the file's messages now in the store: Appended
	// new ones and Skipped ones already present.
	Messages int `json:"messages"`
	Appended int `json:"appended"`
	Skipped  int `json:"skipped"`
	// Omitted counts what a chat export holds that is not a message.
	transcript.Omitted
	// Invalid lists the messages --skip-invalid left out.
	Invalid []transcript.Problem `json:"invalid"`
	// Digests say what digesting each thread did (with --extract).
	Digests []threadDigest `json:"digests,omitempty"`
	// Vectors says what embedding the tenant's messages did (with
	// --embedder), VectorsError why some were left without a vector.
	Vectors      *semantic.Report `json:"vectors,omitempty"`
	VectorsError *tenure.Error    `json:"vectors_error,omitempty"`
}

func (c *ingestCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(ingestSpec, args, 1); err != nil {
		return err
	}
	p, s, err := c.identity()
	if err != nil {
		return err
	}
	if err := c.embed.setUp(); err != nil {
		return err
	}
	in, err := c.read(sio, args[0])
	if err != nil {
		return err
	}
	res := in.res
	if n := len(res.Problems); n > 0 && !c.skipInvalid {
		err := res.Problems[0].Err()
		if hinted := in.hint(err); hinted != err {
			return hinted // the other problems are likely the same
		}
		if n > 1 {
			err = fmt.Errorf("%w (and %d more; --skip-invalid imports the valid messages)", err, n-1)
		}
		return err
	}
	if len(res.Messages) == 0 {
		err := tenure.Errorf(tenure.CodeInvalid, "FILE", "%s holds no messages", args[0])
		if n := len(res.Problems); n > 0 {
			err = tenure.Errorf(tenure.CodeInvalid, "FILE", "%s holds no valid messages (%s, the first: %s)", args[0],
				plural(n, "invalid record"), res.Problems[0])
		}
		return in.hint(err)
	}
	return c.withStoreOptions(ctx, c.embed.storeOptions(sqlite.Options{}), func(st *dbStore) error {
		w := importer{st: st, p: p, scope: s, skipInvalid: c.skipInvalid}
		bar := c.progress(sio, len(res.Messages))
		n, err := w.run(ctx, res, bar.Set)
		bar.Finish()
		if err != nil {
			return err
		}
		out := ingestResult{File: args[0], Format: res.Format, Messages: n.Appended + n.Skipped, Appended: n.Appended,
			Skipped: n.Skipped, Omitted: res.Omitted, Invalid: append(res.Problems, w.problems...)}
		if out.Invalid == nil {
			out.Invalid = []transcript.Problem{}
		}
		// In input order, where lines tell it: the store's refusals come
		// after the parser's problems.
		slices.SortStableFunc(out.Invalid, func(a, b transcript.Problem) int { return cmp.Compare(a.Line, b.Line) })
		if st.Embedding() != nil {
			bar := newProgress(progressOut(sio, c.noProgress), 0, "embed", "msg")
			rep, err := st.EmbedMessages(ctx, p.TenantID, "", bar.SetOf)
			bar.Finish()
			out.Vectors = &rep
			if err != nil {
				out.VectorsError = tenure.AsError(err)
			}
		}
		if c.extract {
			threads := threadsOf(res.Messages)
			bar := newProgress(progressOut(sio, c.noProgress), len(threads), "digest", "thread")
			out.Digests = digestThreads(ctx, st, p, threads, bar.Set)
			bar.Finish()
		}
		return c.output(sio, out, func() error { return printIngest(sio.out, out) })
	})
}

// printIngest writes ingest's summary for people.
func printIngest(w io.Writer, out ingestResult) error {
	name := out.File
	if out.Format != transcript.JSONL {
		name += " (" + string(out.Format) + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: appended %s, skipped %d already present\n", name, plural(out.Appended, "message"), out.Skipped)
	if !out.Omitted.Zero() {
		fmt.Fprintf(&b, "%s: left out %s\n", name, out.Omitted)
	}
	if len(out.Invalid) > 0 {
		fmt.Fprintf(&b, "%s: skipped %s:\n", name, plural(len(out.Invalid), "invalid message"))
		for _, p := range out.Invalid {
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	if v := out.Vectors; v != nil {
		fmt.Fprintf(&b, "%s: %s\n", name, vectorsNote(*v, out.VectorsError))
	}
	for _, d := range out.Digests {
		if d.did() {
			fmt.Fprintln(&b, digestNote(d))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// progress returns the import's progress (shown after a second).
func (c *ingestCmd) progress(sio stdio, n int) *progress {
	return newProgress(progressOut(sio, c.noProgress), n, "ingest", "msg")
}

// input is a file read: its messages and what its start looked like.
type input struct {
	res *transcript.Result
	// explicit is the --format given, "" for auto.
	explicit transcript.Format
	looks    transcript.Detection
}

// hint adds to err the format the file looks like, when --format named
// another.
func (in *input) hint(err error) error {
	d := in.looks
	switch {
	case in.explicit == "" || d.Format == in.explicit:
		return err
	case d.Format != "":
		return fmt.Errorf("%w (this looks like %s: use --format %s, or leave --format out)", err, d.Format.Title(), d.Format)
	case d.Note != "":
		return fmt.Errorf("%w (this looks like %s)", err, d.Note)
	}
	return err
}

// read reads FILE in the format of --format, or the one it looks like.
func (c *ingestCmd) read(sio stdio, path string) (*input, error) {
	format, err := transcript.ParseFormat("--format", c.format)
	if err != nil {
		return nil, err
	}
	in := &input{}
	if format != transcript.Auto {
		in.explicit = format
	}
	r, modTime, closeFn, err := openInput(sio, path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	br := bufio.NewReaderSize(r, transcript.SniffLen)
	gzipped := false
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "FILE", Message: "cannot read gzip data of " + path, Err: err}
		}
		defer zr.Close()
		br, gzipped = bufio.NewReaderSize(zr, transcript.SniffLen), true
	}
	start, _ := br.Peek(transcript.SniffLen) // less at the end of the input
	in.looks = transcript.Detect(start)
	if len(bytes.TrimSpace(start)) == 0 {
		in.res = &transcript.Result{Format: format} // no messages, whatever the format
		return in, nil
	}
	if format == transcript.Auto {
		if format = in.looks.Format; format == "" {
			return nil, unknownFormat(path, in.looks)
		}
	}
	if err := c.checkFlags(format); err != nil {
		return nil, err
	}
	if format == transcript.LoCoMo {
		if path == "-" || gzipped {
			return nil, tenure.Errorf(tenure.CodeInvalid, "FILE", "LoCoMo is read from an uncompressed file, not standard input or gzip")
		}
		in.res, err = c.readLoCoMo(path)
		return in, in.hint(err)
	}
	opt := transcript.Options{Name: c.thread, Start: modTime}
	if opt.Name == "" {
		opt.Name = baseName(path)
	}
	if c.start != "" {
		t, err := tenure.ParseTime("--start", c.start)
		if err != nil {
			return nil, err
		}
		opt.Start = t.UTC()
	}
	if in.res, err = transcript.Parse(br, format, opt); err != nil {
		return nil, in.hint(err)
	}
	return in, nil
}

// checkFlags refuses --thread and --start where the format names its
// threads and dates its turns itself.
func (c *ingestCmd) checkFlags(f transcript.Format) error {
	chat := f == transcript.OpenAI || f == transcript.Anthropic
	if c.thread != "" && !chat && f != transcript.LoCoMo {
		return tenure.Errorf(tenure.CodeInvalid, "--thread", "%s names its own threads (--thread is for chat exports and LoCoMo)", f.Title())
	}
	if c.start != "" && !chat {
		return tenure.Errorf(tenure.CodeInvalid, "--start", "%s dates its own messages (--start is for chat exports)", f.Title())
	}
	return nil
}

// unknownFormat is the error for a file no format fits.
func unknownFormat(path string, d transcript.Detection) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot tell the format of %s: it is %s", path, d.Looks)
	if d.Note != "" {
		fmt.Fprintf(&b, ", which looks like %s", d.Note)
	}
	b.WriteString(". ingest reads (--format):")
	for _, f := range transcript.Formats {
		fmt.Fprintf(&b, "\n  %-12s %s", f, f.Shape())
	}
	return tenure.Errorf(tenure.CodeInvalid, "FILE", "%s", b.String())
}

// baseName is the file's name without directory and extensions
// ("chats.jsonl.gz" is "chats"), "stdin" for standard input.
func baseName(path string) string {
	if path == "-" {
		return "stdin"
	}
	name := filepath.Base(path)
	if strings.HasSuffix(name, ".gz") {
		name = strings.TrimSuffix(name, ".gz")
	}
	return strings.TrimSuffix(name, filepath.Ext(name))
}

func (c *ingestCmd) readLoCoMo(path string) (*transcript.Result, error) {
	conv, err := eval.LoadConversation(path)
	if err != nil {
		return nil, err
	}
	if c.thread != "" {
		conv.ID = c.thread
	}
	var srcs []transcript.Source
	for _, s := range conv.Sessions {
		for i := range s.Turns {
			srcs = append(srcs, transcript.Source{Path: fmt.Sprintf("session_%d[%d]", s.N, i)})
		}
	}
	return transcript.Collect(transcript.LoCoMo, conv.Messages(), srcs), nil
}

// openInput opens path, or standard input for "-", with its modification
// time (now for standard input), to the second.
func openInput(sio stdio, path string) (io.Reader, time.Time, func(), error) {
	if path == "-" {
		return sio.in, time.Now().UTC().Truncate(time.Second), func() {}, nil
	}
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, time.Time{}, nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "FILE", Message: "cannot open " + path, Err: err}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, time.Time{}, nil, &tenure.Error{Code: tenure.CodeInvalid, Field: "FILE", Message: "cannot read " + path, Err: err}
	}
	return f, fi.ModTime().UTC().Truncate(time.Second), func() { f.Close() }, nil
}
