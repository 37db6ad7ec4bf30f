package transcript_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/transcript"
)

func TestDetect(t *testing.T) {
	big := strings.Repeat("word ", transcript.SniffLen/4)
	for _, c := range []struct {
		name, input string
		want        transcript.Format
	}{
		{"TenureJSONL", `{"thread_id": "t", "id": "m1", "role": "user", "content": "hi", "created_at": "2024-01-01T00:00:00Z"}` + "\n", transcript.JSONL},
		{"TenureJSONLWithoutThread", `{"id": "m1", "role": "user", "content": "hi", "created_at": "2024-01-01T00:00:00Z"}`, transcript.JSONL},
		{"LoCoMoNested", `{"sample_id": "conv-26", "conversation": {"speaker_a": "Ann"}}`, transcript.LoCoMo},
		{"LoCoMoFlat", "{\n  \"speaker_a\": \"Ann\",\n  \"speaker_b\": \"Ben\"\n}", transcript.LoCoMo},
		{"LoCoMoSessionsOnly", `{"session_1": [], "session_1_date_time": "1:56 pm on 8 May, 2023"}`, transcript.LoCoMo},
		{"OpenAIObject", `{"messages": [{"role": "user", "content": "hi"}]}`, transcript.OpenAI},
		{"OpenAILines", `{"messages": [{"role": "user", "content": "hi"}]}` + "\n" + `{"messages": []}` + "\n", transcript.OpenAI},
		{"OpenAIArray", `[{"messages": [{"role": "system", "content": "be brief"}]}]`, transcript.OpenAI},
		{"OpenAIToolCalls", `{"system": "x", "messages": [{"role": "assistant", "tool_calls": []}]}`, transcript.OpenAI},
		{"ChatGPT", `[{"title": "t", "mapping": {}}]`, transcript.OpenAI},
		{"ShareGPT", `{"id": "a_0", "conversations": [{"from": "human", "value": "hi"}]}`, transcript.OpenAI},
		{"AnthropicSystem", `{"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}`, transcript.Anthropic},
		{"AnthropicBlocks", `{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}]}`, transcript.Anthropic},
		{"AnthropicLaterLine", `{"messages": [{"role": "user", "content": "hi"}]}` + "\n" + `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}]}`, transcript.Anthropic},
		{"ClaudeAI", `[{"uuid": "u", "name": "n", "chat_messages": [{"sender": "human", "text": "hi"}]}]`, transcript.Anthropic},
		{"LongMemEval", `[{"question_id": "q1", "question": "?", "haystack_dates": [], "haystack_sessions": [`, transcript.LongMemEval},
		{"ByteOrderMark", "\xef\xbb\xbf" + `{"messages": []}`, transcript.OpenAI},
		{"CutPrefix", `{"messages": [{"role": "user", "content": "` + big, transcript.OpenAI},
	} {
		t.Run("OK"+c.name, func(t *testing.T) {
			in := c.input[:min(len(c.input), transcript.SniffLen)]
			if d := transcript.Detect([]byte(in)); d.Format != c.want {
				t.Errorf("Detect = %+v, want format %q", d, c.want)
			}
		})
	}
	for _, c := range []struct {
		name, input, looks, note string
	}{
		{"Empty", " \n", "an empty file", ""},
		{"CSV", "id,name\n1,Ann\n", `text starting "id,name\n1,Ann"`, ""},
		{"Binary", "\x00\x01\x02", "binary data", ""},
		{"Gzip", "\x1f\x8b\x08\x00", "gzip-compressed data", ""},
		{"Numbers", "[1, 2, 3]", "a JSON array of numbers", ""},
		{"EmptyArray", "[]", "an empty JSON array", ""},
		{"OtherObject", `{"name": "x", "age": 3}`, `a JSON object with keys "name", "age"`, ""},
		{"OtherLines", `{"a": 1}` + "\n" + `{"a": 2}`, `JSON lines of objects, the first with keys "a"`, ""},
		{"TenureArray", `[{"thread_id": "t", "id": "m1"}]`, `a JSON array of objects, the first with keys "thread_id", "id"`, "one a line"},
		{"LoCoMoArray", `[{"sample_id": "conv-26", "conversation": {}}]`, "a JSON array of objects", "locomo10.json"},
		{"BareMessages", `{"role": "user", "content": "hi"}` + "\n" + `{"role": "assistant", "content": "hello"}`, "JSON lines", "outside a conversation"},
	} {
		t.Run("Err"+c.name, func(t *testing.T) {
			d := transcript.Detect([]byte(c.input))
			if d.Format != "" || !strings.HasPrefix(d.Looks, c.looks) || !strings.Contains(d.Note, c.note) {
				t.Errorf("Detect = %+v, want no format, looks %q…, a note with %q", d, c.looks, c.note)
			}
		})
	}
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{`{"messages": [{"role": "user", "content": [{"type": "text"}]}]}`, `[{"mapping": {}}]`,
		"{\"a\": 1}\n{\"b\": [", `[{"conversation": {"speaker_a": 1}}]`, "\xef\xbb\xbf[", "text"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := transcript.Detect(data)
		if d.Looks == "" {
			t.Errorf("Detect(%q) describes nothing: %+v", data, d)
		}
		if d.Format != "" && d.Note != "" {
			t.Errorf("Detect(%q) = %+v: a format and a near miss", data, d)
		}
	})
}
