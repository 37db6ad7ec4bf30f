package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure/entity"
)

// Entity registry tools (docs/entities.md). A registry the caller cannot
// read answers like a missing entity.

// Entity tool names.
const (
	ToolEntities      = "entities"
	ToolEntityShow    = "entity_show"
	ToolEntityResolve = "entity_resolve"
	ToolEntityMerge   = "entity_merge"
	ToolEntitySplit   = "entity_split"
	ToolEntitySettle  = "entity_settle"
	ToolEntityUndo    = "entity_undo"
)

// EntitiesInput is the input of entities.
type EntitiesInput struct {
	Status string `json:"status,omitempty" jsonschema:"only entities with this status (pending: waiting for review)"`
	Type   string `json:"type,omitempty" jsonschema:"only entities of this type"`
	UserID string `json:"user_id,omitempty" jsonschema:"another user's registry (needs scope:any_user; default: the caller's own and the shared one)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many entities"`
}

// EntitiesOutput is the result of entities.
type EntitiesOutput struct {
	Entities []entity.Entity `json:"entities"`
}

// EntityInput names an entity.
type EntityInput struct {
	ID     string `json:"id" jsonschema:"the entity's id, <type>:<slug> such as person:john_doe"`
	UserID string `json:"user_id,omitempty" jsonschema:"another user's registry (needs scope:any_user)"`
}

// ResolveInput is the input of entity_resolve.
type ResolveInput struct {
	Mention string `json:"mention" jsonschema:"a typed mention (person:Makesh, org:Acme Corp.) or a bare name"`
	UserID  string `json:"user_id,omitempty" jsonschema:"another user's registry (needs scope:any_user)"`
}

// MergeInput is the input of entity_merge.
type MergeInput struct {
	From   string `json:"from" jsonschema:"the entity merged away (its aliases move)"`
	Into   string `json:"into" jsonschema:"the entity it becomes"`
	UserID string `json:"user_id,omitempty" jsonschema:"another user's registry (needs scope:any_user)"`
	Reason string `json:"reason,omitempty" jsonschema:"why, for the history"`
}

// SplitInput is the input of entity_split.
type SplitInput struct {
	ID      string   `json:"id" jsonschema:"the entity to split"`
	Aliases []string `json:"aliases" jsonschema:"the alias keys (<type>:<slug>) that belong to the new entity"`
	Label   string   `json:"label,omitempty" jsonschema:"the new entity's display name (default: from the first alias)"`
	UserID  string   `json:"user_id,omitempty" jsonschema:"another user's registry (needs scope:any_user)"`
	Reason  string   `json:"reason,omitempty" jsonschema:"why, for the history"`
}

// SettleInput is the input of entity_settle.
type SettleInput struct {
	ID     string `json:"id" jsonschema:"the pending entity"`
	Into   string `json:"into,omitempty" jsonschema:"link it into this entity"`
	Keep   bool   `json:"keep,omitempty" jsonschema:"keep it as an entity of its own"`
	UserID string `json:"user_id,omitempty" jsonschema:"another user's registry (needs scope:any_user)"`
	Reason string `json:"reason,omitempty" jsonschema:"why, for the history"`
}

// UndoInput is the input of entity_undo.
type UndoInput struct {
	OpID string `json:"op_id" jsonschema:"the id of a merge, link, split or keep (an entity's ops list them)"`
}

