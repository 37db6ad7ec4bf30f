package jsonx_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

type inner struct {
	N     float64    `json:"n"`
	At    *time.Time `json:"at,omitempty"`
	Names []string   `json:"names,omitempty"`
}

type outer struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value,omitempty"`
	In    *inner          `json:"in,omitempty"`
	List  []inner         `json:"list,omitempty"`
	Count int             `json:"count,omitempty"`
}

func TestParse(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		got, err := jsonx.Parse[outer]([]byte(`{"key":"a","value":{"x":[1,{"KEY":2}]},"in":{"n":1.5,"names":["p"]},"list":[{"n":2}]}`), "outer")
		if err != nil {
			t.Fatal(err)
		}
		want := outer{Key: "a", Value: json.RawMessage(`{"x":[1,{"KEY":2}]}`), In: &inner{N: 1.5, Names: []string{"p"}}, List: []inner{{N: 2}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decoded (-want +got):\n%s", diff)
		}
	})
	for _, tc := range []struct {
		name, in    string
		code        tenure.Code
		field, text string
	}{
		{"ErrUnknown", `{"key":"a","colour":1}`, tenure.CodeInvalid, "colour", "not a outer field"},
		{"ErrWrongCase", `{"Key":"a"}`, tenure.CodeInvalid, "Key", `did you mean "key"`},
		{"ErrRepeated", `{"key":"a","key":"b"}`, tenure.CodeInvalid, "key", "given more than once"},
		{"ErrNestedUnknown", `{"in":{"m":1}}`, tenure.CodeInvalid, "in.m", "unknown field"},
		{"ErrArrayUnknown", `{"list":[{"n":1},{"x":1}]}`, tenure.CodeInvalid, "list[1].x", "unknown field"},
		{"ErrWrongType", `{"key":1}`, tenure.CodeInvalid, "key", "want a string, got a number"},
		{"ErrNestedType", `{"in":{"n":"x"}}`, tenure.CodeInvalid, "in.n", "want a number, got a string"},
		{"ErrArrayType", `{"list":[{"n":1},{"n":true}]}`, tenure.CodeInvalid, "list[1].n", "want a number, got a boolean"},
		{"ErrDeepArrayType", `{"list":[{"names":["a",3]}]}`, tenure.CodeInvalid, "list[0].names[1]", "want a string, got a number"},
		{"ErrNotArray", `{"list":{"n":1}}`, tenure.CodeInvalid, "list", "want an array, got an object"},
		{"ErrInt", `{"count":1.5}`, tenure.CodeInvalid, "count", "want an integer, got number 1.5"},
		{"ErrTime", `{"in":{"at":"yesterday"}}`, tenure.CodeInvalid, "in.at", "want an RFC 3339 time"},
		{"ErrTimeType", `{"in":{"at":3}}`, tenure.CodeInvalid, "in.at", "want an RFC 3339 time string"},
		{"ErrMalformed", "{\"key\":\n\"a\",}", tenure.CodeInvalid, "", "line 2, column 5: malformed JSON"},
		{"ErrTruncated", `{"key":`, tenure.CodeInvalid, "", "unexpected end of input"},
		{"ErrTrailing", `{} {}`, tenure.CodeInvalid, "", "unexpected data after the JSON value"},
		{"ErrEmpty", ` `, tenure.CodeInvalid, "", "no input"},
		{"ErrNotObject", `[1]`, tenure.CodeInvalid, "", "want a JSON object, got an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsonx.Parse[outer]([]byte(tc.in), "outer")
			if got := tenure.ErrorCode(err); got != tc.code {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.code, err)
			}
			if got := tenure.ErrorField(err); got != tc.field {
				t.Errorf("field = %q, want %q (err %v)", got, tc.field, err)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not contain %q", err, tc.text)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	got, err := jsonx.ParseList[inner]([]byte(`[{"n":1},{"n":2}]`), "inners")
	if err != nil || len(got) != 2 || got[1].N != 2 {
		t.Fatalf("ParseList = %v, %v", got, err)
	}
	_, err = jsonx.ParseList[inner]([]byte(`[{"n":1},{"n":"two"}]`), "inners")
	if f := tenure.ErrorField(err); f != "[1].n" {
		t.Errorf("field = %q, want [1].n (err %v)", f, err)
	}
	_, err = jsonx.ParseList[inner]([]byte(`[{"n":1},{"m":2}]`), "inners")
	if f := tenure.ErrorField(err); f != "[1].m" || !strings.Contains(err.Error(), "not a inners field") {
		t.Errorf("unknown element field: %v", err)
	}
	_, err = jsonx.ParseList[inner]([]byte(`{"n":1}`), "inners")
	if !strings.Contains(err.Error(), "want a JSON array of inners, got an object") {
		t.Errorf("object for a list: %v", err)
	}
}

func TestReadAll(t *testing.T) {
	if _, err := jsonx.ReadAll(strings.NewReader(strings.Repeat("x", 11)), 10); tenure.ErrorCode(err) != tenure.CodeTooLarge {
		t.Errorf("11 bytes with limit 10: %v, want too_large", err)
	}
	if b, err := jsonx.ReadAll(strings.NewReader("0123456789"), 10); err != nil || len(b) != 10 {
		t.Errorf("10 bytes with limit 10: %d, %v", len(b), err)
	}
}

func TestUnder(t *testing.T) {
	for _, tc := range []struct{ path, field, want string }{
		{"objects", "[2].layer", "objects[2].layer"},
		{"objects[2]", "layer", "objects[2].layer"},
		{"body", "", "body"},
	} {
		err := jsonx.Under(tc.path, tenure.Errorf(tenure.CodeForbidden, tc.field, "x"))
		if got := tenure.ErrorField(err); got != tc.want || tenure.ErrorCode(err) != tenure.CodeForbidden {
			t.Errorf("Under(%q, %q) = %q %s, want %q forbidden", tc.path, tc.field, got, tenure.ErrorCode(err), tc.want)
		}
	}
}

// FuzzParse checks that the decoder never panics and reports every failure
// as invalid input, never as an internal error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"key":"a","value":1}`, `{"list":[{"n":1},{"n":"x"}]}`, `{"KEY":1}`, `{"key":"a","key":"b"}`,
		`{"in":{"at":"x"}}`, `{"in":{"names":[{}]}}`, `[1,{}]`, `{"a":`, "\"\\u00e9\n", `{"count":1e999}`, `null`,
		`{"in":null}`, `{"list":[null]}`, `{"value":}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := jsonx.Parse[outer](data, "outer"); err != nil {
			if c := tenure.ErrorCode(err); c != tenure.CodeInvalid {
				t.Fatalf("error code %s for %q: %v", c, data, err)
			}
		}
		if _, err := jsonx.ParseList[outer](data, "outers"); err != nil {
			if c := tenure.ErrorCode(err); c != tenure.CodeInvalid {
				t.Fatalf("list: error code %s for %q: %v", c, data, err)
			}
		}
	})
}
