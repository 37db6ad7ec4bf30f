package entity

import (
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
)

// NewEntity returns the first version of an entity for mention m with id
// (see FreeID), active or, with candidates, pending.
func NewEntity(m Mention, id, tenant, user string, candidates []Candidate) Entity {
	e := Entity{ID: id, TenantID: tenant, UserID: user, Type: m.Type, Label: m.Name, Aliases: []string{m.Key},
		Names: []string{m.Name}, Status: StatusActive, Version: 1}
	if id != m.Key {
		e.Aliases = append(e.Aliases, id)
	}
	if len(candidates) > 0 {
		e.Status, e.Candidates = StatusPending, slices.Clone(candidates)
	}
	return e
}

// FreeID returns key, or key with "_2", "_3" … appended, whichever taken
// does not report as taken.
func FreeID(key string, taken func(string) bool) string {
	id := key
	for n := 2; taken(id); n++ {
		id = key + "_" + itoa(n)
	}
	return id
}

// AddAlias returns the next version of e with mention m's key and name
// added (ok false: e already had both).
func AddAlias(e Entity, m Mention) (Entity, bool) {
	n := e.Clone()
	changed := false
	if !slices.Contains(n.Aliases, m.Key) {
		n.Aliases = append(n.Aliases, m.Key)
		changed = true
	}
	if m.Name != "" && !slices.Contains(n.Names, m.Name) {
		n.Names = append(n.Names, m.Name)
		changed = true
	}
	return n, changed
}

// Merge merges from into into: from becomes merged (its aliases and
// names move to into), into gains them. A pending from is a link (its
// review settled as into). It fails with CodeInvalid for the same entity
// or incompatible types, CodeConflict when either was merged already or
// into is pending.
func Merge(from, into Entity, op Op) (Entity, Entity, Op, error) {
	switch {
	case from.ID == into.ID:
		return from, into, op, tenure.Errorf(tenure.CodeInvalid, "into", "an entity cannot be merged into itself")
	case from.UserID != into.UserID:
		return from, into, op, tenure.Errorf(tenure.CodeInvalid, "into", "%q and %q are in different registries (a user's own and the shared one); merge only within one", from.ID, into.ID)
	case from.Status == StatusMerged:
		return from, into, op, tenure.Errorf(tenure.CodeConflict, "from", "%q was already merged into %q", from.ID, from.MergedInto)
	case into.Status == StatusMerged:
		return from, into, op, tenure.Errorf(tenure.CodeConflict, "into", "%q was merged into %q; merge into that one", into.ID, into.MergedInto)
	case into.Status == StatusPending:
		return from, into, op, tenure.Errorf(tenure.CodeConflict, "into", "%q is pending review; link or keep it first", into.ID)
	case !Compatible(from.Type, into.Type):
		return from, into, op, tenure.Errorf(tenure.CodeInvalid, "into", "%q is a %s and %q a %s; only entities of one type merge", from.ID, from.Type, into.ID, into.Type)
	}
	op.Kind, op.From, op.Into = OpMerge, from.ID, into.ID
	if from.Status == StatusPending {
		op.Kind = OpLink
	}
	op.Aliases = slices.DeleteFunc(slices.Clone(from.Aliases), func(a string) bool { return slices.Contains(into.Aliases, a) })
	op.Names = slices.DeleteFunc(slices.Clone(from.Names), func(a string) bool { return slices.Contains(into.Names, a) })
	f, t := next(from, op), next(into, op)
	f.Status, f.MergedInto, f.Aliases, f.Names, f.Candidates = StatusMerged, into.ID, nil, nil, nil
	t.Aliases = append(t.Aliases, op.Aliases...)
	t.Names = append(t.Names, op.Names...)
	if t.Type == Other {
		t.Type = from.Type
	}
	return f, t, op, nil
}

// Split moves aliases (and the names of the same slugs) from src to a new
// entity labelled label with id (see FreeID), for mentions that were
// wrongly taken for src. It fails with CodeInvalid when an alias is not
// src's, is src's id, or would leave src without aliases; CodeConflict
// when src is not active.
func Split(src Entity, aliases []string, label, id string, op Op) (Entity, Entity, Op, error) {
	if src.Status != StatusActive {
		return src, Entity{}, op, tenure.Errorf(tenure.CodeConflict, "id", "%q is %s; only an active entity splits", src.ID, src.Status)
	}
	if len(aliases) == 0 {
		return src, Entity{}, op, tenure.Errorf(tenure.CodeInvalid, "aliases", "required: the aliases that belong to the new entity")
	}
	for _, a := range aliases {
		switch {
		case a == src.ID:
			return src, Entity{}, op, tenure.Errorf(tenure.CodeInvalid, "aliases", "%q is the entity's own id; it stays", a)
		case !slices.Contains(src.Aliases, a):
			return src, Entity{}, op, tenure.Errorf(tenure.CodeInvalid, "aliases", "%q is not an alias of %q (aliases: %v)", a, src.ID, src.Aliases)
		}
	}
	if label == "" {
		label = Label(KeySlug(aliases[0]))
	}
	op.Kind, op.From, op.Into, op.Aliases = OpSplit, src.ID, id, slices.Clone(aliases)
	s := next(src, op)
	s.Aliases = slices.DeleteFunc(s.Aliases, func(a string) bool { return slices.Contains(aliases, a) })
	var moved []string
	s.Names = slices.DeleteFunc(s.Names, func(n string) bool {
		for _, a := range aliases {
			if KeySlug(a) == Slug(n) {
				moved = append(moved, n)
				return true
			}
		}
		return false
	})
	op.Names = moved
	n := Entity{ID: id, TenantID: src.TenantID, UserID: src.UserID, Type: src.Type, Label: label,
		Aliases: slices.Clone(aliases), Names: moved, Status: StatusActive, Version: 1, TxStart: op.At, ChangedBy: op.By, OpID: op.ID}
	if !slices.Contains(n.Aliases, id) {
		n.Aliases = append(n.Aliases, id)
	}
	return s, n, op, nil
}

