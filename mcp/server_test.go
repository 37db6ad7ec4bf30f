package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/mcp"
)

func TestInitializeAndListTools(t *testing.T) {
	cs := serve(t, openStore(t), owner)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "tenure" || init.Instructions == "" {
		t.Errorf("server info = %+v, instructions %q; want tenure with instructions", init.ServerInfo, init.Instructions)
	}
	if init.Capabilities.Tools == nil || init.Capabilities.Resources == nil {
		t.Errorf("capabilities = %+v, want tools and resources", init.Capabilities)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]map[string]any{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
		var s map[string]any
		decode(t, tool.InputSchema, &s)
		schemas[tool.Name] = s
		if s["type"] != "object" {
			t.Errorf("tool %s input schema type = %v, want object", tool.Name, s["type"])
		}
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			t.Errorf("tool %s input schema has no properties", tool.Name)
		}
		for name, p := range props {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("tool %s: property %s has no description", tool.Name, name)
			}
		}
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(mcp.Tools))
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		tool, prop, key string
		want            any
	}{
		{mcp.ToolRemember, "kind", "enum", []any{"object", "message"}},
		{mcp.ToolRemember, "role", "enum", []any{"user", "assistant", "system", "tool"}},
		{mcp.ToolCompileContext, "budget", "default", 2000.0},
		{mcp.ToolCompileContext, "format", "enum", []any{"text", "json", "openai", "anthropic"}},
		{mcp.ToolRecall, "limit", "maximum", 100.0},
		{mcp.ToolForget, "rule", "default", "archive"},
		{mcp.ToolForget, "object_ids", "minItems", 1.0},
	} {
		p := schemas[c.tool]["properties"].(map[string]any)[c.prop].(map[string]any)
		if diff := cmp.Diff(c.want, p[c.key]); diff != "" {
			t.Errorf("%s.%s %s (-want +got):\n%s", c.tool, c.prop, c.key, diff)
		}
	}
	for tool, req := range map[string][]any{mcp.ToolRemember: {"kind"}, mcp.ToolCompileContext: {"query"},
		mcp.ToolRecall: {"query"}, mcp.ToolSupersede: {"old"}, mcp.ToolExpandStateItem: {"uid"},
		mcp.ToolHistory: {"key"}, mcp.ToolForget: {"object_ids"}} {
		if diff := cmp.Diff(req, schemas[tool]["required"]); diff != "" {
			t.Errorf("%s required (-want +got):\n%s", tool, diff)
		}
	}
}

