package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/tenure-dev/tenure"
)

// Store is what the memory operations read and write through;
// tenure.Store (the engine, the HTTP client) satisfies it.
type Store interface {
	// Get returns an object's latest version. Errors: CodeNotFound.
	Get(ctx context.Context, p tenure.Principal, id string, r tenure.Read) (tenure.Object, error)
	// Put writes a new version. Errors: CodeInvalid, CodeForbidden,
	// CodeNotFound, CodeConflict.
	Put(ctx context.Context, p tenure.Principal, o tenure.Object) (tenure.WriteResult, error)
	// List returns latest versions. Errors: CodeInvalid.
	List(ctx context.Context, p tenure.Principal, f tenure.Filter) ([]tenure.Object, error)
}

// Query selects memories for List.
type Query struct {
	Scope tenure.Scope `json:"scope"`
	// Kind keeps one memory type (profile, people, project; "" all).
	Kind tenure.MemoryKind `json:"type,omitempty"`
	// Entity keeps memories about this entity ref (person:john_doe; the
	// slug is normalized, and a bare name means a person).
	Entity string `json:"entity,omitempty"`
	// Archived includes archived (and otherwise inactive) memories.
	Archived bool `json:"archived,omitempty"`
	// Limit caps the result (default 100, at most 10,000).
	Limit int `json:"limit,omitempty"`
}

// Validate checks the query. Errors: CodeInvalid naming type, entity or
// limit.
func (q Query) Validate() error {
	if q.Kind != "" {
		if _, err := tenure.ParseVocab("type", string(q.Kind), tenure.MemoryKinds); err != nil {
			return err
		}
	}
	if q.Entity != "" {
		if _, _, err := tenure.ParseEntityRef("entity", tenure.NormalizeEntityRef(q.Entity)); err != nil {
			return err
		}
	}
	if q.Limit < 0 || q.Limit > 10000 {
		return tenure.Errorf(tenure.CodeInvalid, "limit", "must be between 0 and 10000")
	}
	return nil
}

// List returns the memories q selects that p can read, in card order
// (see Sort). Errors: CodeInvalid.
func List(ctx context.Context, s Store, p tenure.Principal, q Query) ([]tenure.Object, error) {
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	kinds := tenure.MemoryKinds
	if q.Kind != "" {
		kinds = []tenure.MemoryKind{q.Kind}
	}
	entity := ""
	if q.Entity != "" {
		entity = tenure.NormalizeEntityRef(q.Entity)
	}
	limit := cmp.Or(q.Limit, 100)
	var out []tenure.Object
	for _, k := range kinds {
		f := tenure.Filter{Scope: q.Scope, KeyPrefix: string(k) + "|", Limit: 10000}
		if !q.Archived {
			f.Status = tenure.StatusActive
		}
		objs, err := s.List(ctx, p, f)
		if err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		for _, o := range objs {
			if o.Memory == nil || (entity != "" && !slices.Contains(o.Memory.EntityRefs, entity)) {
				continue
			}
			out = append(out, o)
		}
	}
	Sort(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Sort orders memories the way entity cards and the foundation set pick
// them: pinned first, then by effective importance, then the most
// recently confirmed or used, then by id.
func Sort(objs []tenure.Object) {
	slices.SortStableFunc(objs, func(a, b tenure.Object) int { return Compare(&a, &b) })
}

// Compare is Sort's order: negative when a comes first.
func Compare(a, b *tenure.Object) int {
	ma, mb := a.Memory, b.Memory
	if (ma != nil) != (mb != nil) {
		if ma != nil {
			return -1
		}
		return 1
	}
	if ma != nil {
		if ma.Pinned != mb.Pinned {
			if ma.Pinned {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(mb.EffectiveImportance(), ma.EffectiveImportance()); c != 0 {
			return c
		}
	}
	if c := b.MemoryActivity().Compare(a.MemoryActivity()); c != 0 {
		return c
	}
	return cmp.Compare(a.ObjectID, b.ObjectID)
}

// SetPinned pins or unpins memory id: a new version of it. Pinning sets
// its importance to 3; unpinning leaves the importance as it is (set it
// with SetImportance). Errors: CodeNotFound (no memory the principal can
// read), CodeInvalid (the object is not a memory, or it is archived),
// CodeForbidden (written by a higher authority).
func SetPinned(ctx context.Context, s Store, p tenure.Principal, id string, pinned bool) (tenure.WriteResult, error) {
	return edit(ctx, s, p, id, func(m *tenure.Memory) error {
		m.Pinned = pinned
		if pinned {
			m.Importance = tenure.Ptr(tenure.ImportanceCritical)
		}
		return nil
	})
}

// SetImportance sets memory id's importance (0 … 3): a new version of
// it. Errors as SetPinned, and CodeInvalid naming importance when n is
// out of range or the memory is pinned and n is not 3.
func SetImportance(ctx context.Context, s Store, p tenure.Principal, id string, n int) (tenure.WriteResult, error) {
	if n < tenure.ImportanceTrivial || n > tenure.ImportanceCritical {
		return tenure.WriteResult{}, fmt.Errorf("set importance: %w", tenure.Errorf(tenure.CodeInvalid, "importance", "must be 0 (trivial) … 3 (core identity), got %d", n))
	}
	return edit(ctx, s, p, id, func(m *tenure.Memory) error {
		if m.Pinned && n != tenure.ImportanceCritical {
			return tenure.Errorf(tenure.CodeInvalid, "importance", "memory %s is pinned (importance 3); unpin it first", id)
		}
		m.Importance = tenure.Ptr(n)
		return nil
	})
}

// edit writes a new version of memory id changed by fn.
func edit(ctx context.Context, s Store, p tenure.Principal, id string, fn func(*tenure.Memory) error) (tenure.WriteResult, error) {
	if err := tenure.CheckID("id", id, true); err != nil {
		return tenure.WriteResult{}, fmt.Errorf("edit memory: %w", err)
	}
	o, err := s.Get(ctx, p, id, tenure.Read{})
	if err != nil {
		return tenure.WriteResult{}, fmt.Errorf("edit memory: %w", err)
	}
	if o.Memory == nil {
		return tenure.WriteResult{}, fmt.Errorf("edit memory: %w", tenure.Errorf(tenure.CodeInvalid, "id", "object %s is not a memory", id))
	}
	if o.Status != tenure.StatusActive {
		return tenure.WriteResult{}, fmt.Errorf("edit memory: %w", tenure.Errorf(tenure.CodeInvalid, "id", "memory %s is %s; write a new memory instead", id, o.Status))
	}
	m := *o.Memory
	if err := fn(&m); err != nil {
		return tenure.WriteResult{}, fmt.Errorf("edit memory: %w", err)
	}
	o.Memory = &m
	res, err := s.Put(ctx, p, o)
	if err != nil {
		return res, fmt.Errorf("edit memory: %w", err)
	}
	return res, nil
}
