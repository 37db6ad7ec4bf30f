package transcript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// openAIRoles maps OpenAI chat roles to Tenure's: developer prompts are
// system prompts, function results (the older API) are tool results.
var openAIRoles = map[string]string{"system": "system", "developer": "system", "user": "user", "assistant": "assistant",
	"tool": "tool", "function": "tool"}

// openAIConversation reads {"messages": [...]}, a ChatGPT export
// conversation ({"mapping": {...}, "current_node": ...}) or a ShareGPT
// one ({"conversations": [{"from", "value"}]}).
func openAIConversation(c *conversation, o object) error {
	stamp, err := o.stamp()
	if err != nil {
		return err
	}
	c.begin(stamp)
	if !o.has("messages") && o.has("mapping") {
		return chatGPTConversation(c, o)
	}
	if !o.has("messages") && o.has("conversations") {
		return shareGPTConversation(c, o)
	}
	msgs, err := o.list("messages")
	if err != nil {
		return err
	}
	if msgs == nil {
		return tenure.Errorf(tenure.CodeInvalid, "messages", "required: want {\"messages\": [{\"role\", \"content\"}, ...]}")
	}
	tools := map[string]string{} // tool call id -> function name
	c.each("messages", msgs, func(i int, raw json.RawMessage) (turn, error) { return openAITurn(c, i, raw, tools) })
	return nil
}

// openAITurn reads messages[i]; tools remembers the names of the calls
// made so far, to name the results.
func openAITurn(c *conversation, i int, raw json.RawMessage, tools map[string]string) (turn, error) {
	t, m, err := newTurn(i, raw, "id")
	if err != nil {
		return t, err
	}
	role, err := m.str("role")
	if err != nil {
		return t, err
	}
	if t.role = openAIRoles[role]; t.role == "" {
		return t, tenure.Errorf(tenure.CodeInvalid, "role", "unknown value %q (want system, developer, user, assistant, tool or function)", role)
	}
	if t.stamp, err = m.stamp(); err != nil {
		return t, err
	}
	if t.speaker, err = m.str("name"); err != nil {
		return t, err
	}
	if t.role == "tool" {
		callID, err := m.str("tool_call_id")
		if err != nil {
			return t, err
		}
		if t.speaker == "" {
			t.speaker = tools[callID]
		}
	}
	if err := textContent(c, &t, m["content"], "text", "input_text", "output_text", "refusal"); err != nil {
		return t, jsonx.Under("content", err)
	}
	if len(t.parts) == 0 || strings.TrimSpace(t.parts[0].text) == "" {
		refusal, err := m.str("refusal")
		if err != nil {
			return t, err
		}
		t.text(refusal)
	}
	calls, err := m.list("tool_calls")
	if err != nil {
		return t, err
	}
	for j, raw := range calls {
		name, args, err := openAICall(raw)
		if err != nil {
			return t, jsonx.Under(fmt.Sprintf("tool_calls[%d]", j), err)
		}
		call, _ := decodeObject(raw)
		if id, _ := call.str("id"); id != "" {
			tools[id] = name
		}
		t.tool(j, "", callText(name, args))
	}
	if m.has("function_call") {
		name, args, err := openAIFunction(m["function_call"])
		if err != nil {
			return t, jsonx.Under("function_call", err)
		}
		t.tool(len(calls), "", callText(name, args))
	}
	return t, nil
}

// textContent reads content that is a string, null, or an array of parts
// of which those of the given types are kept.
func textContent(c *conversation, t *turn, raw json.RawMessage, types ...string) error {
	return eachBlock(t, raw, func(_ int, p object) error { return textPart(c, t, p, types...) })
}

