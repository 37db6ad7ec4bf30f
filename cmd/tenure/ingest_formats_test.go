package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/transcript"
)

// fixture copies ../../transcript/testdata/name into a temp dir, so that
// a test may change its modification time, and returns the copy's path.
func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, string(data))
}

// storedMessages lists a thread's stored messages.
func storedMessages(t *testing.T, db, thread string) []tenure.Message {
	t.Helper()
	var msgs []tenure.Message
	err := withDB(context.Background(), db, func(st *dbStore) (err error) {
		msgs, err = st.Messages(context.Background(), localOwner(), tenure.MessageFilter{ThreadID: thread})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// touch sets a file's modification time.
func touch(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestIngestFormats imports a fixture of every format without --format,
// then with it, and again after the file's modification time changed:
// re-importing is a no-op even where times were derived from it.
func TestIngestFormats(t *testing.T) {
	for _, c := range []struct {
		file     string
		format   transcript.Format
		appended int
		thread   string // a thread the import fills
	}{
		{"tenure.jsonl", transcript.JSONL, 3, "support-42"},
		{"openai.json", transcript.OpenAI, 6, "openai"},
		{"sharegpt.json", transcript.OpenAI, 7, "sharegpt-1"},
		{"chatgpt.json", transcript.OpenAI, 8, "chatgpt-0"},
		{"anthropic.json", transcript.Anthropic, 9, "anthropic"},
		{"claude.json", transcript.Anthropic, 2, "claude"},
		{"longmemeval.json", transcript.LongMemEval, 6, "q-commute"},
		{"locomo", transcript.LoCoMo, 8, "locomo"},
	} {
		t.Run(c.file, func(t *testing.T) {
			db := newDB(t)
			var file string
			if c.format == transcript.LoCoMo {
				data, err := os.ReadFile("../../eval/testdata/locomo/tiny.json")
				if err != nil {
					t.Fatal(err)
				}
				file = writeFile(t, "locomo.json", string(data))
			} else {
				file = fixture(t, c.file)
			}
			touch(t, file, time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC))
			got := mustJSON[ingestResult](t, "", "ingest", "--db", db, file)
			if got.Format != c.format || got.Appended != c.appended || got.Messages != c.appended || len(got.Invalid) != 0 {
				t.Errorf("import = %+v, want %d appended as %s", got, c.appended, c.format)
			}
			if n := len(storedMessages(t, db, c.thread)); n == 0 {
				t.Errorf("thread %q holds no messages", c.thread)
			}
			touch(t, file, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			again := mustJSON[ingestResult](t, "", "ingest", "--db", db, "--format", string(c.format), file)
			if again.Appended != 0 || again.Skipped != c.appended {
				t.Errorf("re-import = %+v, want %d skipped", again, c.appended)
			}
		})
	}
}

// TestIngestHint checks issue 15's LoCoMo file read as JSONL, and the
// like: a wrong --format fails with the format the file looks like.
func TestIngestHint(t *testing.T) {
	for _, c := range []struct {
		name, file, format, want string
	}{
		{"LoCoMoAsJSONL", "locomo", "jsonl", "line 1, column 2: malformed JSON: unexpected end of input (this looks like a LoCoMo file: use --format locomo, or leave --format out)"},
		{"LoCoMoAsOpenAI", "locomo", "openai", "messages: required: want {\"messages\": [{\"role\", \"content\"}, ...]} (this looks like a LoCoMo file: use --format locomo"},
		{"JSONLAsOpenAI", "tenure.jsonl", "openai", "line 1: messages: required: want {\"messages\": [{\"role\", \"content\"}, ...]} (this looks like Tenure message lines: use --format jsonl"},
		{"OpenAIAsAnthropic", "openai.json", "anthropic", "messages[0].role: unknown value \"system\" (want user or assistant; a system prompt is the transcript's \"system\") (this looks like an OpenAI chat export: use --format openai"},
		{"OpenAIAsJSONL", "messy.jsonl", "jsonl", "line 1: prompt: unknown field (not a message field) (this looks like an OpenAI chat export: use --format openai"},
		{"LongMemEvalAsLoCoMo", "longmemeval.json", "locomo", "not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage (this looks like a LongMemEval file: use --format longmemeval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := "../../eval/testdata/locomo/tiny.json"
			if c.file != "locomo" {
				file = fixture(t, c.file)
			}
			db := newDB(t)
			r := tenureCLI(t, "", "ingest", "--db", db, "--format", c.format, file)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, c.want)
			}
		})
	}
	t.Run("OKLoCoMoDetected", func(t *testing.T) {
		got := mustJSON[ingestResult](t, "", "ingest", "--db", newDB(t), "../../eval/testdata/locomo/tiny.json")
		if got.Format != transcript.LoCoMo || got.Appended != 8 {
			t.Errorf("import = %+v, want 8 turns read as locomo", got)
		}
	})
}

// TestIngestUnknownFormat checks that a file no format fits fails with
// what it looked like and the formats ingest reads.
func TestIngestUnknownFormat(t *testing.T) {
	for _, c := range []struct {
		name, input, looks string
	}{
		{"CSV", "thread,text\nt1,hello\n", `it is text starting "thread,text\nt1,hello"`},
		{"OtherJSON", `{"name": "Ann", "age": 3}`, `it is a JSON object with keys "name", "age"`},
		{"TenureArray", `[{"thread_id": "t1", "id": "m1"}]`, `it is a JSON array of objects, the first with keys "thread_id", "id", which looks like a JSON array of Tenure messages: --format jsonl wants one a line`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := tenureCLI(t, c.input, "ingest", "--db", newDB(t), "-")
			if r.code != 2 || !strings.Contains(r.stderr, "cannot tell the format of -: "+c.looks) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, c.looks)
			}
			for _, f := range transcript.Formats {
				if !strings.Contains(r.stderr, "\n  "+string(f)+" ") {
					t.Errorf("the error does not list format %s:\n%s", f, r.stderr)
				}
			}
		})
	}
}