func TestRemember(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	ctx := context.Background()

	t.Run("OK/object", func(t *testing.T) {
		var out mcp.RememberOutput
		callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "object", "key": "user.timezone", "value": "Europe/Paris",
			"why_it_matters": "scheduling", "valid_from": "2025-01-31"}, &out)
		if out.Kind != "object" || out.Write == nil || out.Write.Outcome != tenure.OutcomeCreated {
			t.Fatalf("remember object = %+v, want a created write", out)
		}
		o, err := st.CurrentValue(ctx, owner, "user.timezone", tenure.Read{})
		if err != nil {
			t.Fatal(err)
		}
		if o.Content != "Europe/Paris" || o.WrittenBy != "ada" || !o.ValidFrom.Equal(time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("stored %q by %q valid from %v; want Europe/Paris by ada from 2025-01-31", o.Content, o.WrittenBy, o.ValidFrom)
		}
	})
	t.Run("OK/valid_precision", func(t *testing.T) {
		var out mcp.RememberOutput
		callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "object", "key": "user.city", "value": "Denver",
			"valid_from": "2025-01-01", "valid_precision": "month"}, &out)
		o, err := st.CurrentValue(ctx, owner, "user.city", tenure.Read{})
		if err != nil {
			t.Fatal(err)
		}
		if o.ValidPrecision != tenure.PrecisionMonth {
			t.Errorf("stored valid_precision %q, want month", o.ValidPrecision)
		}
	})
	t.Run("OK/message", func(t *testing.T) {
		var out mcp.RememberOutput
		callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "message", "thread_id": "t1", "role": "user",
			"speaker": "Ada", "content": "Let's ship on Friday."}, &out)
		if out.Append == nil || out.Append.Appended != 1 || out.Message == nil || out.Message.ID == "" {
			t.Fatalf("remember message = %+v, want one appended with a generated id", out)
		}
		msgs, err := st.Messages(ctx, owner, tenure.MessageFilter{ThreadID: "t1"})
		if err != nil || len(msgs) != 1 || msgs[0].Content != "Let's ship on Friday." || msgs[0].ID != out.Message.ID {
			t.Fatalf("thread t1 = %+v, %v; want the message", msgs, err)
		}
		callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "message", "thread_id": "t1", "id": out.Message.ID,
			"role": "user", "speaker": "Ada", "content": "Let's ship on Friday.", "created_at": out.Message.CreatedAt.Format(time.RFC3339Nano)}, &out)
		if out.Append.Skipped != 1 {
			t.Errorf("re-append = %+v, want skipped", out.Append)
		}
	})
	for _, c := range []struct {
		name  string
		args  map[string]any
		field string // the field the error names
		code  tenure.Code
	}{
		{"ErrInvalid/kind", map[string]any{"kind": "note", "content": "x"}, "kind", tenure.CodeInvalid},
		{"ErrInvalid/no kind", map[string]any{"content": "x"}, "kind", tenure.CodeInvalid},
		{"ErrInvalid/unknown property", map[string]any{"kind": "object", "content": "x", "colour": "red"}, "colour", tenure.CodeInvalid},
		{"ErrInvalid/layer", map[string]any{"kind": "object", "content": "x", "layer": "attic"}, "layer", tenure.CodeInvalid},
		{"ErrInvalid/object without content", map[string]any{"kind": "object", "key": "k"}, "content", tenure.CodeInvalid},
		{"ErrInvalid/message field on object", map[string]any{"kind": "object", "content": "x", "thread_id": "t"}, "thread_id", tenure.CodeInvalid},
		{"ErrInvalid/object field on message", map[string]any{"kind": "message", "thread_id": "t", "role": "user",
			"content": "x", "key": "k"}, "key", tenure.CodeInvalid},
		{"ErrInvalid/message without thread", map[string]any{"kind": "message", "role": "user", "content": "x"}, "thread_id", tenure.CodeInvalid},
		{"ErrInvalid/message without content", map[string]any{"kind": "message", "thread_id": "t", "role": "user"}, "content", tenure.CodeInvalid},
		{"ErrInvalid/valid_from", map[string]any{"kind": "object", "content": "x", "valid_from": "last week"}, "valid_from", tenure.CodeInvalid},
		{"ErrInvalid/valid_precision", map[string]any{"kind": "object", "content": "x", "valid_precision": "fortnight"}, "valid_precision", tenure.CodeInvalid},
		{"ErrInvalid/valid_precision on message", map[string]any{"kind": "message", "thread_id": "t", "role": "user",
			"content": "x", "valid_precision": "day"}, "valid_precision", tenure.CodeInvalid},
		{"ErrInvalid/user layer without user", map[string]any{"kind": "object", "content": "x", "layer": "user"}, "user_id", tenure.CodeInvalid},
		{"ErrForbidden/other user", map[string]any{"kind": "message", "thread_id": "t", "role": "user", "content": "x",
			"user_id": "eve"}, "user_id", tenure.CodeForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, body := callErr(t, cs, mcp.ToolRemember, c.args)
			if !strings.Contains(msg, c.field) {
				t.Errorf("error %q does not name %s", msg, c.field)
			}
			if body.Code != c.code || body.Field != c.field || body.RPCCode != tenure.RPCCode(c.code) {
				t.Errorf("error = %+v, want code %s, field %s, rpc code %d", body, c.code, c.field, tenure.RPCCode(c.code))
			}
		})
	}
}

