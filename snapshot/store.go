package snapshot

import (
	"context"
	"slices"

	"github.com/tenure-dev/tenure"
)

// Store keeps workflows and their snapshots, as principals see them: a
// workflow the principal cannot see (another tenant's, another user's,
// above its clearance, or excluded by its roles) answers exactly like a
// missing one. The engine (sqlite.Store) and the HTTP client implement it.
type Store interface {
	// StartWorkflow validates w, stores it with its round-0 snapshot and
	// returns that snapshot; round 1 is open. Errors: CodeInvalid or
	// CodeTooLarge (bad configuration, naming the field), CodeForbidden
	// (for another user, a workflow the caller could not see, or a caller
	// that acts as no user),
	// CodeConflict (a workflow of that name the caller can see exists).
	StartWorkflow(ctx context.Context, p tenure.Principal, w Workflow) (Snapshot, error)
	// SubmitDeltas checks deltas for the open round and stores them, all
	// or nothing; a delta's agent is the caller. Errors, the field
	// prefixed by the delta's index ("[2].weight"): CodeInvalid or
	// CodeTooLarge (see Delta.Check and Expand), CodeForbidden (an agent
	// other than the caller), CodeConflict (a round that is not open, a
	// bound concept id changed without rebind), CodeNotFound (no such
	// workflow).
	SubmitDeltas(ctx context.Context, p tenure.Principal, workflowID string, ds []Delta) (SubmitResult, error)
	// CloseRound aggregates the open round's deltas into the next
	// snapshot and opens the next round; the snapshot's report says what
	// changed, the conflicts, what was clipped and whether the workflow
	// converged. A round above 0 names the round the caller means to
	// close, so that a close repeated by a retry or by a second
	// coordinator cannot close the following round too: when it is not
	// the open round nothing is closed. Errors: CodeNotFound,
	// CodeForbidden (neither the workflow's creator nor a holder of
	// scope:any_user), CodeConflict (round is not the open round),
	// CodeInvalid (a negative round).
	CloseRound(ctx context.Context, p tenure.Principal, workflowID string, round int) (Snapshot, error)
	// Snapshot returns the current snapshot, or a past round's. Errors:
	// CodeNotFound (no such workflow, or round), CodeInvalid.
	Snapshot(ctx context.Context, p tenure.Principal, workflowID string, q Read) (Snapshot, error)
	// Binding returns a term's concept id in the current snapshot.
	// Errors: CodeNotFound (no such workflow, or no binding for the term).
	Binding(ctx context.Context, p tenure.Principal, workflowID, term string) (Binding, error)
	// PathHistory returns the deltas that touched a path (a JSONPath, a
	// query too), round by round. Errors: CodeInvalid (a bad path),
	// CodeNotFound.
	PathHistory(ctx context.Context, p tenure.Principal, workflowID, path string) (PathHistory, error)
}

// Sort orders deltas as the history shows them: by round, then in
// aggregation order (weight descending, then agent id, value and id).
func Sort(ds []Delta) {
	items := make([]*item, len(ds))
	for i := range ds {
		items[i] = &item{d: &ds[i], w: ds[i].W(), canon: valueCanon(ds[i])}
	}
	slices.SortStableFunc(items, func(a, b *item) int {
		if a.d.Round != b.d.Round {
			return a.d.Round - b.d.Round
		}
		return compareItems(a, b)
	})
	sorted := make([]Delta, len(ds))
	for i, it := range items {
		sorted[i] = *it.d
	}
	copy(ds, sorted)
}

// valueCanon is a delta's value as canonical JSON ("" for none).
func valueCanon(d Delta) string {
	if d.Operation == OpRemove || len(d.Value) == 0 {
		return ""
	}
	v, err := Decode(d.Value)
	if err != nil {
		return string(d.Value)
	}
	return canon(v)
}