// TestIngestSkipInvalid imports a messy chat export (an empty assistant
// turn, a whitespace turn, a system prompt and an id repeated with other
// content): all or nothing by default, the valid messages with
// --skip-invalid, each skipped one reported in text and in JSON.
func TestIngestSkipInvalid(t *testing.T) {
	db := newDB(t)
	file := fixture(t, "messy.jsonl")
	r := tenureCLI(t, "", "ingest", "--db", db, file)
	want := `line 3: messages[2].id: message "QWJhYvA_0-2" appears twice in thread "messy-1" with other content (first at line 3, messages[1])`
	if r.code != 5 || r.stderr != "tenure: "+want+"\n" {
		t.Fatalf("default: exit %d, stderr %q; want 5 and %q", r.code, r.stderr, want)
	}
	for _, thread := range []string{"messy-0", "messy-1", "messy-2"} {
		if n := len(storedMessages(t, db, thread)); n != 0 {
			t.Fatalf("a failed import stored %d messages in %s", n, thread)
		}
	}
	out := mustCLI(t, "", "ingest", "--db", db, "--skip-invalid", "--extract=false", file).stdout
	wantOut := file + " (openai): appended 7 messages, skipped 0 already present\n" +
		file + " (openai): left out 2 empty turns, 1 system message\n" +
		file + " (openai): skipped 1 invalid message:\n" +
		"  " + want + "\n"
	if out != wantOut {
		t.Errorf("output:\n%s\nwant:\n%s", out, wantOut)
	}
	got := mustJSON[ingestResult](t, "", "ingest", "--db", db, "--skip-invalid", file)
	wantInvalid := transcript.Problem{Line: 3, Field: "messages[2].id", ThreadID: "messy-1", ID: "QWJhYvA_0-2", Code: tenure.CodeConflict,
		Reason: `message "QWJhYvA_0-2" appears twice in thread "messy-1" with other content (first at line 3, messages[1])`}
	if got.Appended != 0 || got.Skipped != 7 || got.EmptyTurns != 2 || got.SystemMessages != 1 ||
		len(got.Invalid) != 1 || got.Invalid[0] != wantInvalid {
		t.Errorf("re-import = %+v\nwant 7 skipped, 2 empty turns, 1 system message and invalid %+v", got, wantInvalid)
	}
	haiku := storedMessages(t, db, "messy-1")
	if len(haiku) != 2 || !strings.HasPrefix(haiku[1].Content, "Yellow tram climbing") {
		t.Errorf("messy-1 = %+v, want the question and the first answer", haiku)
	}
}

