package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// Tool names.
const (
	ToolRemember        = "remember"
	ToolCompileContext  = "compile_context"
	ToolRecall          = "recall"
	ToolSupersede       = "supersede"
	ToolExpandStateItem = "expand_state_item"
	ToolHistory         = "history"
	ToolForget          = "forget"
)

// Tools lists the tool names in the order they are registered.
var Tools = []string{ToolRemember, ToolCompileContext, ToolRecall, ToolSupersede, ToolExpandStateItem, ToolHistory, ToolForget,
	ToolSnapshotStart, ToolSnapshotGet, ToolSnapshotSubmitDelta, ToolSnapshotCloseRound, ToolSnapshotPathHistory,
	ToolEntities, ToolEntityShow, ToolEntityResolve, ToolEntityMerge, ToolEntitySplit, ToolEntitySettle, ToolEntityUndo, ToolSessions,
	ToolMemoriesList, ToolMemoryPin, ToolMemorySetImportance}

// Limits of tool inputs.
const (
	maxRecall    = 100
	maxTailTurns = 200
	// messagePage is how many messages one read of a thread returns while
	// looking for its latest turns.
	messagePage = 1000
)

// Kinds of what remember writes.
const (
	KindObject  = "object"
	KindMessage = "message"
)

// RememberInput is the input of the remember tool: an object (a claim for
// a key) or a message (a conversation turn). Fields of the other kind are
// rejected.
type RememberInput struct {
	Kind    string `json:"kind" jsonschema:"what to write: object (a durable claim for a key: a fact, preference, decision, rule) or message (a conversation turn)"`
	Content string `json:"content,omitempty" jsonschema:"the claim as text (object), or what was said (message, required)"`

	ObjectID               string   `json:"object_id,omitempty" jsonschema:"object: id of an existing object to write a new version of (default: a new object)"`
	Key                    string   `json:"key,omitempty" jsonschema:"object: the slot the claim fills, such as user.timezone or order.status; claims for the same key are reconciled (default: the object id)"`
	Value                  any      `json:"value,omitempty" jsonschema:"object: the claim's value, any JSON (default: content as a string)"`
	ObjectType             string   `json:"object_type,omitempty" jsonschema:"object: what kind of claim it is (default: derived from the layer and source)"`
	Layer                  string   `json:"layer,omitempty" jsonschema:"object: the state layer it belongs to"`
	MemoryType             string   `json:"memory_type,omitempty" jsonschema:"object: user, capability or organizational memory (default: derived from source)"`
	Source                 string   `json:"source,omitempty" jsonschema:"object: short provenance label such as user, agent or finance_system"`
	WhyItMatters           string   `json:"why_it_matters,omitempty" jsonschema:"object: when the claim is relevant; it activates the claim for matching tasks"`
	Supersedes             string   `json:"supersedes,omitempty" jsonschema:"object: id or key of the object this claim explicitly replaces"`
	IsConstraint           bool     `json:"is_constraint,omitempty" jsonschema:"object: the claim is a constraint to obey (compiled as a hard constraint)"`
	SecurityClassification string   `json:"security_classification,omitempty" jsonschema:"object: who may read it, by clearance"`
	AllowRoles             []string `json:"allow_roles,omitempty" jsonschema:"object: only principals with one of these roles may read it"`
	DenyRoles              []string `json:"deny_roles,omitempty" jsonschema:"object: principals with one of these roles may not read it"`
	Entities               []string `json:"entities,omitempty" jsonschema:"object: canonical ids of the entities the claim is about"`
	Scope                  string   `json:"scope,omitempty" jsonschema:"object: how widely the claim holds"`
	TaskID                 string   `json:"task_id,omitempty" jsonschema:"object: the task a task-scoped claim belongs to (default: the server's task)"`
	ValidFrom              string   `json:"valid_from,omitempty" jsonschema:"object: when the claim became true, RFC 3339 or a date (default: now)"`
	ValidUntil             string   `json:"valid_until,omitempty" jsonschema:"object: when the claim stops being true, RFC 3339 or a date"`
	ValidPrecision         string   `json:"valid_precision,omitempty" jsonschema:"object: how exactly valid_from is known when it dates a period (day, week, month or year: 'last month' is valid_from the month's first day at month precision); default exact"`

	ThreadID  string `json:"thread_id,omitempty" jsonschema:"message: the conversation thread (required)"`
	ID        string `json:"id,omitempty" jsonschema:"message: id unique within the thread (default: generated); re-sending the same id and content is a no-op"`
	Role      string `json:"role,omitempty" jsonschema:"message: who spoke (required)"`
	Speaker   string `json:"speaker,omitempty" jsonschema:"message: the speaker's name"`
	CreatedAt string `json:"created_at,omitempty" jsonschema:"message: when it was said, RFC 3339 (default: now)"`

	UserID    string `json:"user_id,omitempty" jsonschema:"the user it belongs to, making it visible only to that user (default: none, visible tenant-wide; the user layer requires it)"`
	SessionID string `json:"session_id,omitempty" jsonschema:"the session it belongs to (default: the server's session)"`
}