func TestCompileContext(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	put(t, st, owner, tenure.Object{Key: "user.diet", Content: "Ada is vegetarian", WhyItMatters: "restaurant bookings"})
	callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "message", "thread_id": "t1", "id": "m1", "role": "user",
		"content": "Book a table for Friday, somewhere quiet."}, nil)

	t.Run("OK/text", func(t *testing.T) {
		var out mcp.CompileOutput
		res := callOK(t, cs, mcp.ToolCompileContext, map[string]any{"query": "book a restaurant for Ada"}, &out)
		if !strings.Contains(text(res), "Ada is vegetarian") {
			t.Errorf("envelope text does not hold the memory:\n%s", text(res))
		}
		if out.Format != "text" || out.Budget != 2000 || out.Tokens <= 0 || out.Tokens > out.Budget || out.TraceID == "" {
			t.Errorf("output = %+v, want text within the default budget 2000 with a trace id", out)
		}
	})
	t.Run("OK/json with thread", func(t *testing.T) {
		var out struct {
			mcp.CompileOutput
			Envelope struct {
				Sections []struct {
					Kind     string `json:"kind"`
					Messages []struct {
						ID string `json:"id"`
					} `json:"messages"`
				} `json:"sections"`
			} `json:"envelope"`
		}
		callOK(t, cs, mcp.ToolCompileContext, map[string]any{"query": "restaurant", "budget": 1500, "format": "json",
			"thread_id": "t1", "tail_turns": 5, "task_type": "conversation"}, &out)
		var tail []string
		for _, s := range out.Envelope.Sections {
			if s.Kind == "tail" {
				for _, m := range s.Messages {
					tail = append(tail, m.ID)
				}
			}
		}
		if out.Budget != 1500 || !slices.Equal(tail, []string{"m1"}) {
			t.Errorf("budget %d, tail %v; want 1500 and [m1]", out.Budget, tail)
		}
	})
	for _, c := range []struct {
		name  string
		args  map[string]any
		field string
		code  tenure.Code
	}{
		{"ErrInvalid/budget", map[string]any{"query": "q", "budget": 0}, "budget", tenure.CodeInvalid},
		{"ErrInvalid/format", map[string]any{"query": "q", "format": "xml"}, "format", tenure.CodeInvalid},
		{"ErrInvalid/budget type", map[string]any{"query": "q", "budget": "lots"}, "budget", tenure.CodeInvalid},
		{"ErrInvalid/empty query", map[string]any{"query": "  "}, "query", tenure.CodeInvalid},
		{"ErrNotFound/thread", map[string]any{"query": "q", "thread_id": "nope"}, "thread_id", tenure.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, body := callErr(t, cs, mcp.ToolCompileContext, c.args)
			if !strings.Contains(msg, c.field) {
				t.Errorf("error %q does not name %s", msg, c.field)
			}
			if body.Code != c.code || body.Field != c.field {
				t.Errorf("error = %+v, want code %s, field %s", body, c.code, c.field)
			}
		})
	}
}

func TestRecall(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	diet := put(t, st, owner, tenure.Object{Key: "user.diet", Content: "Ada is vegetarian and avoids mushrooms"})
	put(t, st, owner, tenure.Object{Key: "office.wifi", Content: "The office wifi password rotates monthly"})

	t.Run("OK", func(t *testing.T) {
		var out mcp.RecallOutput
		callOK(t, cs, mcp.ToolRecall, map[string]any{"query": "what does Ada eat, vegetarian?", "limit": 1}, &out)
		if len(out.Hits) != 1 {
			t.Fatalf("hits = %+v, want 1", out.Hits)
		}
		h := out.Hits[0]
		if h.ObjectID != diet.ObjectID || h.Key != "user.diet" || h.Rank != 1 || h.Score <= 0 || h.Tier == "" ||
			h.CompiledAs == "" || !strings.Contains(h.Reason, "score") {
			t.Errorf("hit = %+v, want user.diet ranked first with a score, tier and reason", h)
		}
	})
	t.Run("OK/all", func(t *testing.T) {
		var out mcp.RecallOutput
		callOK(t, cs, mcp.ToolRecall, map[string]any{"query": "vegetarian mushrooms wifi password"}, &out)
		if len(out.Hits) != 2 || out.Hits[0].Score < out.Hits[1].Score {
			t.Errorf("hits = %+v, want both, best first", out.Hits)
		}
	})
	t.Run("ErrInvalid/limit", func(t *testing.T) {
		if msg, _ := callErr(t, cs, mcp.ToolRecall, map[string]any{"query": "x", "limit": 1000}); !strings.Contains(msg, "limit") {
			t.Errorf("error %q does not name limit", msg)
		}
	})
	t.Run("ErrInvalid/no query", func(t *testing.T) {
		if msg, _ := callErr(t, cs, mcp.ToolRecall, map[string]any{"limit": 3}); !strings.Contains(msg, "query") {
			t.Errorf("error %q does not name query", msg)
		}
	})
}