// TestIngestSkipInvalidStore checks --skip-invalid against stored
// messages and on Tenure's own JSONL, where an empty message stays an
// error without it.
func TestIngestSkipInvalidStore(t *testing.T) {
	db := newDB(t)
	first := fixture(t, "tenure.jsonl")
	mustCLI(t, "", "ingest", "--db", db, first)
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "I have opened a replacement request.", "A replacement is on its way.", 1) +
		`{"thread_id": "support-42", "id": "m4", "role": "user", "speaker": "Dana", "content": "Thanks!", "created_at": "2024-03-04T09:16:00Z"}` + "\n" +
		`{"thread_id": "support-42", "id": "m5", "role": "assistant", "speaker": "Helpdesk", "content": "", "created_at": "2024-03-04T09:17:00Z"}` + "\n"
	r := tenureCLI(t, changed, "ingest", "--db", db, "-")
	if r.code != 2 || !strings.Contains(r.stderr, "line 6: content: a message needs content or an attachment") {
		t.Fatalf("default: exit %d, stderr %q; want the empty message as an error", r.code, r.stderr)
	}
	if n := len(storedMessages(t, db, "support-42")); n != 3 {
		t.Fatalf("a failed import changed the thread: %d messages", n)
	}
	got := mustJSON[ingestResult](t, changed, "ingest", "--db", db, "--skip-invalid", "-")
	want := []transcript.Problem{
		{Line: 2, Field: "id", ThreadID: "support-42", ID: "m2", Code: tenure.CodeConflict,
			Reason: `message "m2" already exists in thread "support-42" with other content`},
		{Line: 6, Field: "content", ThreadID: "support-42", ID: "m5", Code: tenure.CodeInvalid, Reason: "a message needs content or an attachment"},
	}
	if got.Appended != 1 || got.Skipped != 2 || len(got.Invalid) != 2 || got.Invalid[0] != want[0] || got.Invalid[1] != want[1] {
		t.Errorf("import = %+v\nwant 1 appended, 2 skipped, invalid %+v", got, want)
	}
	msgs := storedMessages(t, db, "support-42")
	if len(msgs) != 4 || msgs[1].Content != "Sorry about that, Dana. I have opened a replacement request." || msgs[3].ID != "m4" {
		t.Errorf("thread = %+v, want m1-m3 unchanged and m4", msgs)
	}
}