// RememberOutput is the result of remember: the write of an object or the
// append of a message.
type RememberOutput struct {
	Kind string `json:"kind"`
	// Write reports an object write: the stored object, what happened to it
	// and to the objects it displaced.
	Write *tenure.WriteResult `json:"write,omitempty"`
	// Message and Append report a message append.
	Message *tenure.Message      `json:"message,omitempty"`
	Append  *tenure.AppendResult `json:"append,omitempty"`
}

// CompileInput is the input of the compile_context tool.
type CompileInput struct {
	Query    string `json:"query" jsonschema:"what the context is for: the user's request or the task at hand"`
	Budget   int    `json:"budget,omitempty" jsonschema:"token budget of the envelope"`
	Format   string `json:"format,omitempty" jsonschema:"text (one prompt), json (sections with token counts), openai (chat messages) or anthropic (system blocks and messages)"`
	ThreadID string `json:"thread_id,omitempty" jsonschema:"the conversation the context is for: its latest turns become the recent conversation, its past turns the history and its state the task state; other threads contribute only profile and people facts and the project's decisions and constraints"`
	// Threads is compile.Request.Threads.
	Threads   []string `json:"threads,omitempty" jsonschema:"further threads whose history and state may be used, or [\"*\"] for every thread"`
	TailTurns int      `json:"tail_turns,omitempty" jsonschema:"how many of the thread's latest turns to include verbatim (with thread_id)"`
	TaskType  string   `json:"task_type,omitempty" jsonschema:"the kind of task, which activates task-specific memory"`
	Mode      string   `json:"mode,omitempty" jsonschema:"budget allocation: full, or minimal for small budgets"`
	// RulesOverflow is compile.Request.RulesOverflow.
	RulesOverflow string `json:"rules_overflow,omitempty" jsonschema:"when the binding rules do not fit the budget: fail (default), or drop the lowest ones with a warning in the trace"`
	// WorkflowID is compile.Request.WorkflowID.
	WorkflowID string `json:"workflow_id,omitempty" jsonschema:"a workflow whose current snapshot (bindings, entities, rules and what agents contributed) is task state for this context"`
}

// CompileOutput is the result of compile_context.
type CompileOutput struct {
	Format    string `json:"format"`
	Tokens    int    `json:"tokens"`
	Budget    int    `json:"budget"`
	Tokenizer string `json:"tokenizer"`
	TraceID   string `json:"trace_id" jsonschema:"the compilation's trace id; on tenure serve's /mcp endpoint the trace is at GET /v1/traces/{id} for an hour"`
	CacheKey  string `json:"cache_key"`
	// Compiled counts the objects and turns in the envelope.
	Compiled int `json:"compiled"`
	// Envelope is the text (format text) or the rendered JSON.
	Envelope any `json:"envelope"`
}

// RecallInput is the input of the recall tool.
type RecallInput struct {
	Query    string `json:"query" jsonschema:"what to look for"`
	Limit    int    `json:"limit,omitempty" jsonschema:"how many objects to return at most"`
	Budget   int    `json:"budget,omitempty" jsonschema:"token budget of the compilation the ranking comes from; a larger budget ranks more objects"`
	TaskType string `json:"task_type,omitempty" jsonschema:"the kind of task, which activates task-specific memory"`
}

