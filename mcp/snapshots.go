package mcp

import (
	"context"
	"encoding/json"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

// Workflow snapshot tools (docs/snapshots.md). A workflow the caller
// cannot see answers like a missing one; a delta's agent is the caller.

// Snapshot tool names.
const (
	ToolSnapshotStart       = "snapshot_start"
	ToolSnapshotGet         = "snapshot_get"
	ToolSnapshotSubmitDelta = "snapshot_submit_delta"
	ToolSnapshotCloseRound  = "snapshot_close_round"
	ToolSnapshotPathHistory = "snapshot_path_history"
)

// SnapshotStartInput is the input of snapshot_start.
type SnapshotStartInput struct {
	WorkflowID string `json:"workflow_id" jsonschema:"the workflow's name"`
	Query      string `json:"query" jsonschema:"the original user query the workflow answers"`
	Strategy   string `json:"strategy,omitempty" jsonschema:"how a round's deltas are aggregated where they disagree"`
	// PathStrategies is snapshot.Workflow.PathStrategies.
	PathStrategies map[string]string `json:"path_strategies,omitempty" jsonschema:"strategies by path prefix (a singular JSONPath such as $.entities → a strategy); the longest matching prefix wins"`
	// Experts is snapshot.Workflow.Experts.
	Experts              []snapshot.Expert `json:"experts,omitempty" jsonschema:"for expert-override: per path prefix, the agent ids or roles that win there"`
	MaxStateSize         int               `json:"max_state_size,omitempty" jsonschema:"the state's size limit in bytes of compact JSON"`
	OnViolation          string            `json:"on_violation,omitempty" jsonschema:"over the size limit: clip (truncate long strings, then leave out the lightest deltas) or reject (leave out the lightest deltas, altering nothing)"`
	ConvergenceThreshold float64           `json:"convergence_threshold,omitempty" jsonschema:"a round that changes less than this share of the state converges (0: only a round that changes nothing)"`
	Classification       string            `json:"security_classification,omitempty" jsonschema:"the clearance needed to see the workflow"`
	AllowRoles           []string          `json:"allow_roles,omitempty" jsonschema:"only principals with one of these roles see it"`
	DenyRoles            []string          `json:"deny_roles,omitempty" jsonschema:"principals with one of these roles do not see it"`
}

// SnapshotGetInput is the input of snapshot_get.
type SnapshotGetInput struct {
	WorkflowID string `json:"workflow_id" jsonschema:"the workflow's name"`
	Round      *int   `json:"round,omitempty" jsonschema:"a past round's snapshot (default: the current one, its latest closed round)"`
	Deltas     *bool  `json:"deltas,omitempty" jsonschema:"include the round's deltas and what became of them"`
}

// SnapshotDeltaInput is the input of snapshot_submit_delta: one delta for
// the open round, whose agent is the caller.
type SnapshotDeltaInput struct {
	WorkflowID string   `json:"workflow_id" jsonschema:"the workflow's name"`
	Round      int      `json:"round" jsonschema:"the workflow's open round (snapshot_get says openRound); a closed round is refused"`
	Weight     *float64 `json:"weight" jsonschema:"the router-assigned weight of this contribution"`
	Operation  string   `json:"operation" jsonschema:"add (set a member, or append to an array named by the path), modify (replace what the path selects), remove (remove it), rebind (change a binding's concept id, the only way one changes)"`
	Path       string   `json:"path" jsonschema:"an RFC 9535 JSONPath into the state, such as $.bindings.customer or $.entities"`
	Value      any      `json:"value,omitempty" jsonschema:"the new value, any JSON (not for remove)"`
	Provenance string   `json:"provenance" jsonschema:"why this change: where the value comes from (for rebind, the reason)"`
}

// SnapshotCloseInput is the input of snapshot_close_round.
type SnapshotCloseInput struct {
	WorkflowID string `json:"workflow_id" jsonschema:"the workflow's name"`
	Round      int    `json:"round,omitempty" jsonschema:"the round you mean to close; refused when another round is open, so that a repeated close closes nothing (default: whichever round is open)"`
}

// SnapshotHistoryInput is the input of snapshot_path_history.
type SnapshotHistoryInput struct {
	WorkflowID string `json:"workflow_id" jsonschema:"the workflow's name"`
	Path       string `json:"path" jsonschema:"a JSONPath such as $.bindings.customer; a query (wildcards, filters) matches the deltas at, above or below what it selects"`
}

// HistoryOutput is the result of snapshot_path_history: the deltas and,
// as text, one line per delta ("Round N: agent → value (…)").
type HistoryOutput struct {
	snapshot.PathHistory
	Lines []string `json:"lines"`
}

func (s *Server) addSnapshotTools() {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	writes := &sdk.ToolAnnotations{OpenWorldHint: new(bool)}
	strategies := vocab(snapshot.Strategies)
	addTool(s, &sdk.Tool{Name: ToolSnapshotStart, Title: "Start a workflow snapshot",
		Description: "Start a multi-agent workflow: its round-0 snapshot holds the query and empty bindings (term → concept id), entities and rules, " +
			"and round 1 is open for deltas. Returns the snapshot.",
		Annotations: writes,
		InputSchema: inputSchema[SnapshotStartInput](map[string]prop{
			"strategy":                {enum: strategies, def: string(snapshot.WeightedMerge)},
			"max_state_size":          {def: snapshot.DefaultMaxStateSize, min: num(1), max: num(snapshot.MaxMaxStateSize)},
			"on_violation":            {enum: []string{snapshot.OnViolationClip, snapshot.OnViolationReject}, def: snapshot.OnViolationClip},
			"convergence_threshold":   {min: num(0), max: num(1)},
			"security_classification": {enum: vocab(tenure.Classifications)},
		}),
	}, s.snapshotStart)
	addTool(s, &sdk.Tool{Name: ToolSnapshotGet, Title: "Get a workflow snapshot",
		Description: "Return a workflow's current snapshot (or a past round's): the query, bindings, entities, rules and whatever else agents " +
			"contributed, its round and open round, its size, whether it converged, and the round's report.",
		Annotations: readOnly,
		InputSchema: inputSchema[SnapshotGetInput](map[string]prop{"round": {min: num(0)}, "deltas": {def: false}}),
	}, s.snapshotGet)
	addTool(s, &sdk.Tool{Name: ToolSnapshotSubmitDelta, Title: "Submit a delta",
		Description: "Contribute a change to the open round of a workflow, as the calling agent. Changes are aggregated when the round " +
			"closes. A concept id bound to a term never changes except by rebind. The same delta twice is one delta.",
		Annotations: writes,
		InputSchema: inputSchema[SnapshotDeltaInput](map[string]prop{
			"round":     {min: num(1)},
			"weight":    {min: num(0), max: num(1)},
			"operation": {enum: vocab(snapshot.Operations)},
		}),
	}, s.snapshotSubmit)
	addTool(s, &sdk.Tool{Name: ToolSnapshotCloseRound, Title: "Close a round",
		Description: "Close a workflow's open round (its creator, or scope:any_user): aggregate the round's deltas into the next snapshot and " +
			"report what changed, which deltas lost and why, what was clipped, and whether the workflow converged.",
		Annotations: writes,
		InputSchema: inputSchema[SnapshotCloseInput](map[string]prop{"round": {min: num(0)}}),
	}, s.snapshotClose)
	addTool(s, &sdk.Tool{Name: ToolSnapshotPathHistory, Title: "Path history",
		Description: "Return the deltas that touched a path of a workflow's state, round by round, with their agents, weights, " +
			"provenance and what became of them.",
		Annotations: readOnly,
		InputSchema: inputSchema[SnapshotHistoryInput](nil),
	}, s.snapshotHistory)
}

func (s *Server) snapshotStart(ctx context.Context, c call, in SnapshotStartInput) (*sdk.CallToolResult, any, error) {
	w := snapshot.Workflow{WorkflowID: in.WorkflowID, Query: in.Query, Strategy: snapshot.Strategy(in.Strategy), Experts: in.Experts,
		MaxStateSize: in.MaxStateSize, OnViolation: in.OnViolation, ConvergenceThreshold: in.ConvergenceThreshold,
		SecurityClassification: tenure.Classification(in.Classification), AllowRoles: in.AllowRoles, DenyRoles: in.DenyRoles}
	if len(in.PathStrategies) > 0 {
		w.PathStrategies = map[string]snapshot.Strategy{}
		for k, v := range in.PathStrategies {
			w.PathStrategies[k] = snapshot.Strategy(v)
		}
	}
	snap, err := s.store.StartWorkflow(ctx, c.p, w)
	return nil, snap, snakeField(err)
}

func (s *Server) snapshotGet(ctx context.Context, c call, in SnapshotGetInput) (*sdk.CallToolResult, any, error) {
	snap, err := s.store.Snapshot(ctx, c.p, in.WorkflowID, snapshot.Read{Round: in.Round, OmitDeltas: in.Deltas == nil || !*in.Deltas})
	return nil, snap, snakeField(err)
}

func (s *Server) snapshotSubmit(ctx context.Context, c call, in SnapshotDeltaInput) (*sdk.CallToolResult, any, error) {
	d := snapshot.Delta{Round: in.Round, Weight: in.Weight, Operation: snapshot.Operation(in.Operation), Path: in.Path, Provenance: in.Provenance}
	if in.Value != nil {
		v, err := json.Marshal(in.Value)
		if err != nil {
			return nil, nil, tenure.Errorf(tenure.CodeInvalid, "value", "not JSON: %v", err)
		}
		d.Value = v
	}
	res, err := s.store.SubmitDeltas(ctx, c.p, in.WorkflowID, []snapshot.Delta{d})
	if err != nil {
		return nil, nil, snakeField(unindex(err))
	}
	return nil, res, nil
}

func (s *Server) snapshotClose(ctx context.Context, c call, in SnapshotCloseInput) (*sdk.CallToolResult, any, error) {
	snap, err := s.store.CloseRound(ctx, c.p, in.WorkflowID, in.Round)
	return nil, snap, snakeField(err)
}

func (s *Server) snapshotHistory(ctx context.Context, c call, in SnapshotHistoryInput) (*sdk.CallToolResult, any, error) {
	h, err := s.store.PathHistory(ctx, c.p, in.WorkflowID, in.Path)
	if err != nil {
		return nil, nil, snakeField(err)
	}
	out := HistoryOutput{PathHistory: h, Lines: []string{}}
	for _, d := range h.Deltas {
		out.Lines = append(out.Lines, d.String())
	}
	text := strings.Join(out.Lines, "\n")
	if text == "" {
		text = "(no delta touched " + in.Path + ")"
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, nil, tenure.Internal("encode history", err)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: json.RawMessage(data)}, nil, nil
}

// snakeFields maps the store's field names to the tools' inputs'.
var snakeFields = map[string]string{"workflowId": "workflow_id", "maxStateSize": "max_state_size", "onViolation": "on_violation",
	"convergenceThreshold": "convergence_threshold", "securityClassification": "security_classification",
	"allowRoles": "allow_roles", "denyRoles": "deny_roles", "pathStrategies": "path_strategies"}

// snakeField names an error's field as the tools' inputs do (workflow_id,
// not the store's workflowId).
func snakeField(err error) error {
	if err == nil {
		return nil
	}
	te := *tenure.AsError(err)
	name, rest, _ := strings.Cut(te.Field, ".")
	snake, ok := snakeFields[name]
	if !ok {
		return err
	}
	te.Field = snake
	if rest != "" {
		te.Field += "." + rest
	}
	return &te
}
