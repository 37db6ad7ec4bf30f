// Package snapshot implements workflow context snapshots: the shared state
// that several agents read from and contribute to, round by round, by
// deltas (docs/snapshots.md, after context-snapshot.md).
//
// A workflow starts with a round-0 Snapshot holding its query and empty
// bindings, entities and rules. Agents submit Deltas for the open round —
// an add, modify, remove or rebind at an RFC 9535 JSONPath, with a weight
// and a provenance — and closing the round aggregates them into the next
// Snapshot with the workflow's Strategy (weighted merge by default;
// majority vote, highest weight, union and expert override, overridable
// per path prefix). The package is pure logic: Expand validates a delta
// against the snapshot it applies to, Aggregate turns a round's deltas
// into the next state, its report (what changed, which deltas lost and
// why, what was clipped) and whether the workflow converged, and Matches
// selects the deltas of a path's history. Storage, principals and
// permissions are the engine's (engine/), the surfaces the adapters'.
//
// Aggregation is deterministic: the result is a function of the round's
// base state, the set of its deltas and the workflow's configuration,
// never of the order in which the deltas arrived or of which server
// received them. Delta ids are hashes of their content, and every choice
// the strategies make is ordered by weight, agent id, value and id.
//
// The invariants of the specification are enforced here: the state is
// bounded (MaxStateSize, clipped or rejected), a concept id bound to a
// term never changes except by an explicit rebind, rounds only increase,
// and every delta carries an agent and a provenance.
package snapshot