// RecallOutput is the result of recall.
type RecallOutput struct {
	Query   string `json:"query"`
	TraceID string `json:"trace_id"`
	Hits    []Hit  `json:"hits"`
}

// Hit is an object recall ranked, with why the compiler selected it.
type Hit struct {
	Rank       int               `json:"rank"`
	ObjectID   string            `json:"object_id"`
	Key        string            `json:"key"`
	Content    string            `json:"content"`
	Value      json.RawMessage   `json:"value,omitempty"`
	Layer      tenure.Layer      `json:"layer"`
	ObjectType tenure.ObjectType `json:"object_type"`
	// Score is the relevance score; Tier, CompiledAs and Section say how
	// the compiler placed the object, Reason says it in words.
	Score          float64            `json:"score"`
	Tier           compile.Tier       `json:"priority_tier"`
	CompiledAs     compile.CompiledAs `json:"compiled_as"`
	Section        string             `json:"section"`
	AuthorityLevel int                `json:"authority_level"`
	Reason         string             `json:"reason"`
	ValidFrom      time.Time          `json:"valid_from"`
}

// SupersedeInput is the input of the supersede tool.
type SupersedeInput struct {
	Old     string `json:"old" jsonschema:"id or key of the object being replaced"`
	Value   any    `json:"value,omitempty" jsonschema:"the new value, any JSON (value or content is required)"`
	Content string `json:"content,omitempty" jsonschema:"the new claim as text"`
	Key     string `json:"key,omitempty" jsonschema:"key of the new claim (default: the old object's key)"`
	Source  string `json:"source,omitempty" jsonschema:"provenance of the new claim (default: the old object's)"`
}

// ExpandInput is the input of the expand_state_item tool.
type ExpandInput struct {
	UID      string `json:"uid" jsonschema:"the state item's uid, shown in brackets in the state section (such as d_1a2b3c)"`
	ThreadID string `json:"thread_id,omitempty" jsonschema:"the thread of the item; needed only when the uid is in several threads"`
}

// HistoryInput is the input of the history tool.
type HistoryInput struct {
	Key string `json:"key" jsonschema:"the key whose versions and supersession chain to return"`
}

// ForgetInput is the input of the forget tool.
type ForgetInput struct {
	ObjectIDs []string `json:"object_ids" jsonschema:"ids of the objects to retire"`
	Rule      string   `json:"rule,omitempty" jsonschema:"archive (kept in history, no longer current), hard_delete (gone, a tombstone stays), demote_to_archival or trigger_user_confirmation"`
	DryRun    bool     `json:"dry_run,omitempty" jsonschema:"report what would be retired without retiring"`
}