func TestSupersedeAndHistory(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	old := put(t, st, owner, tenure.Object{Key: "user.address", Content: "123 Main St", Layer: tenure.LayerPersistentFact,
		SecurityClassification: tenure.Restricted})

	t.Run("OK/by key", func(t *testing.T) {
		var res tenure.WriteResult
		callOK(t, cs, mcp.ToolSupersede, map[string]any{"old": "user.address", "content": "456 Oak Ave"}, &res)
		if res.Object.Key != "user.address" || res.Object.Supersedes != old.ObjectID ||
			res.Object.SecurityClassification != tenure.Restricted || len(res.Changes) != 1 || res.Changes[0].To != tenure.StatusSuperseded {
			t.Fatalf("supersede = %+v, want a restricted user.address superseding %s", res, old.ObjectID)
		}
		cur, err := st.CurrentValue(context.Background(), owner, "user.address", tenure.Read{})
		if err != nil || cur.Content != "456 Oak Ave" {
			t.Errorf("current value = %q, %v; want 456 Oak Ave", cur.Content, err)
		}
	})
	t.Run("OK/history", func(t *testing.T) {
		var h tenure.History
		callOK(t, cs, mcp.ToolHistory, map[string]any{"key": "user.address"}, &h)
		var statuses []tenure.Status
		for _, l := range h.Chain {
			statuses = append(statuses, l.Status)
		}
		if diff := cmp.Diff([]tenure.Status{tenure.StatusSuperseded, tenure.StatusActive}, statuses); diff != "" {
			t.Errorf("chain statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("OK/by id with value", func(t *testing.T) {
		cur, err := st.CurrentValue(context.Background(), owner, "user.address", tenure.Read{})
		if err != nil {
			t.Fatal(err)
		}
		var res tenure.WriteResult
		callOK(t, cs, mcp.ToolSupersede, map[string]any{"old": cur.ObjectID, "value": map[string]any{"street": "Elm St", "no": 7}}, &res)
		if res.Object.Supersedes != cur.ObjectID || string(res.Object.Value) != `{"no":7,"street":"Elm St"}` {
			t.Errorf("supersede = %s superseding %s, want the JSON value superseding %s", res.Object.Value, res.Object.Supersedes, cur.ObjectID)
		}
	})
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		field      string
		code       tenure.Code
	}{
		{"ErrNotFound/supersede", mcp.ToolSupersede, map[string]any{"old": "nothing.here", "content": "x"}, "old", tenure.CodeNotFound},
		{"ErrInvalid/supersede without value", mcp.ToolSupersede, map[string]any{"old": "user.address"}, "value", tenure.CodeInvalid},
		{"ErrInvalid/supersede without old", mcp.ToolSupersede, map[string]any{"content": "x"}, "old", tenure.CodeInvalid},
		{"ErrNotFound/history", mcp.ToolHistory, map[string]any{"key": "nothing.here"}, "key", tenure.CodeNotFound},
		{"ErrInvalid/history key", mcp.ToolHistory, map[string]any{"key": ""}, "key", tenure.CodeInvalid},
		{"ErrInvalid/history key type", mcp.ToolHistory, map[string]any{"key": 7}, "key", tenure.CodeInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, body := callErr(t, cs, c.tool, c.args)
			if !strings.Contains(msg, c.field) {
				t.Errorf("error %q does not name %s", msg, c.field)
			}
			if body.Code != c.code || body.Field != c.field {
				t.Errorf("error = %+v, want code %s", body, c.code)
			}
		})
	}
}

