package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

// Memory tool names.
const (
	ToolMemoriesList        = "memories_list"
	ToolMemoryPin           = "memory_pin"
	ToolMemorySetImportance = "memory_set_importance"
)

// MemoriesListInput is the input of the memories_list tool.
type MemoriesListInput struct {
	Type     string `json:"type,omitempty" jsonschema:"only memories of this type: profile, people or project"`
	Entity   string `json:"entity,omitempty" jsonschema:"only memories about this entity ref, <type>:<slug> (person:john_doe)"`
	Archived bool   `json:"archived,omitempty" jsonschema:"include archived memories"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many memories"`
}

// MemoryPinInput is the input of the memory_pin tool.
type MemoryPinInput struct {
	ObjectID string `json:"object_id" jsonschema:"the memory's object id"`
	Pinned   *bool  `json:"pinned,omitempty" jsonschema:"true to pin (the default), false to unpin"`
}

// MemoryImportanceInput is the input of the memory_set_importance tool.
type MemoryImportanceInput struct {
	ObjectID   string `json:"object_id" jsonschema:"the memory's object id"`
	Importance int    `json:"importance" jsonschema:"0 trivial, 1 standard, 2 significant (shown on entity cards), 3 core identity"`
}

// MemoriesOutput is what memories_list returns.
type MemoriesOutput struct {
	Memories []tenure.Object `json:"memories"`
}

func (s *Server) addMemoryTools() {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	addTool(s, &sdk.Tool{Name: ToolMemoriesList, Title: "List memories",
		Description: "List memories (facts about the user, the people in the user's life and the user's projects) by type and entity: pinned first, then importance, then recency.",
		Annotations: readOnly,
		InputSchema: inputSchema[MemoriesListInput](map[string]prop{
			"type":  {enum: vocab(tenure.MemoryKinds)},
			"limit": {def: 100, min: num(0), max: num(10000)},
		}),
	}, s.memoriesList)
	addTool(s, &sdk.Tool{Name: ToolMemoryPin, Title: "Pin a memory",
		Description: "Pin a memory (importance 3, always in the foundation set and on entity cards, never archived by the curator) or unpin it. A new version of the memory.",
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(bool)},
		InputSchema: inputSchema[MemoryPinInput](nil),
	}, s.memoryPin)
	addTool(s, &sdk.Tool{Name: ToolMemorySetImportance, Title: "Set a memory's importance",
		Description: "Set a memory's importance: 0 trivial, 1 standard, 2 significant (shown on entity cards), 3 core identity. A new version of the memory.",
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(bool)},
		InputSchema: inputSchema[MemoryImportanceInput](map[string]prop{
			"importance": {min: num(0), max: num(3)},
		}),
	}, s.memorySetImportance)
}

func (s *Server) memoriesList(ctx context.Context, c call, in MemoriesListInput) (*sdk.CallToolResult, any, error) {
	objs, err := memory.List(ctx, s.store, c.p, memory.Query{Scope: c.s, Kind: tenure.MemoryKind(in.Type), Entity: in.Entity,
		Archived: in.Archived, Limit: in.Limit})
	if err != nil {
		return nil, nil, err
	}
	if objs == nil {
		objs = []tenure.Object{}
	}
	return nil, MemoriesOutput{Memories: objs}, nil
}

func (s *Server) memoryPin(ctx context.Context, c call, in MemoryPinInput) (*sdk.CallToolResult, any, error) {
	pinned := in.Pinned == nil || *in.Pinned
	res, err := memory.SetPinned(ctx, s.store, c.p, in.ObjectID, pinned)
	if err != nil {
		return nil, nil, prefixMemoryField(err)
	}
	return nil, res, nil
}

func (s *Server) memorySetImportance(ctx context.Context, c call, in MemoryImportanceInput) (*sdk.CallToolResult, any, error) {
	res, err := memory.SetImportance(ctx, s.store, c.p, in.ObjectID, in.Importance)
	if err != nil {
		return nil, nil, prefixMemoryField(err)
	}
	return nil, res, nil
}

// prefixMemoryField names the tools' input (object_id) where the memory
// operations name an id.
func prefixMemoryField(err error) error {
	if e := tenure.AsError(err); e.Field == "id" {
		c := *e
		c.Field = "object_id"
		return &c
	}
	return err
}