func (s *Server) addTools() {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	timeFormat := prop{format: "date-time"}
	addTool(s, &sdk.Tool{Name: ToolRemember, Title: "Remember",
		Description: "Write to memory: an object (a claim for a key, reconciled against the claims already stored for it by authority, " +
			"trust and time) or a message (a conversation turn appended to a thread). Returns what happened to the claim and to the ones it displaced.",
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(bool)},
		InputSchema: inputSchema[RememberInput](map[string]prop{
			"kind":                    {enum: []string{KindObject, KindMessage}},
			"object_type":             {enum: vocab(tenure.ObjectTypes)},
			"layer":                   {enum: vocab(tenure.Layers)},
			"memory_type":             {enum: vocab(tenure.MemoryTypes)},
			"security_classification": {enum: vocab(tenure.Classifications)},
			"scope":                   {enum: vocab(tenure.ScopeKinds)},
			"role":                    {enum: tenure.MessageRoles},
			"valid_from":              timeFormat, "valid_until": timeFormat, "created_at": timeFormat,
		}),
	}, s.remember)
	addTool(s, &sdk.Tool{Name: ToolCompileContext, Title: "Compile context",
		Description: "Compile what the agent should see for a query within a token budget: rules and policy, tools, selected memory, " +
			"past conversation, retrieved data (wrapped as untrusted), structured state and the recent conversation, in cache order.",
		Annotations: readOnly,
		InputSchema: inputSchema[CompileInput](map[string]prop{
			"budget":         {def: s.opt.DefaultBudget, min: num(1), max: num(compile.MaxBudget)},
			"format":         {enum: compile.Formats, def: compile.FormatText},
			"tail_turns":     {def: 10, min: num(0), max: num(maxTailTurns)},
			"task_type":      {enum: vocab(tenure.TaskTypes)},
			"mode":           {enum: vocab(compile.Modes), def: string(compile.ModeFull)},
			"rules_overflow": {enum: []string{compile.RulesFail, compile.RulesDrop}, def: compile.RulesFail},
		}),
	}, s.compileContext)
	addTool(s, &sdk.Tool{Name: ToolRecall, Title: "Recall",
		Description: "Rank the stored objects for a query the way the context compiler does, and return the best with their scores, " +
			"priority tiers and how they would be compiled. Objects the principal may not read never appear.",
		Annotations: readOnly,
		InputSchema: inputSchema[RecallInput](map[string]prop{
			"limit":     {def: 10, min: num(1), max: num(maxRecall)},
			"budget":    {def: 4000, min: num(1), max: num(compile.MaxBudget)},
			"task_type": {enum: vocab(tenure.TaskTypes)},
		}),
	}, s.recall)
	addTool(s, &sdk.Tool{Name: ToolSupersede, Title: "Supersede",
		Description: "Replace an object with a new claim that explicitly supersedes it: the old one stays in history as superseded. " +
			"The new claim keeps the old one's key, layer, type, scope and permissions unless told otherwise.",
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(bool)},
		InputSchema: inputSchema[SupersedeInput](nil),
	}, s.supersede)
	addTool(s, &sdk.Tool{Name: ToolExpandStateItem, Title: "Expand state item",
		Description: "Return a structured-state item (decision, constraint, action, question or risk) with the conversation messages it was extracted from.",
		Annotations: readOnly,
		InputSchema: inputSchema[ExpandInput](nil),
	}, s.expand)
	addTool(s, &sdk.Tool{Name: ToolHistory, Title: "History",
		Description: "Return every version stored under a key, with both timelines (valid time and transaction time), and the chain of objects linked by supersession.",
		Annotations: readOnly,
		InputSchema: inputSchema[HistoryInput](nil),
	}, s.history)
	addTool(s, &sdk.Tool{Name: ToolForget, Title: "Forget",
		Description: "Retire objects: archive them (the default; they stay in history), delete them, demote them to archival storage or ask the user to confirm them.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: tenure.Ptr(true), OpenWorldHint: new(bool)},
		InputSchema: inputSchema[ForgetInput](map[string]prop{
			"object_ids": {minItems: count(1), maxItems: count(tenure.MaxListLen)},
			"rule":       {enum: vocab(tenure.RetirementRules), def: string(tenure.RetireArchive)},
		}),
	}, s.forget)
	s.addSnapshotTools()
	s.addEntityTools()
	s.addSessionTools()
	s.addMemoryTools()
}

// addTool registers a tool whose arguments are validated against its
// input schema and decoded into an In, and whose handler runs as the
// call's principal. The handler's output becomes the structured content
// (and, unless the handler set content, a JSON text content); its errors
// become tool error results or JSON-RPC errors (see toolFailure).
func addTool[In any](s *Server, t *sdk.Tool, fn func(context.Context, call, In) (*sdk.CallToolResult, any, error)) {
	schema, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok {
		panic("mcp: tool " + t.Name + " needs an input schema")
	}
	v := newValidator(schema)
	s.srv.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, out, err := runTool(ctx, s, req, v, fn)
		if err != nil {
			res, _, err = toolFailure(s.opt.Logger, t.Name, err)
			return res, err
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		if out != nil {
			data, err := json.Marshal(out)
			if err != nil {
				return nil, rpcError(s.opt.Logger, "tool "+t.Name, tenure.Internal("encode result", err))
			}
			res.StructuredContent = json.RawMessage(data)
			if res.Content == nil {
				res.Content = []sdk.Content{&sdk.TextContent{Text: string(data)}}
			}
		}
		return res, nil
	})
}

