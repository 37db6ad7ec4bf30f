// Package reconcile holds Tenure's deterministic conflict decisions: which
// of two claims for the same slot wins and why, and which of several
// visible claims a read should prefer. It is pure: no I/O, no clock.
//
// The protocol follows the context architecture: authority level first,
// then the authors' rank in the principal hierarchy, then valid time (the
// newer valid_from wins for the same slot; when the two valid times fall in
// one period at their precision, as "last month" and 10 January do, the
// later report wins), then source trust (source authority, then
// confidence). If everything ties, both claims are quarantined. How often a
// claim was repeated never matters.
//
// DecideState reconciles an extracted structured-state item with a
// thread's items: merge, supersede, insert or conflict, decided from the
// items' slots (package slot) first — a changed value is never merged —
// and from embedding similarity only when a real embedder supplies it
// (docs/state.md).
package reconcile