// Keep settles a pending entity as an entity of its own.
func Keep(e Entity, op Op) (Entity, Op, error) {
	if e.Status != StatusPending {
		return e, op, tenure.Errorf(tenure.CodeConflict, "id", "%q is %s, not pending review", e.ID, e.Status)
	}
	op.Kind, op.From = OpKeep, e.ID
	n := next(e, op)
	n.Status, n.Candidates = StatusActive, nil
	return n, op, nil
}

// Undo reverses op. from is the current version of op.From, into that of
// op.Into (none for keep), before the version of op.From the operation
// closed. It returns the new versions to store. A merge or link is undone
// only while its entity is still merged into the same one; a split only
// while its new entity is active; aliases moved since are left where they
// are. CodeConflict: already undone, or no longer undoable.
func Undo(op Op, from, into, before Entity, by string, at time.Time) ([]Entity, error) {
	if op.UndoneAt != nil {
		return nil, tenure.Errorf(tenure.CodeConflict, "op_id", "operation %q was undone at %s", op.ID, op.UndoneAt.Format(time.RFC3339))
	}
	undo := Op{ID: op.ID, By: by, At: at}
	switch op.Kind {
	case OpMerge, OpLink:
		if from.Status != StatusMerged || from.MergedInto != op.Into {
			return nil, tenure.Errorf(tenure.CodeConflict, "op_id", "%q is no longer merged into %q", op.From, op.Into)
		}
		f, t := next(from, undo), next(into, undo)
		f.Status, f.MergedInto, f.Candidates = before.Status, "", slices.Clone(before.Candidates)
		// The aliases the merge moved go back if into still holds them.
		f.Aliases = slices.DeleteFunc(slices.Clone(before.Aliases), func(a string) bool { return slices.Contains(op.Aliases, a) })
		f.Names = slices.Clone(before.Names)
		t.Aliases = slices.DeleteFunc(t.Aliases, func(a string) bool {
			if slices.Contains(op.Aliases, a) {
				f.Aliases = append(f.Aliases, a)
				return true
			}
			return false
		})
		t.Names = slices.DeleteFunc(t.Names, func(n string) bool { return slices.Contains(op.Names, n) })
		return []Entity{f, t}, nil
	case OpSplit:
		if into.Status != StatusActive {
			return nil, tenure.Errorf(tenure.CodeConflict, "op_id", "%q, split off by this operation, is %s", op.Into, into.Status)
		}
		if from.Status != StatusActive {
			return nil, tenure.Errorf(tenure.CodeConflict, "op_id", "%q is %s", op.From, from.Status)
		}
		f, t := next(from, undo), next(into, undo)
		for _, a := range into.Aliases {
			if slices.Contains(op.Aliases, a) {
				f.Aliases = appendNew(f.Aliases, a)
			}
		}
		for _, n := range op.Names {
			f.Names = appendNew(f.Names, n)
		}
		t.Status, t.MergedInto = StatusMerged, from.ID
		t.Aliases = slices.DeleteFunc(t.Aliases, func(a string) bool { return slices.Contains(op.Aliases, a) })
		t.Names = nil
		return []Entity{f, t}, nil
	case OpKeep:
		if from.Status != StatusActive {
			return nil, tenure.Errorf(tenure.CodeConflict, "op_id", "%q is %s", op.From, from.Status)
		}
		f := next(from, undo)
		f.Status, f.Candidates = StatusPending, slices.Clone(before.Candidates)
		return []Entity{f}, nil
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, "op_id", "operation %q of kind %q cannot be undone", op.ID, op.Kind)
}

// next returns the version after e, written by op.
func next(e Entity, op Op) Entity {
	n := e.Clone()
	n.Version, n.TxStart, n.TxEnd, n.ChangedBy, n.OpID = e.Version+1, op.At, nil, op.By, op.ID
	return n
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