// runTool resolves the call's identity, decodes its arguments and runs fn.
func runTool[In any](ctx context.Context, s *Server, req *sdk.CallToolRequest, v *validator,
	fn func(context.Context, call, In) (*sdk.CallToolResult, any, error)) (*sdk.CallToolResult, any, error) {
	c, err := s.identity(req)
	if err != nil {
		return nil, nil, err
	}
	in, err := decodeInput[In](v, req.Params.Arguments)
	if err != nil {
		return nil, nil, err
	}
	return fn(ctx, c, in)
}

func (s *Server) remember(ctx context.Context, c call, in RememberInput) (*sdk.CallToolResult, any, error) {
	switch in.Kind {
	case KindObject:
		if f := setField(in, messageOnly); f != "" {
			return nil, nil, tenure.Errorf(tenure.CodeInvalid, f, "only for kind %q", KindMessage)
		}
		o, err := s.objectFrom(c, in)
		if err != nil {
			return nil, nil, err
		}
		res, err := s.store.Put(ctx, c.p, o)
		if err != nil {
			return nil, nil, err
		}
		return nil, RememberOutput{Kind: KindObject, Write: &res}, nil
	case KindMessage:
		if f := setField(in, objectOnly); f != "" {
			return nil, nil, tenure.Errorf(tenure.CodeInvalid, f, "only for kind %q", KindObject)
		}
		m, err := s.messageFrom(c, in)
		if err != nil {
			return nil, nil, err
		}
		res, err := s.store.AppendMessages(ctx, c.p, []tenure.Message{m})
		if err != nil {
			return nil, nil, unindex(err)
		}
		if s.opt.AfterAppend != nil && res.Appended > 0 {
			s.opt.AfterAppend(ctx, c.p, []tenure.Message{m})
		}
		return nil, RememberOutput{Kind: KindMessage, Message: &m, Append: &res}, nil
	}
	return nil, nil, tenure.Errorf(tenure.CodeInvalid, "kind", "want %q or %q, got %q", KindObject, KindMessage, in.Kind)
}

// messageOnly and objectOnly name the fields of one kind of remember.
var (
	messageOnly = []string{"thread_id", "id", "role", "speaker", "created_at"}
	objectOnly  = []string{"object_id", "key", "value", "object_type", "layer", "memory_type", "source", "why_it_matters",
		"supersedes", "is_constraint", "security_classification", "allow_roles", "deny_roles", "entities", "scope",
		"task_id", "valid_from", "valid_until", "valid_precision"}
)

// setField returns the first of fields that in sets, or "".
func setField(in RememberInput, fields []string) string {
	set := map[string]bool{
		"thread_id": in.ThreadID != "", "id": in.ID != "", "role": in.Role != "", "speaker": in.Speaker != "",
		"created_at": in.CreatedAt != "", "object_id": in.ObjectID != "", "key": in.Key != "", "value": in.Value != nil,
		"object_type": in.ObjectType != "", "layer": in.Layer != "", "memory_type": in.MemoryType != "",
		"source": in.Source != "", "why_it_matters": in.WhyItMatters != "", "supersedes": in.Supersedes != "",
		"is_constraint": in.IsConstraint, "security_classification": in.SecurityClassification != "",
		"allow_roles": len(in.AllowRoles) > 0, "deny_roles": len(in.DenyRoles) > 0, "entities": len(in.Entities) > 0,
		"scope": in.Scope != "", "task_id": in.TaskID != "", "valid_from": in.ValidFrom != "", "valid_until": in.ValidUntil != "",
		"valid_precision": in.ValidPrecision != "",
	}
	for _, f := range fields {
		if set[f] {
			return f
		}
	}
	return ""
}

