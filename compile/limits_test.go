package compile_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// Every input over its limit fails the compilation with too_large naming
// the input; at the limit it compiles.
func TestInputLimits(t *testing.T) {
	lim := compile.Limits{QueryBytes: 40, DocumentBytes: 60, MessageBytes: 50}
	c := compile.New(sliceSource{}, compile.Options{Limits: lim})
	text := func(n int) string { return strings.Repeat("x", n) }
	base := func() compile.Request { return compile.Request{Principal: reader, Query: "q", Budget: 2000} }
	cases := []struct {
		name  string
		mut   func(r *compile.Request, n int)
		limit int
		field string
	}{
		{"Query", func(r *compile.Request, n int) { r.Query = text(n) }, lim.QueryBytes, "query"},
		{"CurrentTurn", func(r *compile.Request, n int) { r.CurrentTurn = text(n) }, lim.QueryBytes, "current_turn"},
		{"Document", func(r *compile.Request, n int) {
			r.Documents = []compile.Document{{Source: "https://a.example", Content: "ok"}, {Source: "https://b.example", Content: text(n)}}
		}, lim.DocumentBytes, "documents[1].content"},
		{"Tail", func(r *compile.Request, n int) {
			r.Tail = []compile.Message{{Role: "user", Content: "hi"}, {Role: "tool", Content: text(n)}}
		}, lim.MessageBytes, "tail[1].content"},
		{"Instruction", func(r *compile.Request, n int) {
			r.Instructions = []compile.Instruction{{Role: "system", Text: text(n)}}
		}, lim.MessageBytes, "instructions[0].text"},
		{"LateInstruction", func(r *compile.Request, n int) {
			r.LateInstructions = []compile.Instruction{{Role: "developer", Text: "a"}, {Role: "developer", Text: text(n)}}
		}, lim.MessageBytes, "late_instructions[1].text"},
		{"ToolDescription", func(r *compile.Request, n int) { r.Tools = []compile.Tool{{Name: "t", Description: text(n)}} }, lim.MessageBytes, "tools[0].description"},
		{"ToolSchema", func(r *compile.Request, n int) {
			r.Tools = []compile.Tool{{Name: "t", Schema: json.RawMessage(`"` + text(n-2) + `"`)}}
		}, lim.MessageBytes, "tools[0].schema"},
	}
	for _, tc := range cases {
		t.Run("OK"+tc.name, func(t *testing.T) {
			req := base()
			tc.mut(&req, tc.limit)
			if _, _, err := c.Compile(context.Background(), req); err != nil {
				t.Errorf("at the limit (%d bytes): %v", tc.limit, err)
			}
		})
		t.Run("Err"+tc.name, func(t *testing.T) {
			req := base()
			tc.mut(&req, tc.limit+1)
			_, _, err := c.Compile(context.Background(), req)
			if tenure.ErrorCode(err) != tenure.CodeTooLarge || tenure.ErrorField(err) != tc.field {
				t.Errorf("one byte over: err = %v (code %s, field %q), want too_large %q", err, tenure.ErrorCode(err), tenure.ErrorField(err), tc.field)
			}
		})
	}
}

// The zero Limits are the documented defaults.
func TestLimitDefaults(t *testing.T) {
	got := compile.Limits{}.WithDefaults()
	want := compile.Limits{QueryBytes: compile.DefaultQueryBytes, DocumentBytes: compile.DefaultDocumentBytes, MessageBytes: compile.DefaultMessageBytes}
	if got != want {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	req := compile.Request{Principal: reader, Query: "q", Budget: 100,
		Documents: []compile.Document{{Source: "https://a.example", Content: strings.Repeat("x", compile.DefaultDocumentBytes+1)}}}
	if _, _, err := compile.New(sliceSource{}, compile.Options{}).Compile(context.Background(), req); tenure.ErrorField(err) != "documents[0].content" {
		t.Errorf("default document limit: err = %v", err)
	}
}