// TestIngestChatTimes checks the times of an export without timestamps:
// --start, else the file's modification time, one second per turn; a
// re-import after the file was touched is a no-op, one that changed a
// turn's text is a conflict.
func TestIngestChatTimes(t *testing.T) {
	db := newDB(t)
	file := fixture(t, "openai.json")
	mustCLI(t, "", "ingest", "--db", db, "--start", "2024-03-04T09:00:00Z", "--thread", "trip", file)
	if msgs := storedMessages(t, db, "trip"); len(msgs) != 6 || msgs[0].ID != "m1" ||
		!msgs[0].CreatedAt.Equal(time.Date(2024, 3, 4, 9, 0, 1, 0, time.UTC)) || msgs[1].ID != "m2.0" || msgs[1].Role != "tool" {
		t.Errorf("--start: thread = %+v", msgs)
	}
	touch(t, file, time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	mustCLI(t, "", "ingest", "--db", db, file)
	msgs := storedMessages(t, db, "openai")
	if len(msgs) != 6 || !msgs[5].CreatedAt.Equal(time.Date(2024, 5, 6, 7, 8, 15, 0, time.UTC)) {
		t.Errorf("mtime: thread = %+v, want the last turn 6 s after the file's modification time", msgs)
	}
	touch(t, file, time.Now())
	if again := mustJSON[ingestResult](t, "", "ingest", "--db", db, file); again.Appended != 0 || again.Skipped != 6 {
		t.Errorf("re-import after touch = %+v, want 6 skipped", again)
	}
	if msgs := storedMessages(t, db, "openai"); !msgs[5].CreatedAt.Equal(time.Date(2024, 5, 6, 7, 8, 15, 0, time.UTC)) {
		t.Errorf("a re-import moved the stored times: %+v", msgs[5])
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := writeFile(t, "openai.json", strings.Replace(string(data), "Pack a light jacket.", "Pack an umbrella.", 1))
	r := tenureCLI(t, "", "ingest", "--db", db, edited)
	if r.code != 5 || !strings.Contains(r.stderr, `messages[4].id: message "m4" already exists in thread "openai" with other content`) {
		t.Errorf("edited re-import: exit %d, stderr %q; want a conflict naming messages[4]", r.code, r.stderr)
	}
}

// TestIngestInputs checks standard input, gzip and the flags that apply
// to some formats only.
func TestIngestInputs(t *testing.T) {
	t.Run("OKStdin", func(t *testing.T) {
		db := newDB(t)
		data, err := os.ReadFile(fixture(t, "anthropic.json"))
		if err != nil {
			t.Fatal(err)
		}
		mustCLI(t, string(data), "ingest", "--db", db, "-")
		if n := len(storedMessages(t, db, "stdin")); n != 9 {
			t.Errorf("thread stdin holds %d messages, want 9", n)
		}
	})
	t.Run("OKGzip", func(t *testing.T) {
		data, err := os.ReadFile(fixture(t, "longmemeval.json"))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		db := newDB(t)
		got := mustJSON[ingestResult](t, "", "ingest", "--db", db, writeFile(t, "dev.json.gz", b.String()))
		if got.Format != transcript.LongMemEval || got.Appended != 6 || got.EmptyTurns != 1 {
			t.Errorf("import = %+v, want 6 messages and 1 empty turn of LongMemEval", got)
		}
		for _, m := range storedMessages(t, db, "q-commute") {
			if strings.Contains(m.Content, "zz") {
				t.Errorf("a question or answer reached the store: %+v", m)
			}
		}
	})
	for _, c := range []struct {
		name, file, field string
		flags             []string
	}{
		{"ErrThreadJSONL", "tenure.jsonl", "--thread", []string{"--thread", "x"}},
		{"ErrThreadLongMemEval", "longmemeval.json", "--thread", []string{"--thread", "x"}},
		{"ErrStartJSONL", "tenure.jsonl", "--start", []string{"--start", "2024-01-01"}},
		{"ErrStartBad", "openai.json", "--start", []string{"--start", "Friday"}},
		{"ErrFormat", "openai.json", "--format", []string{"--format", "csv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"ingest", "--db", newDB(t), "--json", fixture(t, c.file)}, c.flags...)
			r := tenureCLI(t, "", args...)
			if r.code != 2 || !strings.Contains(r.stderr, `"field": "`+c.field+`"`) {
				t.Errorf("exit %d, stderr %q; want 2 naming %s", r.code, r.stderr, c.field)
			}
		})
	}
	t.Run("ErrLoCoMoStdin", func(t *testing.T) {
		data, err := os.ReadFile("../../eval/testdata/locomo/tiny.json")
		if err != nil {
			t.Fatal(err)
		}
		if r := tenureCLI(t, string(data), "ingest", "--db", newDB(t), "-"); r.code != 2 || !strings.Contains(r.stderr, "not standard input") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

func TestIngestHelp(t *testing.T) {
	help := mustCLI(t, "", "help", "ingest").stdout
	for _, w := range []string{"--format auto", "--skip-invalid", "--start", "m<i>", "NAME-0", "modification time"} {
		if !strings.Contains(help, w) {
			t.Errorf("help ingest lacks %q", w)
		}
	}
	for _, f := range transcript.Formats {
		if !strings.Contains(help, "\n  "+string(f)+" ") {
			t.Errorf("help ingest does not describe format %s", f)
		}
	}
}

// TestIngestSkipInvalidRefused checks a message only the store refuses
// (another user's, which the owner may not write): the import fails
// naming its line, or with --skip-invalid leaves it out and reports it.
func TestIngestSkipInvalidRefused(t *testing.T) {
	input := `{"thread_id": "t", "id": "m1", "role": "user", "content": "hi", "created_at": "2024-01-01T00:00:00Z"}` + "\n" +
		`{"thread_id": "t", "id": "m2", "user_id": "bob", "role": "user", "content": "bob's", "created_at": "2024-01-01T00:00:01Z"}` + "\n"
	db := newDB(t)
	if r := tenureCLI(t, input, "ingest", "--db", db, "-"); r.code != 4 || !strings.Contains(r.stderr, `line 2: user_id: principal "local" may not write for user "bob"`) {
		t.Fatalf("default: exit %d, stderr %q; want 4 naming line 2", r.code, r.stderr)
	}
	got := mustJSON[ingestResult](t, input, "ingest", "--db", db, "--skip-invalid", "-")
	want := transcript.Problem{Line: 2, Field: "user_id", ThreadID: "t", ID: "m2", Code: tenure.CodeForbidden,
		Reason: `principal "local" may not write for user "bob"`}
	if got.Appended != 1 || len(got.Invalid) != 1 || got.Invalid[0] != want {
		t.Errorf("import = %+v, want 1 appended and invalid %+v", got, want)
	}
}
