package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tenure-dev/tenure"
)

// ToolSessions names the sessions tool.
const ToolSessions = "sessions"

// SessionsInput is the input of the sessions tool.
type SessionsInput struct {
	ThreadID string `json:"thread_id,omitempty" jsonschema:"only this thread's sessions"`
	Active   bool   `json:"active,omitempty" jsonschema:"only the sessions still open"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many sessions"`
}

// SessionsOutput is the result of the sessions tool.
type SessionsOutput struct {
	State    tenure.SessionState `json:"state"`
	Sessions []tenure.Session    `json:"sessions"`
}

func (s *Server) addSessionTools() {
	if _, ok := s.store.(tenure.SessionStore); !ok {
		return
	}
	addTool(s, &sdk.Tool{Name: ToolSessions, Title: "Sessions",
		Description: "Return the caller's session state with its persona (message count, last interaction, the curator's last run, " +
			"the rolling summary's diagnostics) and its sessions, the latest first (started, last activity, ended, turns, summary key).",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)},
		InputSchema: inputSchema[SessionsInput](map[string]prop{"limit": {def: 20, min: num(1), max: num(1000)}}),
	}, s.sessions)
}

func (s *Server) sessions(ctx context.Context, c call, in SessionsInput) (*sdk.CallToolResult, any, error) {
	ss := s.store.(tenure.SessionStore)
	if in.Limit == 0 {
		in.Limit = 20
	}
	st, err := ss.SessionState(ctx, c.p)
	if err != nil {
		return nil, nil, err
	}
	list, err := ss.Sessions(ctx, c.p, tenure.SessionQuery{ThreadID: in.ThreadID, Active: in.Active, Limit: in.Limit})
	if err != nil {
		return nil, nil, err
	}
	if list == nil {
		list = []tenure.Session{}
	}
	return nil, SessionsOutput{State: st, Sessions: list}, nil
}