// eachBlock reads content that is a string (the turn's text), null, or an
// array of blocks (objects, or bare strings which some tools write as
// text), calling fn with the index and object of each block.
func eachBlock(t *turn, raw json.RawMessage, fn func(j int, b object) error) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t.text(s)
		return nil
	}
	var blocks []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &blocks) != nil {
		return tenure.Errorf(tenure.CodeInvalid, "", "want a string or an array of content blocks, got %s", jsonx.Kind(raw))
	}
	for j, raw := range blocks {
		if json.Unmarshal(raw, &s) == nil {
			t.text(s)
			continue
		}
		b, err := decodeObject(raw)
		if err == nil {
			err = fn(j, b)
		}
		if err != nil {
			return jsonx.Under(fmt.Sprintf("[%d]", j), err)
		}
	}
	return nil
}

// textPart keeps a part of one of the text types (its text in the field
// of the type's name, or "text"), and counts any other.
func textPart(c *conversation, t *turn, p object, types ...string) error {
	typ, err := p.str("type")
	if err != nil {
		return err
	}
	for _, want := range types {
		if typ != want {
			continue
		}
		key := typ
		if !p.has(key) {
			key = "text"
		}
		s, err := p.str(key)
		if err != nil {
			return err
		}
		t.text(s)
		return nil
	}
	c.b.res.Omitted.block(typ)
	return nil
}

// openAICall reads a tool call {"type": "function", "function": {...}}.
func openAICall(raw json.RawMessage) (name, args string, err error) {
	call, err := decodeObject(raw)
	if err != nil {
		return "", "", err
	}
	if !call.has("function") {
		return "", "", tenure.Errorf(tenure.CodeInvalid, "function", "required")
	}
	if name, args, err = openAIFunction(call["function"]); err != nil {
		return "", "", jsonx.Under("function", err)
	}
	return name, args, nil
}

// openAIFunction reads {"name", "arguments"}; arguments is a JSON string
// in OpenAI's API, an object in some tools' exports.
func openAIFunction(raw json.RawMessage) (name, args string, err error) {
	f, err := decodeObject(raw)
	if err != nil {
		return "", "", err
	}
	if name, err = f.str("name"); err != nil {
		return "", "", err
	}
	if name == "" {
		return "", "", tenure.Errorf(tenure.CodeInvalid, "name", "required")
	}
	if args, err = f.str("arguments"); err != nil {
		args, err = string(f["arguments"]), nil
	}
	return name, args, nil
}

// callText renders a tool call: its name and its arguments.
func callText(name, args string) string { return "call " + name + "(" + strings.TrimSpace(args) + ")" }

// chatGPTConversation reads a conversation of ChatGPT's export
// (conversations.json): the branch that ends at current_node (or, without
// one, that follows each message's last reply), root first.
func chatGPTConversation(c *conversation, o object) error {
	var nodes map[string]struct {
		Message  json.RawMessage `json:"message"`
		Parent   string          `json:"parent"`
		Children []string        `json:"children"`
	}
	if err := json.Unmarshal(o["mapping"], &nodes); err != nil {
		return tenure.Errorf(tenure.CodeInvalid, "mapping", "want an object of nodes {message, parent, children}: %v", err)
	}
	cur, err := o.str("current_node")
	if err != nil {
		return err
	}
	var branch []string
	if cur != "" {
		for id, seen := cur, map[string]bool{}; id != "" && !seen[id]; id = nodes[id].Parent {
			if _, ok := nodes[id]; !ok {
				return tenure.Errorf(tenure.CodeInvalid, "mapping", "no node %q (from current_node)", id)
			}
			seen[id] = true
			branch = append([]string{id}, branch...)
		}
	} else {
		var roots []string
		for id, n := range nodes {
			if _, ok := nodes[n.Parent]; !ok {
				roots = append(roots, id)
			}
		}
		if len(roots) > 0 {
			cur = slices.Min(roots)
		}
		for id, seen := cur, map[string]bool{}; id != "" && !seen[id]; {
			seen[id] = true
			branch = append(branch, id)
			kids := nodes[id].Children
			if len(kids) == 0 {
				break
			}
			id = kids[len(kids)-1]
		}
	}
	i := 0
	for _, id := range branch {
		raw := nodes[id].Message
		if len(raw) == 0 || string(raw) == "null" {
			continue // the root holds no message
		}
		t, err := chatGPTTurn(c, i, raw)
		c.add(fmt.Sprintf("mapping[%q].message", id), t, err)
		i++
	}
	return nil
}

