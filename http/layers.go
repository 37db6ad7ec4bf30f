package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
)

// identityKey is the key of the session identity objects PUT /v1/identity
// writes.
const identityKey = "identity"

// identityValue is the value of an identity object: the IdentityRole of
// state-layers.md.
type identityValue struct {
	UserID       string   `json:"user_id"`
	UserName     string   `json:"user_name,omitempty"`
	Authority    string   `json:"authority"`
	Department   string   `json:"department,omitempty"`
	Organization string   `json:"organization,omitempty"`
	Roles        []string `json:"roles,omitempty"`
	Permissions  []string `json:"permissions,omitempty"`
}

// identityObject builds the identity-layer object of req's session for p.
func identityObject(p tenure.Principal, req IdentityRequest) (tenure.Object, error) {
	v := identityValue{UserID: p.UserID, UserName: first(req.UserName, p.UserName), Authority: p.Authority,
		Department: first(req.Department, p.Department), Organization: first(req.Organization, p.Organization),
		Roles: p.Roles, Permissions: p.Permissions}
	raw, err := json.Marshal(v)
	if err != nil {
		return tenure.Object{}, tenure.Internal("encode identity", err)
	}
	var b strings.Builder
	name := v.UserID
	if v.UserName != "" {
		name = fmt.Sprintf("%s (%s)", v.UserName, v.UserID)
	}
	fmt.Fprintf(&b, "User: %s; authority: %s", name, v.Authority)
	for _, f := range []struct{ label, v string }{{"department", v.Department}, {"organization", v.Organization},
		{"roles", strings.Join(v.Roles, ", ")}, {"permissions", strings.Join(v.Permissions, ", ")}} {
		if f.v != "" {
			fmt.Fprintf(&b, "; %s: %s", f.label, f.v)
		}
	}
	return tenure.Object{Key: identityKey, Layer: tenure.LayerIdentity, SessionID: req.SessionID, UserID: p.UserID,
		Value: raw, Content: b.String(), Source: "api_key"}, nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// setIdentity handles PUT /v1/identity. The identity of a session is
// written once; repeating the same identity confirms it, a different one
// is 409 conflict.
func (s *Server) setIdentity(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	req, err := decodeBody[IdentityRequest](s, r, "identity request")
	if err != nil {
		return nil, err
	}
	if req.SessionID == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "session_id", "required: an identity is set once per session")
	}
	o, err := identityObject(p, req)
	if err != nil {
		return nil, err
	}
	var res tenure.WriteResult
	err = s.metrics.op("put", func() (err error) { res, err = s.store.Put(r.Context(), p, o); return })
	if tenure.ErrorCode(err) == tenure.CodeConflict {
		prev, gerr := s.store.CurrentValue(r.Context(), p, identityKey, tenure.Read{Scope: tenure.Scope{SessionID: req.SessionID}})
		if gerr == nil && prev.Layer == tenure.LayerIdentity && prev.SessionID == req.SessionID &&
			bytes.Equal(tenure.CanonicalJSON(prev.Value), tenure.CanonicalJSON(o.Value)) {
			return tenure.WriteResult{Object: prev, Outcome: tenure.OutcomeConfirmed}, nil
		}
	}
	return res, err
}

// envKeyPrefix starts the keys of environment objects.
const envKeyPrefix = "env."

// setEnvironment handles PUT /v1/environment: one environment-layer
// object per value, written in one transaction.
func (s *Server) setEnvironment(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	req, err := decodeBody[EnvironmentRequest](s, r, "environment request")
	if err != nil {
		return nil, err
	}
	if len(req.Values) == 0 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "values", "required: name at least one value")
	}
	names := make([]string, 0, len(req.Values))
	for name := range req.Values {
		if name == "" {
			return nil, tenure.Errorf(tenure.CodeInvalid, "values", "empty name")
		}
		names = append(names, name)
	}
	slices.Sort(names)
	objs := make([]tenure.Object, len(names))
	for i, name := range names {
		objs[i] = tenure.Object{Key: envKeyPrefix + name, Value: req.Values[name], Layer: tenure.LayerEnvironment,
			ProjectID: req.ProjectID, SessionID: req.SessionID, Source: "environment"}
	}
	var res []tenure.WriteResult
	err = s.metrics.op("put_batch", func() (err error) { res, err = s.store.PutBatch(r.Context(), p, objs); return })
	if err != nil {
		return nil, envField(names, err)
	}
	return BatchResponse{Results: res}, nil
}

// envField names the value an indexed batch error is about
// ("[1].key" → "values.timezone"); scope errors keep their field.
func envField(names []string, err error) error {
	te := *tenure.AsError(err)
	var i int
	var rest string
	if n, _ := fmt.Sscanf(te.Field, "[%d]", &i); n == 1 && i >= 0 && i < len(names) {
		_, rest, _ = strings.Cut(te.Field, "].")
		switch rest {
		case "project_id", "session_id":
			te.Field = rest
		default:
			te.Field = "values." + names[i]
		}
	}
	return &te
}
