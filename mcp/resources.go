package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
)

// Resource URIs.
const (
	// IdentityURI is the principal's identity and its identity-layer
	// objects.
	IdentityURI = "tenure://identity"
	// StateURI is the current structured state: every active state item
	// the principal can see in its scope.
	StateURI = "tenure://state"
	// StateThreadTemplate is the current structured state of one thread.
	StateThreadTemplate = "tenure://state/{thread_id}"
)

// listLimit caps the objects a resource reads (tenure.Filter's maximum).
const listLimit = 10_000

// Identity is the JSON of the identity resource.
type Identity struct {
	Principal tenure.Principal `json:"principal"`
	Scope     tenure.Scope     `json:"scope"`
	// Objects are the identity-layer objects visible in the scope.
	Objects []tenure.Object `json:"identity_objects"`
}

// State is the JSON of the state resources.
type State struct {
	ThreadID string      `json:"thread_id,omitempty"`
	Items    []StateItem `json:"items"`
	// Truncated is set when the store held more objects than one read
	// returns, so that items may be missing.
	Truncated bool `json:"truncated,omitempty"`
}

// StateItem is a state item with the object it rides on.
type StateItem struct {
	ObjectID string `json:"object_id"`
	Key      string `json:"key"`
	tenure.StateItem
}

func (s *Server) addResources() {
	s.srv.AddResource(&sdk.Resource{URI: IdentityURI, Name: "identity", Title: "Identity",
		Description: "Who the calls run as (principal, scope) and the identity-layer objects visible to it, " +
			"as text and as JSON.", MIMEType: "application/json"}, s.readIdentity)
	s.srv.AddResource(&sdk.Resource{URI: StateURI, Name: "state", Title: "Structured state",
		Description: "The current structured state items (decisions, constraints, actions, risks, questions) of every " +
			"thread visible to the principal, one compact line each and as JSON.", MIMEType: "application/json"}, s.readState)
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: StateThreadTemplate, Name: "thread-state",
		Title: "Structured state of a thread", Description: "The current structured state items of one thread, " +
			"one compact line each and as JSON.", MIMEType: "application/json"}, s.readState)
}

func (s *Server) readIdentity(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	c, err := s.identity(req)
	if err != nil {
		return nil, rpcError(s.opt.Logger, "read "+IdentityURI, err)
	}
	objs, err := s.store.List(ctx, c.p, tenure.Filter{Scope: c.s, Layer: tenure.LayerIdentity, Status: tenure.StatusActive, Limit: listLimit})
	if err != nil {
		return nil, rpcError(s.opt.Logger, "read "+IdentityURI, err)
	}
	id := Identity{Principal: c.p, Scope: c.s, Objects: objs}
	if id.Objects == nil {
		id.Objects = []tenure.Object{}
	}
	return contents(req.Params.URI, identityText(id), id)
}

func (s *Server) readState(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	thread := ""
	if uri != StateURI {
		var ok bool
		if thread, ok = strings.CutPrefix(uri, StateURI+"/"); !ok || thread == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		var err error
		if thread, err = url.PathUnescape(thread); err != nil {
			return nil, rpcError(s.opt.Logger, "read "+uri, tenure.Errorf(tenure.CodeInvalid, "uri", "bad thread id: %v", err))
		}
	}
	c, err := s.identity(req)
	if err != nil {
		return nil, rpcError(s.opt.Logger, "read "+uri, err)
	}
	objs, err := s.store.List(ctx, c.p, tenure.Filter{Scope: c.s, Status: tenure.StatusActive, Limit: listLimit})
	if err != nil {
		return nil, rpcError(s.opt.Logger, "read "+uri, err)
	}
	st := State{ThreadID: thread, Items: []StateItem{}, Truncated: len(objs) == listLimit}
	for _, o := range objs {
		si := o.StateItem
		if si == nil || si.Status == "superseded" || (thread != "" && si.ThreadID != thread) {
			continue
		}
		st.Items = append(st.Items, StateItem{ObjectID: o.ObjectID, Key: o.Key, StateItem: *si})
	}
	sortState(st.Items)
	return contents(uri, stateText(st), st)
}

// contents returns a resource as compact text and as JSON.
func contents(uri, text string, v any) (*sdk.ReadResourceResult, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
		{URI: uri, MIMEType: "text/plain", Text: text},
		{URI: uri, MIMEType: "application/json", Text: string(data)},
	}}, nil
}

// identityText renders the identity resource: the principal, the scope and
// one line per identity object.
func identityText(id Identity) string {
	var b strings.Builder
	p := id.Principal
	fmt.Fprintf(&b, "principal: %s", orNone(p.UserID))
	if p.UserName != "" {
		fmt.Fprintf(&b, " (%s)", p.UserName)
	}
	fmt.Fprintf(&b, ", tenant %s, authority %s, clearance %s", p.TenantID, p.Authority, p.Clearance)
	if len(p.Roles) > 0 {
		fmt.Fprintf(&b, ", roles %s", strings.Join(p.Roles, ", "))
	}
	if len(p.Permissions) > 0 {
		fmt.Fprintf(&b, ", permissions %s", strings.Join(p.Permissions, ", "))
	}
	b.WriteString("\n")
	var scope []string
	for _, f := range []struct{ name, v string }{{"project", id.Scope.ProjectID}, {"user", id.Scope.UserID},
		{"session", id.Scope.SessionID}, {"task", id.Scope.TaskID}, {"sandbox", id.Scope.ScopeID}} {
		if f.v != "" {
			scope = append(scope, f.name+" "+f.v)
		}
	}
	fmt.Fprintf(&b, "scope: %s\n", orNone(strings.Join(scope, ", ")))
	fmt.Fprintf(&b, "identity objects: %d\n", len(id.Objects))
	for _, o := range id.Objects {
		fmt.Fprintf(&b, "- %s = %s\n", o.Key, oneLine(o.Content))
	}
	return b.String()
}

// stateText renders state items one per line, in the compiler's compact
// format: [uid] TYPE (status[, low]) topic: text [refs:N][ CONFLICT].
func stateText(st State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "State (items: %d", len(st.Items))
	if st.ThreadID != "" {
		fmt.Fprintf(&b, ", thread: %s", st.ThreadID)
	}
	if st.Truncated {
		b.WriteString(", truncated")
	}
	b.WriteString(")\n")
	for _, it := range st.Items {
		fmt.Fprintf(&b, "[%s] %s (%s", it.UID, strings.ToUpper(string(it.Type)), it.Status)
		if it.Confidence == tenure.ConfidenceLow {
			b.WriteString(", low")
		}
		b.WriteString(") ")
		if len(it.TopicTags) > 0 {
			b.WriteString(it.TopicTags[0] + ": ")
		}
		b.WriteString(oneLine(it.Text))
		fmt.Fprintf(&b, " [refs:%d]", len(it.Refs))
		if it.Conflict {
			b.WriteString(" CONFLICT")
		}
		if st.ThreadID == "" && it.ThreadID != "" {
			fmt.Fprintf(&b, " thread:%s", it.ThreadID)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sortState orders items as the compiler's state section does.
func sortState(items []StateItem) {
	slices.SortStableFunc(items, func(a, b StateItem) int { return tenure.CompareStateItems(&a.StateItem, &b.StateItem) })
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
