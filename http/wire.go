package http

import (
	"encoding/json"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// The request and response bodies of the API that are not domain types.
// Domain types (tenure.Object, tenure.WriteResult, compile.Request, …) go
// over the wire in their own JSON form.

// ErrorBody is the body of every error response. Its status comes from
// tenure.HTTPStatus(Code).
type ErrorBody struct {
	Code    tenure.Code `json:"code"`
	Message string      `json:"message"`
	Field   string      `json:"field"`
}

// BatchRequest is the body of POST /v1/objects/batch: objects written in
// one transaction, all or nothing.
type BatchRequest struct {
	Objects []tenure.Object `json:"objects"`
}

// BatchResponse reports a batch write, one result per object in order.
type BatchResponse struct {
	Results []tenure.WriteResult `json:"results"`
}

// ObjectList is the body of GET /v1/objects: one page of the listing.
// Next, when set, is the cursor of the next page (pass it back as the
// cursor parameter with the same filters); it is absent on the last page.
// A page may hold fewer objects than the limit and still have a next one:
// a page scans at most 5,000 stored objects (see engine.Engine.ListPage).
type ObjectList struct {
	Objects []tenure.Object `json:"objects"`
	Next    string          `json:"next,omitempty"`
}

// ResolutionList is the body of GET /v1/resolutions.
type ResolutionList struct {
	Resolutions []tenure.Resolution `json:"resolutions"`
}

// EndSessionResult is the body of POST /v1/sessions/{id}/end.
type EndSessionResult struct {
	SessionID string `json:"session_id"`
	Cleared   int    `json:"cleared"`
}

// AppendRequest is the body of POST /v1/messages: messages appended in one
// transaction, all or nothing.
type AppendRequest struct {
	Messages []tenure.Message `json:"messages"`
}

// ExtractRequest is the body of POST /v1/extract: digest a thread now.
type ExtractRequest struct {
	// ThreadID is the thread to digest (required).
	ThreadID string `json:"thread_id"`
	// Summaries runs the narrative channel besides state extraction
	// (default true).
	Summaries *bool `json:"summaries,omitempty"`
}

// MessageList is the body of GET /v1/messages.
type MessageList struct {
	Messages []tenure.Message `json:"messages"`
}

// CompileResponse is the body of POST /v1/compile.
type CompileResponse struct {
	// TraceID names the compilation's trace, kept by the server for a
	// while and readable at GET /v1/traces/{id}.
	TraceID string `json:"trace_id"`
	// Format is the envelope's rendering: text, json, openai or anthropic.
	Format string `json:"format"`
	Tokens int    `json:"tokens"`
	Budget int    `json:"budget"`
	// CacheKey hashes the envelope's static prefix.
	CacheKey string `json:"cache_key"`
	// Envelope is the rendered envelope: a string (text), a compile.Envelope
	// (json), a list of chat messages (openai) or a system-and-messages
	// prompt (anthropic).
	Envelope json.RawMessage `json:"envelope"`
	// Trace is the compilation's trace, when asked for with trace=true.
	Trace *compile.Trace `json:"trace,omitempty"`
}

// IdentityRequest is the body of PUT /v1/identity: who the caller is for
// one session, written once as the session's identity-layer object. The
// user id, tenant, authority, roles and permissions always come from the
// API key; the descriptive fields default to the key's principal.
type IdentityRequest struct {
	SessionID    string `json:"session_id"`
	UserName     string `json:"user_name,omitempty"`
	Department   string `json:"department,omitempty"`
	Organization string `json:"organization,omitempty"`
}

// EnvironmentRequest is the body of PUT /v1/environment: external context
// (time zone, location, system state) written as environment-layer
// objects keyed "env.NAME", each replacing the previous value. Writing the
// environment needs the environment:write permission or the top rank.
type EnvironmentRequest struct {
	// Values maps names to any JSON values.
	Values map[string]json.RawMessage `json:"values"`
	// ProjectID and SessionID narrow the values to a project or session.
	ProjectID string `json:"project_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// Health is the body of GET /healthz and GET /readyz.
type Health struct {
	Status string `json:"status"`
	// Version is the build's version (tenure.Version), on /healthz.
	Version string `json:"version,omitempty"`
}