func TestForget(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	o := put(t, st, owner, tenure.Object{Key: "promo.code", Content: "SPRING25 gives 25% off"})

	t.Run("OK/dry run", func(t *testing.T) {
		var rep tenure.RetireReport
		callOK(t, cs, mcp.ToolForget, map[string]any{"object_ids": []string{o.ObjectID}, "dry_run": true}, &rep)
		if len(rep.Actions) != 1 || !rep.DryRun {
			t.Fatalf("report = %+v, want one planned action", rep)
		}
		if cur, err := st.Get(context.Background(), owner, o.ObjectID, tenure.Read{}); err != nil || cur.Status != tenure.StatusActive {
			t.Fatalf("after a dry run: %v, %v; want still active", cur.Status, err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		var rep tenure.RetireReport
		callOK(t, cs, mcp.ToolForget, map[string]any{"object_ids": []string{o.ObjectID}}, &rep)
		if len(rep.Actions) != 1 || rep.Actions[0].Rule != tenure.RetireArchive {
			t.Fatalf("report = %+v, want one archive", rep)
		}
		cur, err := st.Get(context.Background(), owner, o.ObjectID, tenure.Read{})
		if err != nil || cur.Status != tenure.StatusArchived {
			t.Errorf("status = %v, %v; want archived", cur.Status, err)
		}
		var out mcp.RecallOutput
		callOK(t, cs, mcp.ToolRecall, map[string]any{"query": "promo code SPRING25"}, &out)
		for _, h := range out.Hits {
			if h.ObjectID == o.ObjectID {
				t.Errorf("recall returned the retired object: %+v", h)
			}
		}
	})
	for _, c := range []struct {
		name  string
		args  map[string]any
		field string
		code  tenure.Code
	}{
		{"ErrInvalid/no ids", map[string]any{"object_ids": []string{}}, "object_ids", tenure.CodeInvalid},
		{"ErrInvalid/rule", map[string]any{"object_ids": []string{o.ObjectID}, "rule": "shred"}, "rule", tenure.CodeInvalid},
		{"ErrInvalid/empty id", map[string]any{"object_ids": []string{""}}, "object_ids[0]", tenure.CodeInvalid},
		{"ErrInvalid/id type", map[string]any{"object_ids": []any{7}}, "object_ids", tenure.CodeInvalid},
		{"ErrInvalid/null ids", map[string]any{"object_ids": nil}, "object_ids", tenure.CodeInvalid},
		{"ErrNotFound", map[string]any{"object_ids": []string{"no-such-object"}}, "object_ids[0]", tenure.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, body := callErr(t, cs, mcp.ToolForget, c.args)
			if !strings.Contains(msg, c.field) {
				t.Errorf("error %q does not name %s", msg, c.field)
			}
			if body.Code != c.code || body.Field != c.field {
				t.Errorf("error = %+v, want code %s", body, c.code)
			}
		})
	}
}

// stateObject is a decision extracted from message m1 of thread t1.
func stateObject(uid, text string) tenure.Object {
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	return tenure.Object{Key: "state/t1/" + uid, Content: text, StateItem: &tenure.StateItem{UID: uid, Type: tenure.StateDecision,
		Text: text, Status: "active", Refs: []string{"m1"}, Confidence: tenure.ConfidenceHigh, ThreadID: "t1",
		TopicTags: []string{"release"}, CreatedAt: now, LastSeenAt: now}}
}

func TestExpandStateItem(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	callOK(t, cs, mcp.ToolRemember, map[string]any{"kind": "message", "thread_id": "t1", "id": "m1", "role": "user",
		"content": "We ship on Friday, not Thursday."}, nil)
	put(t, st, owner, stateObject("d_ship", "Ship on Friday"))

	t.Run("OK", func(t *testing.T) {
		var x tenure.Expansion
		callOK(t, cs, mcp.ToolExpandStateItem, map[string]any{"uid": "d_ship"}, &x)
		if x.Item.UID != "d_ship" || len(x.Messages) != 1 || x.Messages[0].ID != "m1" || len(x.Missing) != 0 {
			t.Errorf("expansion = %+v, want d_ship with message m1", x)
		}
	})
	t.Run("OK/with thread", func(t *testing.T) {
		var x tenure.Expansion
		callOK(t, cs, mcp.ToolExpandStateItem, map[string]any{"uid": "d_ship", "thread_id": "t1"}, &x)
		if x.Item.Text != "Ship on Friday" {
			t.Errorf("expansion = %+v, want Ship on Friday", x)
		}
	})
	for _, c := range []struct {
		name  string
		args  map[string]any
		field string
		code  tenure.Code
	}{
		{"ErrInvalid/no uid", map[string]any{}, "uid", tenure.CodeInvalid},
		{"ErrInvalid/empty uid", map[string]any{"uid": ""}, "uid", tenure.CodeInvalid},
		{"ErrNotFound", map[string]any{"uid": "d_nope"}, "uid", tenure.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg, body := callErr(t, cs, mcp.ToolExpandStateItem, c.args)
			if !strings.Contains(msg, c.field) {
				t.Errorf("error %q does not name %s", msg, c.field)
			}
			if body.Code != c.code || body.Field != c.field {
				t.Errorf("error = %+v, want code %s, field %s", body, c.code, c.field)
			}
		})
	}
}