// objectFrom builds the object remember writes; scope fields it leaves
// empty come from the server's scope.
func (s *Server) objectFrom(c call, in RememberInput) (tenure.Object, error) {
	o := tenure.Object{ObjectID: in.ObjectID, Key: in.Key, Content: in.Content, ObjectType: tenure.ObjectType(in.ObjectType),
		Layer: tenure.Layer(in.Layer), MemoryType: tenure.MemoryType(in.MemoryType), Source: in.Source,
		WhyItMatters: in.WhyItMatters, Supersedes: in.Supersedes, IsConstraint: in.IsConstraint,
		SecurityClassification: tenure.Classification(in.SecurityClassification),
		PermissionScope:        tenure.PermissionScope{AllowRoles: in.AllowRoles, DenyRoles: in.DenyRoles},
		CanonicalEntityIDs:     in.Entities, Scope: tenure.ScopeKind(in.Scope),
		UserID: in.UserID, ProjectID: c.s.ProjectID, SessionID: firstSet(in.SessionID, c.s.SessionID),
		TaskID: firstSet(in.TaskID, c.s.TaskID), ScopeID: c.s.ScopeID, ValidPrecision: tenure.Precision(in.ValidPrecision)}
	if in.Value != nil {
		v, err := json.Marshal(in.Value)
		if err != nil {
			return o, tenure.Errorf(tenure.CodeInvalid, "value", "not JSON: %v", err)
		}
		o.Value = v
	}
	if in.Content == "" && in.Value == nil {
		return o, tenure.Errorf(tenure.CodeInvalid, "content", "an object needs content or a value")
	}
	from, err := tenure.ParseTime("valid_from", in.ValidFrom)
	if err != nil {
		return o, err
	}
	if from != nil {
		o.ValidFrom = *from
	}
	o.ValidUntil, err = tenure.ParseTime("valid_until", in.ValidUntil)
	return o, err
}

// messageFrom builds the message remember appends.
func (s *Server) messageFrom(c call, in RememberInput) (tenure.Message, error) {
	m := tenure.Message{ThreadID: in.ThreadID, ID: in.ID, Role: in.Role, Speaker: in.Speaker, Content: in.Content,
		UserID: in.UserID, ProjectID: c.s.ProjectID, SessionID: firstSet(in.SessionID, c.s.SessionID)}
	if m.ThreadID == "" {
		return m, tenure.Errorf(tenure.CodeInvalid, "thread_id", "required for a message")
	}
	if m.Role == "" {
		return m, tenure.Errorf(tenure.CodeInvalid, "role", "required for a message (one of %s)", strings.Join(tenure.MessageRoles, ", "))
	}
	if m.ID == "" {
		m.ID = s.opt.NewID()
	}
	at, err := tenure.ParseTime("created_at", in.CreatedAt)
	if err != nil {
		return m, err
	}
	m.CreatedAt = s.opt.Now().UTC()
	if at != nil {
		m.CreatedAt = *at
	}
	return m, nil
}

// unindex drops the "[0]." prefix a batch operation puts on the field of
// its only item's error.
func unindex(err error) error {
	te := *tenure.AsError(err)
	if f, ok := strings.CutPrefix(te.Field, "[0]."); ok {
		te.Field = f
		return &te
	}
	return err
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// request builds a compile request for the call.
func (s *Server) request(c call, query string, budget int, taskType, mode string) (compile.Request, error) {
	if strings.TrimSpace(query) == "" {
		return compile.Request{}, tenure.Errorf(tenure.CodeInvalid, "query", "required")
	}
	if budget == 0 {
		budget = s.opt.DefaultBudget
	}
	return compile.Request{Principal: c.p, Scope: c.s, Query: query, Budget: budget,
		TaskType: tenure.TaskType(taskType), Mode: compile.Mode(mode)}, nil
}

func (s *Server) compileContext(ctx context.Context, c call, in CompileInput) (*sdk.CallToolResult, any, error) {
	req, err := s.request(c, in.Query, in.Budget, in.TaskType, in.Mode)
	if err != nil {
		return nil, nil, err
	}
	req.RulesOverflow, req.ThreadID, req.Threads, req.WorkflowID = in.RulesOverflow, in.ThreadID, in.Threads, in.WorkflowID
	format, err := compile.ParseFormat(in.Format)
	if err != nil {
		return nil, nil, err
	}
	if in.ThreadID != "" && in.TailTurns > 0 {
		if req.Tail, err = s.tail(ctx, c, in.ThreadID, in.TailTurns); err != nil {
			return nil, nil, err
		}
	}
	env, tr, err := s.compile(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	out := CompileOutput{Format: format, Tokens: env.Tokens, Budget: env.Budget, Tokenizer: env.Tokenizer,
		TraceID: tr.TraceID, CacheKey: env.CacheKey, Compiled: len(tr.Compiled), Envelope: env.Render(format)}
	if format != compile.FormatText {
		return nil, out, nil
	}
	txt := out.Envelope.(string)
	if strings.TrimSpace(txt) == "" {
		txt = "(empty envelope: nothing visible to the principal is relevant to this query)\n"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: txt}}}, out, nil
}

