package snapshot_test

import (
	"encoding/json"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

// query is the workflows' query in these tests.
const query = "Which customers placed orders over $500 last month?"

// delta builds a round-1 delta; value is JSON ("" for none).
func delta(agent string, w float64, op snapshot.Operation, path, value string) snapshot.Delta {
	d := snapshot.Delta{AgentID: agent, Round: 1, Weight: tenure.Ptr(w), Operation: op, Path: path, Provenance: "test: " + agent}
	if value != "" {
		d.Value = json.RawMessage(value)
	}
	return d
}

// prepared checks and expands deltas against base and gives them ids, as
// the engine does when they are submitted.
func prepared(t testing.TB, base map[string]any, maxSize int, ds ...snapshot.Delta) []snapshot.Delta {
	t.Helper()
	out := make([]snapshot.Delta, len(ds))
	for i, d := range ds {
		if err := d.Check(); err != nil {
			t.Fatalf("delta %d (%s %s): %v", i, d.Operation, d.Path, err)
		}
		targets, err := snapshot.Expand(base, &d, maxSize)
		if err != nil {
			t.Fatalf("delta %d (%s %s): %v", i, d.Operation, d.Path, err)
		}
		d.Targets = targets
		d.ID = snapshot.DeltaID("wf", d)
		out[i] = d
	}
	return out
}

// aggregate closes a round of ds over base.
func aggregate(t testing.TB, base map[string]any, w snapshot.Workflow, ds ...snapshot.Delta) snapshot.Result {
	t.Helper()
	w = w.WithDefaults()
	res, err := snapshot.Aggregate(base, prepared(t, base, w.MaxStateSize, ds...), w)
	if err != nil {
		t.Fatalf("aggregate: %v", err)
	}
	return res
}

// member returns a member of the state as canonical JSON.
func member(t testing.TB, state map[string]any, key string) string {
	t.Helper()
	b, err := snapshot.Canonical(state[key])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// statuses maps agent ids to their deltas' statuses (the last one of an
// agent with several).
func statuses(res snapshot.Result) map[string]snapshot.Status {
	out := map[string]snapshot.Status{}
	for _, d := range res.Deltas {
		out[d.AgentID] = d.Status
	}
	return out
}

// withBindings returns a base state with bindings.
func withBindings(bindings map[string]string) map[string]any {
	st := snapshot.InitialState(query)
	m := st["bindings"].(map[string]any)
	for k, v := range bindings {
		m[k] = v
	}
	return st
}
