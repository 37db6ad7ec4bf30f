package llm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

// compact reformats JSON so that comparisons ignore whitespace.
func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("result %q is not valid JSON: %v", raw, err)
	}
	return b.String()
}

func TestExtractJSON(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, tt := range []struct {
			name, in, want string
		}{
			{"BareArray", `[{"a":1}]`, `[{"a":1}]`},
			{"BareObject", `{"a":[1,2]}`, `{"a":[1,2]}`},
			{"Whitespace", "\n\n  [1, 2]\n", `[1,2]`},
			{"JSONFence", "```json\n[{\"a\":1}]\n```", `[{"a":1}]`},
			{"PlainFence", "```\n{\"a\":1}\n```", `{"a":1}`},
			{"InlineFence", "```[1]```", `[1]`},
			{"UnclosedFence", "```json\n[1, 2]", `[1,2]`},
			{"ProseAround", "Here are the items:\n[{\"a\":1}]\nLet me know if you need more.", `[{"a":1}]`},
			{"ProseBracketsBefore", "I found [two] items (see {below}):\n[1, 2]", `[1,2]`},
			{"FencePreferredOverProse", "Note [1] applies.\n```json\n[{\"a\":2}]\n```", `[{"a":2}]`},
			{"FirstOfTwo", `[1] and then [2]`, `[1]`},
			{"TrailingCommaArray", `[1, 2, ]`, `[1,2]`},
			{"TrailingCommaObject", "{\"a\": 1,\n}", `{"a":1}`},
			{"TrailingCommasNested", `[{"a": [1,], "b": {"c": 2,},},]`, `[{"a":[1],"b":{"c":2}}]`},
			{"CommaInStringKept", `["a,]", "b,}"]`, `["a,]","b,}"]`},
			{"EscapedQuoteInString", `["say \"hi\", ]" ,]`, `["say \"hi\", ]"]`},
			{"BracketsInString", `[{"text":"use [x] or {y}"}]`, `[{"text":"use [x] or {y}"}]`},
			{"ThinkBlock", "<think>Maybe [{\"draft\":1}]?</think>\n[{\"final\":1}]", `[{"final":1}]`},
			{"BackticksInString", "[\"```[1]```\"]", "[\"```[1]```\"]"},
			{"IndentedFence", "Answer:\n  ```json\n  [1]\n  ```\n", `[1]`},
			{"Unicode", `["café ✓"]`, `["café ✓"]`},
			{"EmptyArray", `[]`, `[]`},
		} {
			t.Run(tt.name, func(t *testing.T) {
				raw, err := llm.ExtractJSON(tt.in)
				if err != nil {
					t.Fatalf("ExtractJSON(%q): %v", tt.in, err)
				}
				if got := compact(t, raw); got != tt.want {
					t.Errorf("ExtractJSON(%q) = %s, want %s", tt.in, got, tt.want)
				}
			})
		}
	})
	t.Run("Err", func(t *testing.T) {
		for _, tt := range []struct {
			name, in, wantMsg string
		}{
			{"Empty", "", "empty model output"},
			{"Blank", " \n\t", "empty model output"},
			{"ProseOnly", "I could not find any decisions.", "no JSON array or object in model output"},
			{"BracketsNotJSON", "Options: [a] or {b}.", "no JSON array or object"},
			{"Truncated", `[{"type_tag":"decision","text":"Use Re`, "unterminated JSON"},
			{"TruncatedAfterElement", `[{"a":1},{"b":`, "unterminated JSON"},
			{"UnclosedThink", "<think>Let me consider [1]", "empty model output"},
			{"Scalar", `"just a string"`, "no JSON array or object"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				raw, err := llm.ExtractJSON(tt.in)
				if err == nil {
					t.Fatalf("ExtractJSON(%q) = %s, want error", tt.in, raw)
				}
				if got := tenure.ErrorCode(err); got != tenure.CodeInvalid {
					t.Errorf("code = %q, want %q (err %v)", got, tenure.CodeInvalid, err)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("error %q does not contain %q", err, tt.wantMsg)
				}
			})
		}
	})
	t.Run("ErrExcerptIsShort", func(t *testing.T) {
		_, err := llm.ExtractJSON(strings.Repeat("blah ", 1000))
		if err == nil {
			t.Fatal("want error")
		}
		if n := len(err.Error()); n > 200 {
			t.Errorf("error message is %d bytes, want a short excerpt: %q", n, err)
		}
	})
}

