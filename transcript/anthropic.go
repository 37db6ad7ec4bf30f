package transcript

import (
	"encoding/json"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// anthropicRoles maps the roles of the Messages API and the senders of
// claude.ai's export to Tenure's.
var anthropicRoles = map[string]string{"user": "user", "human": "user", "assistant": "assistant"}

// anthropicConversation reads a Messages API transcript {"system",
// "messages": [{"role", "content"}]} or a claude.ai export conversation
// {"chat_messages": [{"sender", "text", "content"}]}.
func anthropicConversation(c *conversation, o object) error {
	stamp, err := o.stamp()
	if err != nil {
		return err
	}
	c.begin(stamp)
	key := "messages"
	if o.has("chat_messages") && !o.has("messages") {
		key = "chat_messages"
	}
	msgs, err := o.list(key)
	if err != nil {
		return err
	}
	if msgs == nil {
		return tenure.Errorf(tenure.CodeInvalid, "messages", "required: want {\"messages\": [{\"role\", \"content\"}, ...]}")
	}
	if system, ok := o["system"]; ok && !blank(system) {
		c.b.res.Omitted.SystemMessages++
	}
	tools := map[string]string{} // tool_use id -> tool name
	c.each(key, msgs, func(i int, raw json.RawMessage) (turn, error) { return anthropicTurn(c, i, raw, tools) })
	return nil
}

// blank reports whether a JSON value holds no text: null, "", [].
func blank(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s) == ""
	}
	var l []json.RawMessage
	return string(raw) == "null" || json.Unmarshal(raw, &l) == nil && len(l) == 0
}

func anthropicTurn(c *conversation, i int, raw json.RawMessage, tools map[string]string) (turn, error) {
	t, m, err := newTurn(i, raw, "id", "uuid")
	if err != nil {
		return t, err
	}
	roleKey := "role"
	if !m.has(roleKey) && m.has("sender") {
		roleKey = "sender"
	}
	role, err := m.str(roleKey)
	if err != nil {
		return t, err
	}
	if t.role = anthropicRoles[role]; t.role == "" {
		return t, tenure.Errorf(tenure.CodeInvalid, roleKey, "unknown value %q (want user or assistant; a system prompt is the transcript's \"system\")", role)
	}
	if t.stamp, err = m.stamp(); err != nil {
		return t, err
	}
	content := m["content"]
	if blank(content) && m.has("text") { // claude.ai's plain-text copy
		content = m["text"]
	}
	if err := anthropicContent(c, &t, content, tools); err != nil {
		return t, jsonx.Under("content", err)
	}
	for _, k := range []string{"attachments", "files"} {
		l, err := m.list(k)
		if err != nil {
			return t, err
		}
		for range l {
			c.b.res.Omitted.block(strings.TrimSuffix(k, "s"))
		}
	}
	return t, nil
}

// anthropicContent reads content: a string or an array of blocks, of
// which text, tool_use and tool_result blocks are kept.
func anthropicContent(c *conversation, t *turn, raw json.RawMessage, tools map[string]string) error {
	return eachBlock(t, raw, func(j int, b object) error { return anthropicBlock(c, t, j, b, tools) })
}

func anthropicBlock(c *conversation, t *turn, j int, b object, tools map[string]string) error {
	typ, err := b.str("type")
	if err != nil {
		return err
	}
	switch typ {
	case "text":
		s, err := b.str("text")
		if err != nil {
			return err
		}
		t.text(s)
	case "tool_use":
		name, err := b.str("name")
		if err != nil {
			return err
		}
		if id, _ := b.str("id"); id != "" {
			tools[id] = name
		}
		input := ""
		if b.has("input") {
			input = string(tenure.CanonicalJSON(b["input"]))
		}
		t.tool(j, "", callText(name, input))
	case "tool_result":
		name, err := b.str("name") // claude.ai's export names the tool
		if err != nil {
			return err
		}
		if name == "" {
			id, err := b.str("tool_use_id")
			if err != nil {
				return err
			}
			name = tools[id]
		}
		var r turn
		if err := textContent(c, &r, b["content"], "text"); err != nil {
			return jsonx.Under("content", err)
		}
		text := ""
		if len(r.parts) > 0 {
			text = r.parts[0].text
		}
		var isError bool
		if b.has("is_error") && json.Unmarshal(b["is_error"], &isError) == nil && isError && strings.TrimSpace(text) != "" {
			text = "error: " + text
		}
		t.tool(j, name, text)
	default:
		c.b.res.Omitted.block(typ)
	}
	return nil
}
