package engine

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tenure-dev/tenure"
)

// Full-text ranking of objects counts its statistics (document count,
// average length, document frequencies) over the objects the reader may
// read in the scope, not over the whole index: an object the reader cannot
// read must change neither a visible object's score nor which visible
// objects are returned (docs/security.md, No existence oracles). Which
// objects a reader may read is decided by Keep, a Go predicate, so the
// stores group their open objects into audience classes — the objects that
// share everything Keep looks at (user, persona, project, session, task,
// sandbox, classification, allow and deny roles) — and keep each class's
// count and total length as objects are written, closed and deleted. A
// search asks Keep once per class of its tenant that the scope's SQL
// prefilter lets through (a handful), sums the readable ones' statistics
// and matches only objects of those classes: no object of another class
// is counted, scored or returned.

// ObjectClass is an audience class of a tenant's open objects, as a store
// keeps it: its id, its audience (Audience's encoding) and its objects'
// count and total length (in the store's unit: FTS5 tokens, lexemes).
type ObjectClass struct {
	ID       int64
	Audience string
	Docs     int64
	Length   int64
}

// audience is what Keep may look at in an object, encoded with the
// object's own JSON names so that it decodes into a tenure.Object.
type audience struct {
	UserID                 string                 `json:"user_id,omitempty"`
	PersonaID              string                 `json:"persona_id,omitempty"`
	ProjectID              string                 `json:"project_id,omitempty"`
	SessionID              string                 `json:"session_id,omitempty"`
	TaskID                 string                 `json:"task_id,omitempty"`
	Scope                  tenure.ScopeKind       `json:"scope,omitempty"`
	ScopeID                string                 `json:"scope_id,omitempty"`
	SecurityClassification tenure.Classification  `json:"security_classification,omitempty"`
	PermissionScope        tenure.PermissionScope `json:"permission_scope"`
}

// Audience returns the key of o's audience class: the fields that decide
// who may read o, roles sorted, as JSON. Objects with equal keys are read
// by the same principals in the same scopes.
func Audience(o *tenure.Object) string {
	a := audience{UserID: o.UserID, PersonaID: o.PersonaID, ProjectID: o.ProjectID, SessionID: o.SessionID, TaskID: o.TaskID,
		SecurityClassification: o.SecurityClassification}
	if o.Scope.Sandboxed() {
		a.Scope, a.ScopeID = o.Scope, o.ScopeID
	}
	if r := o.PermissionScope.AllowRoles; len(r) > 0 {
		a.PermissionScope.AllowRoles = slices.Compact(slices.Sorted(slices.Values(r)))
	}
	if r := o.PermissionScope.DenyRoles; len(r) > 0 {
		a.PermissionScope.DenyRoles = slices.Compact(slices.Sorted(slices.Values(r)))
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err) // strings and string slices always encode
	}
	return string(b)
}

// ReadableClasses returns the ids of the classes of tenant whose objects
// keep keeps (every class when keep is nil), sorted, and their objects'
// count and total length: the statistics of a search over what the
// reader may read. An audience that does not decode is an error, never a
// class silently counted or left out.
func ReadableClasses(tenant string, classes []ObjectClass, keep func(*tenure.Object) bool) (ids []int64, docs, length int64, err error) {
	for _, c := range classes {
		if keep != nil {
			var o tenure.Object
			if err := json.Unmarshal([]byte(c.Audience), &o); err != nil {
				return nil, 0, 0, fmt.Errorf("object class %d: audience %q: %w", c.ID, c.Audience, err)
			}
			o.TenantID = tenant
			if !keep(&o) {
				continue
			}
		}
		ids = append(ids, c.ID)
		docs += c.Docs
		length += c.Length
	}
	slices.Sort(ids)
	return ids, docs, length, nil
}
