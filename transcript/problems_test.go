package transcript_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/transcript"
)

// TestProblems reads inputs holding one bad record among good ones: the
// bad one is a problem naming its line and field, the good ones are read.
// (A file on one line is JSON Lines: its problems are on line 1.)
func TestProblems(t *testing.T) {
	ok := `{"messages": [{"role": "user", "content": "fine"}]}`
	for _, c := range []struct {
		name   string
		format transcript.Format
		input  string
		want   transcript.Problem
		good   int // messages read
	}{
		{"ErrMalformedLine", transcript.OpenAI, ok + "\n" + `{"messages": [}` + "\n" + ok,
			transcript.Problem{Line: 2, Code: tenure.CodeInvalid, Reason: "line 2, column 15: malformed JSON"}, 2},
		{"ErrNoMessages", transcript.OpenAI, ok + "\n" + `{"prompt": "hi"}`,
			transcript.Problem{Line: 2, Field: "messages", ThreadID: "chat-1", Code: tenure.CodeInvalid, Reason: "required"}, 1},
		{"ErrNotAnObject", transcript.OpenAI, `[` + ok + `, 3]`,
			transcript.Problem{Field: "[1]", Code: tenure.CodeInvalid, Reason: "want a conversation object, got a number"}, 1},
		{"ErrRole", transcript.OpenAI, `{"messages": [{"role": "robot", "content": "beep"}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].role", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: `unknown value "robot"`}, 1},
		{"ErrContentType", transcript.OpenAI, `{"messages": [{"role": "user", "content": 42}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].content", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: "want a string or an array of content blocks, got a number"}, 1},
		{"ErrPartText", transcript.OpenAI, `{"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].content[0].text", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: "want a string, got a number"}, 1},
		{"ErrToolCall", transcript.OpenAI, `{"messages": [{"role": "assistant", "tool_calls": [{"type": "function"}]}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].tool_calls[0].function", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: "required"}, 1},
		{"ErrTimestamp", transcript.OpenAI, `{"messages": [{"role": "user", "content": "hi", "timestamp": "yesterday"}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].timestamp", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: `"yesterday" is not a time`}, 1},
		{"ErrTimestampRange", transcript.OpenAI, `{"messages": [{"role": "user", "content": "hi", "created_at": "10000-01-01T00:00:00Z"}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].created_at", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: `"10000-01-01T00:00:00Z" is not a time`}, 1},
		{"ErrSpeaker", transcript.OpenAI, `{"messages": [{"role": "user", "name": "Ann\u0007", "content": "hi"}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].speaker", ThreadID: "chat", ID: "m0", Code: tenure.CodeInvalid, Reason: "control character"}, 1},
		{"ErrRepeatedID", transcript.OpenAI, `{"messages": [{"id": "a", "role": "user", "content": "hi"}, {"id": "a", "role": "user", "content": "bye"}]}`,
			transcript.Problem{Line: 1, Field: "messages[1].id", ThreadID: "chat", ID: "a", Code: tenure.CodeConflict,
				Reason: `message "a" appears twice in thread "chat" with other content (first at line 1, messages[0])`}, 1},
		{"ErrChatGPTRole", transcript.OpenAI, `{"mapping": {"r": {"message": null, "children": ["x"]}, "x": {"parent": "r", "message": {"author": {"role": "bot"}, "content": {"content_type": "text", "parts": ["hi"]}}}}}`,
			transcript.Problem{Line: 1, Field: `mapping["x"].message.author.role`, ThreadID: "chat", Code: tenure.CodeInvalid, Reason: `unknown value "bot"`}, 0},
		{"ErrShareGPTFrom", transcript.OpenAI, `{"conversations": [{"from": "narrator", "value": "..."}, {"from": "human", "value": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "conversations[0].from", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: `unknown value "narrator"`}, 1},
		{"ErrAnthropicSystemRole", transcript.Anthropic, `{"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].role", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: `unknown value "system"`}, 1},
		{"ErrAnthropicBlock", transcript.Anthropic, `{"messages": [{"role": "user", "content": ["hi", 3]}, {"role": "user", "content": "hi"}]}`,
			transcript.Problem{Line: 1, Field: "messages[0].content[1]", ThreadID: "chat", Code: tenure.CodeInvalid, Reason: "want an object, got a number"}, 1},
		{"ErrLongMemEvalLengths", transcript.LongMemEval, `[{"question_id": "q", "haystack_session_ids": ["s"], "haystack_dates": [], "haystack_sessions": [[]]}]`,
			transcript.Problem{Field: "[0].haystack_sessions", Code: tenure.CodeInvalid, Reason: "1 sessions, 1 session ids and 0 dates"}, 0},
		{"ErrLongMemEvalDate", transcript.LongMemEval, `{"question_id": "q", "haystack_session_ids": ["s", "t"], "haystack_dates": ["May 1", "2023/05/20 (Sat) 08:15"], "haystack_sessions": [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]]}`,
			transcript.Problem{Line: 1, Field: "haystack_dates[0]", ThreadID: "q", Code: tenure.CodeInvalid, Reason: `"May 1" is not a date`}, 1},
		{"ErrLongMemEvalRole", transcript.LongMemEval, `{"question_id": "q", "haystack_session_ids": ["s"], "haystack_dates": ["2023/05/20 (Sat) 08:15"], "haystack_sessions": [[{"role": "narrator", "content": "a"}, {"role": "user", "content": "b"}]]}`,
			transcript.Problem{Line: 1, Field: "haystack_sessions[0][0].role", ThreadID: "q", ID: "s:0", Code: tenure.CodeInvalid, Reason: `unknown value "narrator"`}, 1},
		{"ErrJSONLField", transcript.JSONL, `{"thread_id": "t", "id": "m1", "role": "user", "content": "hi", "created_at": "2024-01-01T00:00:00Z", "tokens": 3}` + "\n" +
			`{"thread_id": "t", "id": "m2", "role": "user", "content": "hi", "created_at": "2024-01-01T00:00:00Z"}`,
			transcript.Problem{Line: 1, Field: "tokens", Code: tenure.CodeInvalid, Reason: "unknown field"}, 1},
		{"ErrJSONLEmpty", transcript.JSONL, `{"thread_id": "t", "id": "m1", "role": "user", "content": "", "created_at": "2024-01-01T00:00:00Z"}`,
			transcript.Problem{Line: 1, Field: "content", ThreadID: "t", ID: "m1", Code: tenure.CodeInvalid, Reason: "a message needs content or an attachment"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := parse(t, c.format, c.input)
			if len(res.Problems) != 1 {
				t.Fatalf("problems = %+v, want one", res.Problems)
			}
			got := res.Problems[0]
			if !strings.HasPrefix(got.Reason, c.want.Reason) {
				t.Errorf("reason = %q, want it to start with %q", got.Reason, c.want.Reason)
			}
			got.Reason = c.want.Reason
			if got != c.want {
				t.Errorf("problem = %+v\nwant      %+v", got, c.want)
			}
			if len(res.Messages) != c.good {
				t.Errorf("read %d messages, want %d: %+v", len(res.Messages), c.good, res.Messages)
			}
		})
	}
}

// TestFatal reads inputs that no record-level skipping gets past.
func TestFatal(t *testing.T) {
	for _, c := range []struct {
		name, input, want string
	}{
		{"ErrMalformedDocument", "{\n  \"messages\": [\n    {\"role\": \"user\" \"content\": \"hi\"}\n  ]\n}", "line 3, column 21: malformed JSON"},
		{"ErrMalformedArray", `[{"messages": []}, {"messages": ]`, "[1]: malformed JSON"},
		{"ErrNotAnArrayEnd", `[{"messages": []}] x`, "unexpected data after the array"},
		{"ErrString", `"hello"`, "want a conversation object, got a string"},
		{"ErrNumber", "\n\n42\n", "want a conversation object, got a number"},
		{"ErrNothing", "\n \n", "no input"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := transcript.Read(strings.NewReader(c.input), transcript.OpenAI, transcript.Options{Name: "chat", Start: start})
			if err == nil || !strings.Contains(err.Error(), c.want) || tenure.ErrorCode(err) != tenure.CodeInvalid {
				t.Errorf("err = %v, want an invalid error containing %q", err, c.want)
			}
		})
	}
	t.Run("ErrNoName", func(t *testing.T) {
		if _, err := transcript.Read(strings.NewReader("{}"), transcript.OpenAI, transcript.Options{}); tenure.ErrorField(err) != "name" {
			t.Errorf("err = %v, want one naming name", err)
		}
	})
}

// TestTimes checks where each turn's created_at comes from: its own
// timestamp in any accepted form, else one second after the turn before,
// the file's first turn at Options.Start, each conversation counting on
// from the last.
func TestTimes(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name, stamp string
		want        time.Time
	}{
		{"RFC3339", `"2024-05-02T20:20:11+02:00"`, at("2024-05-02T18:20:11Z")},
		{"NoZone", `"2024-05-02 18:20:11"`, at("2024-05-02T18:20:11Z")},
		{"NoZoneT", `"2024-05-02T18:20:11.5"`, at("2024-05-02T18:20:11.5Z")},
		{"Date", `"2024-05-02"`, at("2024-05-02T00:00:00Z")},
		{"UnixSeconds", `1714674011`, at("2024-05-02T18:20:11Z")},
		{"UnixFraction", `1714674011.25`, at("2024-05-02T18:20:11.25Z")},
		{"UnixMillis", `1714674011250`, at("2024-05-02T18:20:11.25Z")},
	} {
		t.Run("OK"+c.name, func(t *testing.T) {
			res := parse(t, transcript.OpenAI, `{"messages": [{"role": "user", "content": "hi", "created_at": `+c.stamp+`}]}`)
			if len(res.Messages) != 1 || !res.Messages[0].CreatedAt.Equal(c.want) || res.Sources[0].Derived {
				t.Errorf("messages = %+v, sources %+v; want one at %v, not derived", res.Messages, res.Sources, c.want)
			}
		})
	}
	t.Run("OKDerived", func(t *testing.T) {
		input := `{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}` + "\n" +
			`{"create_time": 1714674000, "messages": [{"role": "user", "content": "c"}, {"role": "assistant", "content": "d", "timestamp": 1714674100}, {"role": "user", "content": "e"}]}` + "\n" +
			`{"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "f"}]}`
		res := parse(t, transcript.OpenAI, input)
		var got []string
		for i, m := range res.Messages {
			got = append(got, fmt.Sprintf("%s %s %s %v", m.ThreadID, m.Content, m.CreatedAt.Format(time.RFC3339), res.Sources[i].Derived))
		}
		want := []string{
			"chat-0 a 2024-01-02T03:04:05Z true", "chat-0 b 2024-01-02T03:04:06Z true",
			"chat-1 c 2024-05-02T18:20:00Z true", "chat-1 d 2024-05-02T18:21:40Z false", "chat-1 e 2024-05-02T18:21:41Z true",
			"chat-2 f 2024-01-02T03:04:11Z true", // the file's sixth turn: a, b, c, d, e, then the system prompt
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestThreadNames checks that a file holding one conversation names its
// thread Options.Name, however it is laid out, and one holding several
// adds the index.
func TestThreadNames(t *testing.T) {
	conv := `{"messages": [{"role": "user", "content": "hi"}]}`
	for _, c := range []struct {
		name, input string
		want        []string
	}{
		{"OKObject", conv, []string{"chat"}},
		{"OKPretty", "{\n \"messages\": [\n  {\"role\": \"user\", \"content\": \"hi\"}\n ]\n}\n", []string{"chat"}},
		{"OKOneLine", "\n" + conv + "\n\n", []string{"chat"}},
		{"OKArrayOfOne", "[" + conv + "]", []string{"chat"}},
		{"OKLines", conv + "\n\n" + conv + "\n" + conv, []string{"chat-0", "chat-1", "chat-2"}},
		{"OKArray", "[" + conv + "," + conv + "]", []string{"chat-0", "chat-1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := parse(t, transcript.OpenAI, c.input)
			var got []string
			for _, m := range res.Messages {
				got = append(got, m.ThreadID)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("threads = %v, want %v (problems %+v)", got, c.want, res.Problems)
			}
		})
	}
}

// FuzzRead checks every parser on any input: no panic, a source for each
// message, only valid messages, and every problem with a code and reason.
func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}`,
		`[{"mapping": {"a": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["x"]}}}}}]`,
		`{"system": "s", "messages": [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {"a": 1}}]}]}`,
		`{"thread_id": "t", "id": "m", "role": "user", "content": "x", "created_at": "2024-01-01T00:00:00Z"}`,
		`[{"question_id": "q", "haystack_session_ids": ["s"], "haystack_dates": ["2023/05/20 (Sat) 08:15"], "haystack_sessions": [[{"role": "user", "content": "a"}]]}]`,
		"{\"conversations\": [{\"from\": \"gpt\", \"value\": \"v\", \"timestamp\": 1e10}]}\n{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []transcript.Format{transcript.JSONL, transcript.OpenAI, transcript.Anthropic, transcript.LongMemEval} {
			res, err := transcript.Parse(bytes.NewReader(data), format, transcript.Options{Name: "chat", Start: start})
			if err != nil {
				if tenure.ErrorCode(err) == tenure.CodeInternal {
					t.Errorf("%s: internal error %v", format, err)
				}
				continue
			}
			if len(res.Sources) != len(res.Messages) {
				t.Fatalf("%s: %d sources for %d messages", format, len(res.Sources), len(res.Messages))
			}
			for _, m := range res.Messages {
				if err := m.Validate(); err != nil {
					t.Errorf("%s: invalid message %+v read: %v", format, m, err)
				}
			}
			for _, p := range res.Problems {
				if p.Code == "" || p.Code == tenure.CodeInternal || p.Reason == "" {
					t.Errorf("%s: problem %+v", format, p)
				}
			}
		}
	})
}