// A principal without clearance never sees a restricted object, through
// any tool or resource.
func TestPermissions(t *testing.T) {
	st := openStore(t)
	secret := put(t, st, owner, tenure.Object{Key: "salary.ada", Content: "Ada's salary is 123456",
		SecurityClassification: tenure.Confidential})
	put(t, st, owner, tenure.Object{Key: "lunch.menu", Content: "The lunch menu has salary-day cake"})
	cs := serve(t, st, guest)

	var out mcp.RecallOutput
	callOK(t, cs, mcp.ToolRecall, map[string]any{"query": "salary", "limit": 100}, &out)
	if len(out.Hits) == 0 {
		t.Fatal("recall found nothing; want the public object")
	}
	for _, h := range out.Hits {
		if h.ObjectID == secret.ObjectID || strings.Contains(h.Content, "123456") {
			t.Errorf("recall showed the confidential object to a guest: %+v", h)
		}
	}
	if _, body := callErr(t, cs, mcp.ToolHistory, map[string]any{"key": "salary.ada"}); body.Code != tenure.CodeNotFound {
		t.Errorf("history of a confidential key = %+v, want not_found", body)
	}
	if _, body := callErr(t, cs, mcp.ToolSupersede, map[string]any{"old": secret.ObjectID, "content": "0"}); body.Code != tenure.CodeNotFound {
		t.Errorf("supersede of a confidential object = %+v, want not_found", body)
	}
	res := callOK(t, cs, mcp.ToolCompileContext, map[string]any{"query": "what is Ada's salary"}, nil)
	if strings.Contains(text(res), "123456") {
		t.Errorf("compile_context rendered the confidential object:\n%s", text(res))
	}

	// The owner sees it.
	owned := serve(t, st, owner)
	var h tenure.History
	callOK(t, owned, mcp.ToolHistory, map[string]any{"key": "salary.ada"}, &h)
	if len(h.Versions) != 1 {
		t.Errorf("owner's history = %+v, want one version", h)
	}
}