func TestExtractJSONArray(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, tt := range []struct {
			name, in string
			want     []string
		}{
			{"Array", `[{"a":1},{"b":2}]`, []string{`{"a":1}`, `{"b":2}`}},
			{"EmptyArray", `[]`, []string{}},
			{"SingleObject", `{"type_tag":"risk","refs":["m1"],"topic_tags":["x"]}`,
				[]string{`{"type_tag":"risk","refs":["m1"],"topic_tags":["x"]}`}},
			{"SingleObjectNoArrays", `{"a":1}`, []string{`{"a":1}`}},
			{"Wrapped", `{"items":[{"a":1},{"b":2}]}`, []string{`{"a":1}`, `{"b":2}`}},
			{"WrappedEmpty", `{"items": []}`, []string{}},
			{"WrappedInFence", "```json\n{\"state\": [{\"a\":1},]}\n```", []string{`{"a":1}`}},
			{"EmptyObject", `{}`, []string{}},
			{"MixedElements", `[1, "x", null, {"a":1}]`, []string{`1`, `"x"`, `null`, `{"a":1}`}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				elems, err := llm.ExtractJSONArray(tt.in)
				if err != nil {
					t.Fatalf("ExtractJSONArray(%q): %v", tt.in, err)
				}
				got := make([]string, len(elems))
				for i, e := range elems {
					got[i] = compact(t, e)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ExtractJSONArray(%q) mismatch (-want +got):\n%s", tt.in, diff)
				}
			})
		}
	})
	t.Run("ErrNoJSON", func(t *testing.T) {
		_, err := llm.ExtractJSONArray("Sorry, nothing to extract.")
		if got := tenure.ErrorCode(err); got != tenure.CodeInvalid {
			t.Errorf("code = %q, want %q (err %v)", got, tenure.CodeInvalid, err)
		}
	})
}

// FuzzExtractJSON checks ExtractJSON's invariants on arbitrary input: it
// never panics, what it returns is valid JSON starting with [ or {, its
// errors are CodeInvalid, and any valid array or object passes through
// unchanged in meaning, with or without fences and prose around it.
func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`[{"a":1}]`, "```json\n[1,2,]\n```", `{"items":[{"x":"y"}]}`,
		"prose [x] then [1]", `[{"a":"\"]"}`, "<think>[</think>[]", `[[[[`, `{{{{`,
		`["\u00e9", 1e10, true, null]`, "```\n```", `{"a":[1,{"b":[2,],},],}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := llm.ExtractJSON(s)
		if err != nil {
			if code := tenure.ErrorCode(err); code != tenure.CodeInvalid {
				t.Fatalf("ExtractJSON(%q): code %q, want %q", s, code, tenure.CodeInvalid)
			}
		} else {
			if !json.Valid(raw) {
				t.Fatalf("ExtractJSON(%q) = %q, not valid JSON", s, raw)
			}
			if c := bytes.TrimSpace(raw)[0]; c != '[' && c != '{' {
				t.Fatalf("ExtractJSON(%q) = %q, not an array or object", s, raw)
			}
		}
		if _, err := llm.ExtractJSONArray(s); err != nil && tenure.ErrorCode(err) != tenure.CodeInvalid {
			t.Fatalf("ExtractJSONArray(%q): code %q", s, tenure.ErrorCode(err))
		}
		// A valid array or object is found whatever surrounds it.
		t0 := strings.TrimSpace(s)
		if !json.Valid([]byte(t0)) || (!strings.HasPrefix(t0, "[") && !strings.HasPrefix(t0, "{")) {
			return
		}
		for _, wrapped := range []string{t0, "```json\n" + t0 + "\n```", "Here you go:\n" + t0 + "\nDone."} {
			got, err := llm.ExtractJSON(wrapped)
			if err != nil {
				t.Fatalf("ExtractJSON(%q): %v", wrapped, err)
			}
			var want, have any
			_ = json.Unmarshal([]byte(t0), &want)
			if err := json.Unmarshal(got, &have); err != nil {
				t.Fatalf("ExtractJSON(%q) = %q: %v", wrapped, got, err)
			}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Fatalf("ExtractJSON(%q) changed the value (-want +got):\n%s", wrapped, diff)
			}
		}
	})
}
