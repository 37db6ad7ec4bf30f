package entity

import (
	"context"

	"github.com/tenure-dev/tenure"
)

// MaxList bounds a listing.
const MaxList = 1000

// Registry is the entity registry as principals use it: implemented by
// the engine (and so by every store) and by the HTTP client.
type Registry interface {
	// Entities lists the entities of the registries the principal reads
	// (CodeInvalid: a bad filter; CodeNotFound: another user's registry
	// without tenure.PermAnyUser).
	Entities(ctx context.Context, p tenure.Principal, q Query) ([]Entity, error)
	// Entity returns an entity with its versions and operations
	// (CodeNotFound: none the principal can read).
	Entity(ctx context.Context, p tenure.Principal, id, user string) (View, error)
	// ResolveMention says what a mention would resolve to in the registry
	// of an object with user_id user ("": the shared one), writing
	// nothing (CodeInvalid: not a mention; CodeNotFound: another user's
	// registry without tenure.PermAnyUser).
	ResolveMention(ctx context.Context, p tenure.Principal, mention, user string) (Decision, error)
	// MergeEntities merges one entity into another (CodeNotFound,
	// CodeForbidden, CodeConflict: already merged, or into pending;
	// CodeInvalid: different types or registries).
	MergeEntities(ctx context.Context, p tenure.Principal, r MergeRequest) (Change, error)
	// SplitEntity moves aliases to a new entity (CodeInvalid: an alias
	// that is not the entity's, or its id).
	SplitEntity(ctx context.Context, p tenure.Principal, r SplitRequest) (Change, error)
	// SettleEntity links a pending entity or keeps it (CodeConflict: not
	// pending).
	SettleEntity(ctx context.Context, p tenure.Principal, r SettleRequest) (Change, error)
	// UndoEntityOp undoes an operation (CodeConflict: undone, or no
	// longer undoable; CodeNotFound: none the principal can read).
	UndoEntityOp(ctx context.Context, p tenure.Principal, opID string) (Change, error)
}

// Query selects the entities a principal lists. UserID names a
// registry: "" reads the principal's own and the shared one; another
// user's needs tenure.PermAnyUser.
type Query struct {
	UserID string `json:"user_id,omitempty"`
	Status Status `json:"status,omitempty"`
	Type   Type   `json:"type,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// View is an entity with its history.
type View struct {
	Entity Entity `json:"entity"`
	// Versions are every version, oldest first (Entity is the last).
	Versions []Entity `json:"versions"`
	// Ops are the operations that named it.
	Ops []Op `json:"ops"`
}

// MergeRequest asks to merge From into Into.
type MergeRequest struct {
	From   string `json:"from"`
	Into   string `json:"into"`
	UserID string `json:"user_id,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// SplitRequest asks to move Aliases of ID to a new entity labelled Label.
type SplitRequest struct {
	ID      string   `json:"id"`
	Aliases []string `json:"aliases"`
	Label   string   `json:"label,omitempty"`
	UserID  string   `json:"user_id,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

// SettleRequest settles a pending entity: as Into (a link), or, with Keep,
// as an entity of its own.
type SettleRequest struct {
	ID     string `json:"id"`
	Into   string `json:"into,omitempty"`
	Keep   bool   `json:"keep,omitempty"`
	UserID string `json:"user_id,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Change is what an operation did: the op and the new versions.
type Change struct {
	Op       Op       `json:"op"`
	Entities []Entity `json:"entities"`
	// Claims are the changes a merge's re-reconciliation (or its undo)
	// made to stored claims, those the caller can read only.
	Claims []tenure.Change `json:"claims,omitempty"`
}
