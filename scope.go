package tenure

import "strings"

// Scope is where a request runs inside the principal's tenant. Objects that
// name a project, user, session or task are visible only to requests in that
// same project, user, session or task; objects that leave them empty are
// visible throughout the tenant. Hypothetical and draft objects are visible
// only to requests inside their sandbox (ScopeID).
type Scope struct {
	ProjectID string `json:"project_id,omitempty"`
	// UserID defaults to the principal's user; naming another user needs
	// the PermAnyUser permission.
	UserID    string `json:"user_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
	// ScopeID names the hypothetical or draft sandbox the request reads in.
	ScopeID string `json:"scope_id,omitempty"`
}

// Resolve fills the scope's user from the principal and checks that the
// principal may act in it.
func (s Scope) Resolve(p Principal) (Scope, error) {
	if s.UserID == "" {
		s.UserID = p.UserID
	} else if s.UserID != p.UserID && !p.HasPermission(PermAnyUser) {
		return s, Errorf(CodeForbidden, "user_id", "principal %q may not act for user %q", p.UserID, s.UserID)
	}
	for _, f := range []struct{ name, v string }{{"project_id", s.ProjectID}, {"user_id", s.UserID},
		{"session_id", s.SessionID}, {"task_id", s.TaskID}, {"scope_id", s.ScopeID}} {
		if err := checkID(f.name, f.v, false); err != nil {
			return s, err
		}
	}
	return s, nil
}

// InScope reports whether o lies inside scope s (tenant and permissions are
// checked by Principal.CanRead).
func (s Scope) InScope(o *Object) bool {
	if o.UserID != "" && o.UserID != s.UserID {
		return false
	}
	if o.ProjectID != "" && o.ProjectID != s.ProjectID {
		return false
	}
	if o.SessionID != "" && o.SessionID != s.SessionID {
		return false
	}
	if o.TaskID != "" && o.TaskID != s.TaskID {
		return false
	}
	if o.Scope.Sandboxed() && o.ScopeID != s.ScopeID {
		return false
	}
	return true
}

// Visible reports whether principal p reading in scope s may see o. A
// denied object is indistinguishable from a missing one.
func Visible(p Principal, s Scope, o *Object) bool {
	return p.CanRead(o) && s.InScope(o)
}

// Specificity grows with how narrowly an object is scoped; among claims for
// the same key at the same authority, the more specific one is preferred.
func (o *Object) Specificity() int {
	n := 0
	if o.Scope.Sandboxed() {
		n += 32
	}
	if o.TaskID != "" {
		n += 16
	}
	if o.SessionID != "" {
		n += 8
	}
	if o.PersonaID != "" {
		n += 4 // a persona's claim is narrower than its user's global one
	}
	if o.UserID != "" {
		n += 2
	}
	if o.ProjectID != "" {
		n++
	}
	return n
}

// SameSlot reports whether a and b compete for the same slot: the same key
// in exactly the same scope. Only such claims are reconciled.
func SameSlot(a, b *Object) bool {
	return a.TenantID == b.TenantID && a.Key == b.Key && a.UserID == b.UserID && a.PersonaID == b.PersonaID &&
		a.ProjectID == b.ProjectID && a.SessionID == b.SessionID && a.TaskID == b.TaskID &&
		a.Scope.Sandboxed() == b.Scope.Sandboxed() && (!a.Scope.Sandboxed() || a.ScopeID == b.ScopeID)
}

// SlotKey identifies the slot an object fills: its tenant, key and scope.
func (o *Object) SlotKey() string {
	sandbox := ""
	if o.Scope.Sandboxed() {
		sandbox = o.ScopeID
	}
	parts := []string{o.TenantID, o.Key, o.UserID, o.ProjectID, o.SessionID, o.TaskID, sandbox}
	if o.PersonaID != "" {
		// Appended only when set, so that the slots of global objects
		// stored before personas keep their keys.
		parts = append(parts, "persona="+o.PersonaID)
	}
	return strings.Join(parts, "\x1f")
}