// compile runs a compilation if the concurrency cap admits it, and
// reports it to OnCompile.
func (s *Server) compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
	release, err := s.opt.Compiles.Acquire(ctx)
	if err != nil {
		return compile.Envelope{}, compile.Trace{}, err
	}
	defer release()
	start := time.Now()
	env, tr, err := s.opt.Compiler.Compile(ctx, req)
	if s.opt.OnCompile != nil {
		s.opt.OnCompile(ctx, req.Principal, env, tr, time.Since(start), err)
	}
	return env, tr, err
}

// tail returns the latest n turns of a thread, oldest first, as the
// compiler's recent conversation. Errors: CodeNotFound (no visible turns).
func (s *Server) tail(ctx context.Context, c call, thread string, n int) ([]compile.Message, error) {
	var last []tenure.Message
	f := tenure.MessageFilter{Scope: c.s, ThreadID: thread, Limit: messagePage}
	for {
		page, err := s.store.Messages(ctx, c.p, f)
		if err != nil {
			return nil, err
		}
		last = append(last, page...)
		if len(last) > n {
			last = slices.Clone(last[len(last)-n:])
		}
		if len(page) < messagePage {
			break
		}
		f.AfterID = page[len(page)-1].ID
	}
	if len(last) == 0 {
		return nil, tenure.Errorf(tenure.CodeNotFound, "thread_id", "no messages in thread %q", thread)
	}
	out := make([]compile.Message, len(last))
	for i, m := range last {
		out[i] = compile.Message{ID: m.ID, Role: m.Role, Speaker: m.Speaker, Content: m.Text(), CreatedAt: m.CreatedAt}
	}
	return out, nil
}

func (s *Server) recall(ctx context.Context, c call, in RecallInput) (*sdk.CallToolResult, any, error) {
	req, err := s.request(c, in.Query, in.Budget, in.TaskType, "")
	if err != nil {
		return nil, nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	if limit > maxRecall {
		return nil, nil, tenure.Errorf(tenure.CodeInvalid, "limit", "at most %d", maxRecall)
	}
	_, tr, err := s.compile(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	ranked := slices.Clone(tr.Compiled)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Score > ranked[j].Score })
	out := RecallOutput{Query: in.Query, TraceID: tr.TraceID, Hits: []Hit{}}
	for _, co := range ranked {
		if len(out.Hits) == limit {
			break
		}
		if isMessage(co) {
			continue
		}
		o, err := s.store.Get(ctx, c.p, co.ObjectID, c.read())
		if tenure.ErrorCode(err) == tenure.CodeNotFound {
			continue // an input of the request, or retired since the compilation
		}
		if err != nil {
			return nil, nil, err
		}
		out.Hits = append(out.Hits, Hit{Rank: len(out.Hits) + 1, ObjectID: o.ObjectID, Key: o.Key, Content: o.Content,
			Value: o.Value, Layer: o.Layer, ObjectType: o.ObjectType, Score: co.Score, Tier: co.PriorityTier,
			CompiledAs: co.CompiledAs, Section: string(co.Section), AuthorityLevel: co.AuthorityLevel,
			Reason: reason(co), ValidFrom: o.ValidFrom})
	}
	return nil, out, nil
}

// isMessage reports whether a compiled entry is a past conversation turn
// rather than a stored object.
func isMessage(co compile.CompiledObject) bool {
	return strings.HasPrefix(co.ObjectID, "msg:") && strings.HasPrefix(co.SourceOrigin, "message://")
}

