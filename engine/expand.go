package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/tenure-dev/tenure"
)

// Expand returns a state item and the messages it was extracted from,
// read as p like any other read: an item or message p may not see is
// missing. Errors: CodeInvalid (no uid), CodeNotFound (no visible item
// with that uid), CodeConflict (the uid names items in several threads and
// no thread was given).
func (e *Engine) Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error) {
	x, err := e.expand(ctx, p, r)
	if err != nil {
		return x, fmt.Errorf("expand: %w", err)
	}
	return x, nil
}

func (e *Engine) expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error) {
	var x tenure.Expansion
	if r.UID == "" {
		return x, tenure.Errorf(tenure.CodeInvalid, "uid", "required")
	}
	p, s, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return x, err
	}
	prefix := "state/"
	if r.ThreadID != "" {
		prefix = StateKey(r.ThreadID, r.UID)
	}
	objs, err := e.List(ctx, p, tenure.Filter{Scope: s, KeyPrefix: prefix, Limit: 10_000})
	if err != nil {
		return x, err
	}
	var found []tenure.StateItem
	for _, o := range objs {
		if o.StateItem != nil && o.StateItem.UID == r.UID && o.Key == StateKey(o.StateItem.ThreadID, r.UID) {
			found = append(found, *o.StateItem)
		}
	}
	switch {
	case len(found) == 0:
		return x, tenure.Errorf(tenure.CodeNotFound, "uid", "no state item %q", r.UID)
	case len(found) > 1:
		return x, tenure.Errorf(tenure.CodeConflict, "thread_id", "state item %q exists in %d threads; name the thread", r.UID, len(found))
	}
	x.Item = found[0]
	msgs, err := e.b.MessagesByID(ctx, p.TenantID, MessageIDs{ThreadID: x.Item.ThreadID, IDs: x.Item.Refs,
		UserID: s.UserID, PersonaID: p.PersonaID, ProjectID: s.ProjectID})
	if err != nil {
		return x, wrap("read messages", err)
	}
	x.Messages = msgs
	if x.Messages == nil {
		x.Messages = []tenure.Message{}
	}
	for _, id := range x.Item.Refs {
		if !slices.ContainsFunc(msgs, func(m tenure.Message) bool { return m.ID == id }) {
			x.Missing = append(x.Missing, id)
		}
	}
	return x, nil
}