func TestResources(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	me := tenure.Principal{UserID: "ada", UserName: "Ada", TenantID: tenure.DefaultTenant, Authority: "manager",
		Clearance: tenure.Restricted, Roles: []string{"eng"}}
	srv := mcp.NewServer(st, mcp.Options{Principal: me, Scope: tenure.Scope{SessionID: "s1"}})
	cs := connect(t, srv)
	put(t, st, owner, tenure.Object{Key: "agent.persona", Content: "You are Ada's release assistant",
		Layer: tenure.LayerIdentity, SessionID: "s1"})
	put(t, st, owner, stateObject("d_ship", "Ship on Friday"))
	put(t, st, owner, stateObject("d_old", "Ship on Thursday"))
	superseded := stateObject("d_gone", "Ship on Monday")
	superseded.StateItem.Status = "superseded"
	put(t, st, owner, superseded)
	hidden := stateObject("d_secret", "Acquire Initech")
	hidden.SecurityClassification = tenure.HighlyRestricted
	put(t, st, owner, hidden)

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if diff := cmp.Diff([]string{mcp.IdentityURI, mcp.StateURI}, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != mcp.StateThreadTemplate {
		t.Errorf("resource templates = %+v, %v; want %s", tmpl, err, mcp.StateThreadTemplate)
	}

	t.Run("OK/identity", func(t *testing.T) {
		txt, data := read(t, cs, mcp.IdentityURI)
		var id mcp.Identity
		if err := json.Unmarshal([]byte(data), &id); err != nil {
			t.Fatal(err)
		}
		if id.Principal.UserID != "ada" || id.Principal.Clearance != tenure.Restricted || id.Scope.SessionID != "s1" ||
			len(id.Objects) != 1 || id.Objects[0].Key != "agent.persona" {
			t.Errorf("identity = %+v, want ada (restricted) in session s1 with agent.persona", id)
		}
		for _, want := range []string{"principal: ada (Ada)", "authority manager", "session s1", "agent.persona = You are Ada's release assistant"} {
			if !strings.Contains(txt, want) {
				t.Errorf("identity text lacks %q:\n%s", want, txt)
			}
		}
	})
	t.Run("OK/state", func(t *testing.T) {
		for _, uri := range []string{mcp.StateURI, "tenure://state/t1"} {
			txt, data := read(t, cs, uri)
			var s mcp.State
			if err := json.Unmarshal([]byte(data), &s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range s.Items {
				got = append(got, it.UID)
			}
			if diff := cmp.Diff([]string{"d_old", "d_ship"}, got); diff != "" {
				t.Errorf("%s items (-want +got):\n%s", uri, diff)
			}
			if !strings.Contains(txt, "[d_ship] DECISION (active) release: Ship on Friday [refs:1]") || strings.Contains(txt, "Initech") {
				t.Errorf("%s text:\n%s", uri, txt)
			}
		}
		_, data := read(t, cs, "tenure://state/t2")
		var s mcp.State
		if err := json.Unmarshal([]byte(data), &s); err != nil || s.ThreadID != "t2" || len(s.Items) != 0 {
			t.Errorf("state of t2 = %+v, %v; want empty", s, err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tenure://nothing"}); err == nil {
			t.Error("read tenure://nothing succeeded, want an error")
		}
	})
}

// read reads a resource and returns its text and JSON contents.
func read(t *testing.T, cs *sdk.ClientSession, uri string) (text, data string) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	for _, c := range res.Contents {
		if c.URI != uri {
			t.Errorf("content uri = %q, want %q", c.URI, uri)
		}
		switch c.MIMEType {
		case "text/plain":
			text = c.Text
		case "application/json":
			data = c.Text
		}
	}
	if text == "" || data == "" {
		t.Fatalf("read %s = %+v, want text and JSON contents", uri, res.Contents)
	}
	return text, data
}

// Failures of the server itself are JSON-RPC errors with the code of
// tenure.RPCCode, not tool results.
func TestServerErrors(t *testing.T) {
	st := openStore(t)
	cs := serve(t, st, owner)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	want := int64(tenure.RPCCode(tenure.CodeUnavailable))
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolHistory, Arguments: map[string]any{"key": "k"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != want {
		t.Errorf("history on a closed store: %v, want a JSON-RPC error with code %d", err, want)
	}
	_, err = cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: mcp.StateURI})
	if !errors.As(err, &werr) || werr.Code != want {
		t.Errorf("read state on a closed store: %v, want a JSON-RPC error with code %d", err, want)
	}
}