// reason says in words why the compiler selected an object.
func reason(co compile.CompiledObject) string {
	return fmt.Sprintf("%s priority (score %.3g, authority level %d), compiled as %s in the %s section",
		co.PriorityTier, co.Score, co.AuthorityLevel, strings.ReplaceAll(string(co.CompiledAs), "_", " "), co.Section)
}

func (s *Server) supersede(ctx context.Context, c call, in SupersedeInput) (*sdk.CallToolResult, any, error) {
	if in.Old == "" {
		return nil, nil, tenure.Errorf(tenure.CodeInvalid, "old", "required: the id or key of the object to replace")
	}
	if in.Value == nil && in.Content == "" {
		return nil, nil, tenure.Errorf(tenure.CodeInvalid, "value", "the new claim needs a value or content")
	}
	old, err := s.store.Get(ctx, c.p, in.Old, c.read())
	if tenure.ErrorCode(err) == tenure.CodeNotFound {
		old, err = s.store.CurrentValue(ctx, c.p, in.Old, c.read())
	}
	if tenure.ErrorCode(err) == tenure.CodeNotFound {
		return nil, nil, tenure.Errorf(tenure.CodeNotFound, "old", "no object with id or key %q", in.Old)
	}
	if err != nil {
		return nil, nil, err
	}
	o := tenure.Object{Key: firstSet(in.Key, old.Key), Content: in.Content, Supersedes: old.ObjectID,
		ObjectType: old.ObjectType, Layer: old.Layer, MemoryType: old.MemoryType, Source: firstSet(in.Source, old.Source),
		CanonicalEntityIDs: old.CanonicalEntityIDs, Aliases: old.Aliases, WhyItMatters: old.WhyItMatters,
		ApplicableTaskTypes: old.ApplicableTaskTypes, BehavioralImplication: old.BehavioralImplication,
		IsConstraint: old.IsConstraint, ConstraintType: old.ConstraintType,
		SecurityClassification: old.SecurityClassification, PermissionScope: old.PermissionScope,
		UserID: old.UserID, ProjectID: old.ProjectID, SessionID: old.SessionID, TaskID: old.TaskID,
		Scope: old.Scope, ScopeID: old.ScopeID, DecayRule: old.DecayRule, RetirementRule: old.RetirementRule}
	if in.Value != nil {
		if o.Value, err = json.Marshal(in.Value); err != nil {
			return nil, nil, tenure.Errorf(tenure.CodeInvalid, "value", "not JSON: %v", err)
		}
	}
	res, err := s.store.Put(ctx, c.p, o)
	if err != nil {
		return nil, nil, err
	}
	return nil, res, nil
}

func (s *Server) expand(ctx context.Context, c call, in ExpandInput) (*sdk.CallToolResult, any, error) {
	x, err := s.store.Expand(ctx, c.p, tenure.ExpandRequest{UID: in.UID, ThreadID: in.ThreadID})
	if err != nil {
		return nil, nil, err
	}
	return nil, x, nil
}

func (s *Server) history(ctx context.Context, c call, in HistoryInput) (*sdk.CallToolResult, any, error) {
	if in.Key == "" {
		return nil, nil, tenure.Errorf(tenure.CodeInvalid, "key", "required")
	}
	h, err := s.store.History(ctx, c.p, in.Key, c.s)
	if err != nil {
		return nil, nil, err
	}
	return nil, h, nil
}

func (s *Server) forget(ctx context.Context, c call, in ForgetInput) (*sdk.CallToolResult, any, error) {
	if len(in.ObjectIDs) == 0 {
		return nil, nil, tenure.Errorf(tenure.CodeInvalid, "object_ids", "name at least one object")
	}
	for i, id := range in.ObjectIDs {
		if id == "" {
			return nil, nil, tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("object_ids[%d]", i), "empty id")
		}
	}
	rep, err := s.store.Retire(ctx, c.p, tenure.RetireOptions{Scope: c.s, ObjectIDs: in.ObjectIDs,
		Rule: tenure.RetirementRule(in.Rule), DryRun: in.DryRun})
	if err != nil {
		return nil, nil, err
	}
	return nil, rep, nil
}
