package compile

import (
	"strings"

	"github.com/tenure-dev/tenure"
)

// Formats an envelope can be rendered in.
const (
	FormatText      = "text"
	FormatJSON      = "json"
	FormatOpenAI    = "openai"
	FormatAnthropic = "anthropic"
)

// Formats lists the envelope formats.
var Formats = []string{FormatText, FormatJSON, FormatOpenAI, FormatAnthropic}

// ParseFormat checks a format name.
func ParseFormat(s string) (string, error) {
	if s == "" {
		return FormatText, nil
	}
	return tenure.ParseVocab("format", s, Formats)
}

// ChatMessage is an OpenAI chat message.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// OpenAI renders the envelope as OpenAI chat messages, section by section
// in cache order; consecutive sections with the same role share a message.
// Late instructions become a later system message, so the first system
// message (the cached prefix) is never edited. Untrusted data is sent as
// user content.
func (e Envelope) OpenAI() []ChatMessage {
	var out []ChatMessage
	push := func(role, text string) {
		if n := len(out); n > 0 && out[n-1].Role == role && role != "assistant" {
			out[n-1].Content += sectionSep + text
			return
		}
		out = append(out, ChatMessage{Role: role, Content: text})
	}
	for _, s := range e.Sections {
		if s.Kind != SectionTail {
			push(s.Role, s.Text)
			continue
		}
		for _, m := range s.Messages {
			role := m.Role
			if role == "tool" {
				role = "user"
			}
			out = append(out, ChatMessage{Role: role, Content: messageText(m)})
		}
	}
	return out
}

func messageText(m Message) string {
	if m.Speaker != "" && m.Role == "user" {
		return m.Speaker + ": " + m.Content
	}
	return m.Content
}

// AnthropicPrompt is an Anthropic Messages API request body's system and
// messages.
type AnthropicPrompt struct {
	System   []AnthropicBlock   `json:"system"`
	Messages []AnthropicMessage `json:"messages"`
}

// AnthropicBlock is a text content block.
type AnthropicBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *CacheControl `json:"cache_control,omitempty"`
}

// CacheControl marks a prompt-cache breakpoint.
type CacheControl struct {
	Type string `json:"type"`
}

// AnthropicMessage is a message with text blocks.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// maxBreakpoints is Anthropic's limit on cache_control blocks.
const maxBreakpoints = 4

// Anthropic renders the envelope for the Anthropic Messages API: system
// sections as system blocks with cache_control on the static zones (at
// most four), untrusted data, the conversation and the current turn as
// alternating messages starting with the user.
func (e Envelope) Anthropic() AnthropicPrompt {
	p := AnthropicPrompt{System: []AnthropicBlock{}, Messages: []AnthropicMessage{}}
	breakpoints := 0
	push := func(role, text string) {
		if text == "" {
			return
		}
		if len(p.Messages) == 0 && role == "assistant" {
			p.Messages = append(p.Messages, AnthropicMessage{Role: "user", Content: []AnthropicBlock{{Type: "text", Text: "(conversation so far)"}}})
		}
		b := AnthropicBlock{Type: "text", Text: text}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, b)
			return
		}
		p.Messages = append(p.Messages, AnthropicMessage{Role: role, Content: []AnthropicBlock{b}})
	}
	for _, s := range e.Sections {
		switch {
		case s.Role == "system":
			b := AnthropicBlock{Type: "text", Text: s.Text}
			if s.CacheBreakpoint && breakpoints < maxBreakpoints {
				b.CacheControl = &CacheControl{Type: "ephemeral"}
				breakpoints++
			}
			p.System = append(p.System, b)
		case s.Kind == SectionTail:
			for _, m := range s.Messages {
				role := m.Role
				if role != "assistant" {
					role = "user"
				}
				push(role, messageText(m))
			}
		default:
			push("user", s.Text)
		}
	}
	return p
}

// Render returns the envelope in a format as a string or a JSON-encodable
// value: text → string; openai → []ChatMessage; anthropic →
// AnthropicPrompt; json → the Envelope itself.
func (e Envelope) Render(format string) any {
	switch format {
	case FormatOpenAI:
		return e.OpenAI()
	case FormatAnthropic:
		return e.Anthropic()
	case FormatJSON:
		return e
	}
	return strings.TrimRight(e.Text(), "\n") + "\n"
}
