package llm

import (
	"bytes"
	"text/template"

	"github.com/tenure-dev/tenure"
)

// RenderRequest renders a prompt template's "system" and "user" templates
// with data into a temperature-0 request (extraction and summaries want
// the model's most likely answer, the same every time).
func RenderRequest(t *template.Template, data any, maxTokens int) (Request, error) {
	var sys, user bytes.Buffer
	if err := t.ExecuteTemplate(&sys, "system", data); err != nil {
		return Request{}, tenure.Internal("render prompt", err)
	}
	if err := t.ExecuteTemplate(&user, "user", data); err != nil {
		return Request{}, tenure.Internal("render prompt", err)
	}
	zero := 0.0
	return Request{
		System:      sys.String(),
		Messages:    []Message{{Role: "user", Content: user.String()}},
		MaxTokens:   maxTokens,
		Temperature: &zero,
	}, nil
}