func (s *Server) addEntityTools() {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	writes := &sdk.ToolAnnotations{OpenWorldHint: new(bool)}
	types := make([]string, 0, len(entity.Types))
	for _, t := range entity.Types {
		types = append(types, string(t))
	}
	addTool(s, &sdk.Tool{Name: ToolEntities, Title: "List entities",
		Description: "List the entities of the caller's registry and the shared one: people, organisations, places, projects and products " +
			"the stored objects mention, with their aliases. Pending entities wait for review: a mention that resembles an entity too " +
			"much to be new and too little to be linked automatically.",
		Annotations: readOnly,
		InputSchema: inputSchema[EntitiesInput](map[string]prop{
			"status": {enum: []string{"active", "pending", "merged"}}, "type": {enum: types},
			"limit": {min: num(0), max: num(entity.MaxList)},
		}),
	}, s.entities)
	addTool(s, &sdk.Tool{Name: ToolEntityShow, Title: "Show an entity",
		Description: "Return an entity with every version of it (what it was called, its aliases, merges) and the operations that named it.",
		Annotations: readOnly, InputSchema: inputSchema[EntityInput](nil),
	}, s.entityShow)
	addTool(s, &sdk.Tool{Name: ToolEntityResolve, Title: "Resolve a mention",
		Description: "Say what a name would resolve to: link (an existing entity, score at least 0.95), review (pending, at least 0.70) or new, " +
			"with the candidates and their scores. Writes nothing.",
		Annotations: readOnly, InputSchema: inputSchema[ResolveInput](nil),
	}, s.entityResolve)
	addTool(s, &sdk.Tool{Name: ToolEntityMerge, Title: "Merge entities",
		Description: "Merge one entity into another of the same type: its names resolve to the target from now on. Can be undone (entity_undo).",
		Annotations: writes, InputSchema: inputSchema[MergeInput](nil),
	}, s.entityMerge)
	addTool(s, &sdk.Tool{Name: ToolEntitySplit, Title: "Split an entity",
		Description: "Move aliases of an entity to a new entity: names that were wrongly taken for it. Can be undone (entity_undo).",
		Annotations: writes, InputSchema: inputSchema[SplitInput](nil),
	}, s.entitySplit)
	addTool(s, &sdk.Tool{Name: ToolEntitySettle, Title: "Settle a pending entity",
		Description: "Settle a pending entity: link it into an entity (into, usually one of its candidates) or keep it as an entity of its own (keep).",
		Annotations: writes, InputSchema: inputSchema[SettleInput](nil),
	}, s.entitySettle)
	addTool(s, &sdk.Tool{Name: ToolEntityUndo, Title: "Undo an entity operation",
		Description: "Undo a merge, link, split or keep.",
		Annotations: writes, InputSchema: inputSchema[UndoInput](nil),
	}, s.entityUndo)
}

func (s *Server) entities(ctx context.Context, c call, in EntitiesInput) (*sdk.CallToolResult, any, error) {
	es, err := s.store.Entities(ctx, c.p, entity.Query{UserID: in.UserID, Status: entity.Status(in.Status), Type: entity.Type(in.Type), Limit: in.Limit})
	if es == nil {
		es = []entity.Entity{}
	}
	return nil, EntitiesOutput{Entities: es}, err
}

func (s *Server) entityShow(ctx context.Context, c call, in EntityInput) (*sdk.CallToolResult, any, error) {
	v, err := s.store.Entity(ctx, c.p, in.ID, in.UserID)
	return nil, v, err
}

func (s *Server) entityResolve(ctx context.Context, c call, in ResolveInput) (*sdk.CallToolResult, any, error) {
	d, err := s.store.ResolveMention(ctx, c.p, in.Mention, in.UserID)
	return nil, d, err
}

func (s *Server) entityMerge(ctx context.Context, c call, in MergeInput) (*sdk.CallToolResult, any, error) {
	ch, err := s.store.MergeEntities(ctx, c.p, entity.MergeRequest(in))
	return nil, ch, err
}

func (s *Server) entitySplit(ctx context.Context, c call, in SplitInput) (*sdk.CallToolResult, any, error) {
	ch, err := s.store.SplitEntity(ctx, c.p, entity.SplitRequest(in))
	return nil, ch, err
}

func (s *Server) entitySettle(ctx context.Context, c call, in SettleInput) (*sdk.CallToolResult, any, error) {
	ch, err := s.store.SettleEntity(ctx, c.p, entity.SettleRequest(in))
	return nil, ch, err
}

func (s *Server) entityUndo(ctx context.Context, c call, in UndoInput) (*sdk.CallToolResult, any, error) {
	ch, err := s.store.UndoEntityOp(ctx, c.p, in.OpID)
	return nil, ch, err
}