// chatGPTTurn reads a ChatGPT export message {id, author: {role, name},
// create_time, content: {content_type, parts | text}, recipient}.
func chatGPTTurn(c *conversation, i int, raw json.RawMessage) (turn, error) {
	t, m, err := newTurn(i, raw, "id")
	if err != nil {
		return t, err
	}
	author, err := m.obj("author")
	if err != nil {
		return t, err
	}
	role, err := author.str("role")
	if err != nil {
		return t, jsonx.Under("author", err)
	}
	if t.role = openAIRoles[role]; t.role == "" {
		return t, tenure.Errorf(tenure.CodeInvalid, "author.role", "unknown value %q (want system, user, assistant or tool)", role)
	}
	if t.speaker, err = author.str("name"); err != nil {
		return t, jsonx.Under("author", err)
	}
	if t.stamp, err = m.stamp(); err != nil {
		return t, err
	}
	meta, _ := m.obj("metadata")
	var hidden bool
	if meta.has("is_visually_hidden_from_conversation") {
		json.Unmarshal(meta["is_visually_hidden_from_conversation"], &hidden)
	}
	content, err := m.obj("content")
	if err != nil {
		return t, err
	}
	typ, err := content.str("content_type")
	if err != nil {
		return t, jsonx.Under("content", err)
	}
	switch {
	case hidden || typ == "user_editable_context":
		t.role = "system" // custom instructions and hidden context
		return t, nil
	case typ == "text" || typ == "multimodal_text":
		parts, err := content.list("parts")
		if err != nil {
			return t, jsonx.Under("content", err)
		}
		for _, p := range parts {
			var s string
			if json.Unmarshal(p, &s) == nil {
				t.text(s)
				continue
			}
			po, _ := decodeObject(p)
			kind, _ := po.str("content_type")
			c.b.res.Omitted.block(kind)
		}
	case typ == "code" || typ == "execution_output" || typ == "tether_quote" || typ == "system_error":
		s, err := content.str("text")
		if err != nil {
			return t, jsonx.Under("content", err)
		}
		t.text(s)
	case typ == "tether_browsing_display":
		s, err := content.str("result")
		if err != nil {
			return t, jsonx.Under("content", err)
		}
		t.text(s)
	default:
		c.b.res.Omitted.block(typ)
	}
	// An assistant message addressed to a tool is a tool call.
	if to, _ := m.str("recipient"); t.role == "assistant" && to != "" && to != "all" {
		text := ""
		if len(t.parts) > 0 {
			text = t.parts[0].text
		}
		t.role, t.speaker, t.parts = "tool", "", nil
		t.text(callText(to, text))
	}
	return t, nil
}

// shareGPTRoles maps the senders of ShareGPT-style datasets to Tenure's
// roles: function calls and their observations are tool messages.
var shareGPTRoles = map[string]string{"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant",
	"chatgpt": "assistant", "bard": "assistant", "bing": "assistant", "model": "assistant", "system": "system",
	"function_call": "tool", "observation": "tool", "function_response": "tool", "tool": "tool"}

// shareGPTConversation reads {"conversations": [{"from", "value"}]}.
func shareGPTConversation(c *conversation, o object) error {
	turns, err := o.list("conversations")
	if err != nil {
		return err
	}
	c.each("conversations", turns, shareGPTTurn)
	return nil
}

func shareGPTTurn(i int, raw json.RawMessage) (turn, error) {
	t, m, err := newTurn(i, raw, "id")
	if err != nil {
		return t, err
	}
	from, err := m.str("from")
	if err != nil {
		return t, err
	}
	if t.role = shareGPTRoles[from]; t.role == "" {
		return t, tenure.Errorf(tenure.CodeInvalid, "from", "unknown value %q (want human, gpt, system, function_call or observation)", from)
	}
	value, err := m.str("value")
	if err != nil {
		return t, err
	}
	t.text(value)
	t.stamp, err = m.stamp()
	return t, err
}
