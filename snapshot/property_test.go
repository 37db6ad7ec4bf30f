package snapshot_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

// propertyBase is the base state of the property tests: a binding, an
// object, entities, rules and an array of tags.
func propertyBase() map[string]any {
	st := withBindings(map[string]string{"customer": "sea:customer:001"})
	st["notes"] = map[string]any{"scope": "orders", "period": "last month"}
	st["entities"] = []any{map[string]any{"id": "e0", "name": "customer"}, map[string]any{"id": "e1", "name": "order"},
		map[string]any{"id": "e2", "name": "amount"}}
	st["rules"] = []any{map[string]any{"id": "r1", "rule": "Each order has one customer", "result": "unknown"}}
	st["tags"] = []any{"sales"}
	return st
}

// randomDelta draws a delta from templates that touch the same few
// locations in every way (agreeing, conflicting, nested, removing).
func randomDelta(r *rand.Rand) snapshot.Delta {
	agents := []string{"semantic-mapper", "rule-checker", "summarizer", "router", "critic"}
	weights := []float64{0.1, 0.25, 0.5, 0.5, 0.75, 0.9}
	agent, w := agents[r.IntN(len(agents))], weights[r.IntN(len(weights))]
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	templates := []func() snapshot.Delta{
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.bindings."+pick("order", "product", "region"), `"sea:`+pick("a", "b", "c")+`"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpRebind, "$.bindings.customer", `"sea:customer:00`+pick("2", "3")+`"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.entities", `{"id":"e`+pick("3", "4", "5")+`","name":"`+pick("x", "y")+`"}`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpModify, "$.entities["+pick("0", "1", "-1")+"].name", `"`+pick("client", "purchase")+`"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpRemove, "$.entities[?@.id == 'e"+pick("0", "1", "2")+"']", "")
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.notes."+pick("scope", "currency", "owner"), `"`+pick("orders", "USD", "sales")+`"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpModify, "$.notes", `{"`+pick("scope", "currency")+`":"`+pick("orders", "EUR")+`","extra":`+pick("1", "2")+`}`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpRemove, "$.notes."+pick("scope", "period"), "")
		},
		func() snapshot.Delta { return delta(agent, w, snapshot.OpRemove, "$.notes", "") },
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.tags", `"`+pick("sales", "q2", "vip")+`"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpModify, "$.tags", `["`+pick("sales", "q3")+`","`+pick("vip", "new")+`"]`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.rules", `{"id":"r`+pick("2", "3")+`","rule":"`+pick("An order totals over $500", "A customer is active")+`","result":"`+pick("satisfied", "violated")+`"}`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpModify, "$.rules[0].result", `"`+pick("satisfied", "violated")+`"`)
		},
		func() snapshot.Delta {
			return delta(agent, w, snapshot.OpAdd, "$.summary", `"`+strings.Repeat(pick("a", "b"), 50+r.IntN(400))+`"`)
		},
	}
	return templates[r.IntN(len(templates))]()
}

// randomWorkflow draws a configuration: a strategy, path overrides,
// experts, a size limit small enough to clip, clipping orders and caps.
func randomWorkflow(r *rand.Rand) snapshot.Workflow {
	w := snapshot.Workflow{WorkflowID: "wf", Query: query, Strategy: snapshot.Strategies[r.IntN(len(snapshot.Strategies))],
		Experts:        []snapshot.Expert{{Path: "$.bindings", Agents: []string{"semantic-mapper"}}, {Path: "$.rules", Agents: []string{"checker"}}},
		PathStrategies: map[string]snapshot.Strategy{}}
	for _, p := range []string{"$.entities", "$.notes", "$.tags"} {
		if r.IntN(3) == 0 {
			w.PathStrategies[p] = snapshot.Strategies[r.IntN(len(snapshot.Strategies))]
		}
	}
	w.MaxStateSize = 500 + r.IntN(1500)
	clips := [][]snapshot.ClipStrategy{nil, {snapshot.EvictOldest}, {snapshot.TruncateStrings, snapshot.EvictOldest},
		{snapshot.EvictOldest, snapshot.TruncateStrings}}
	w.Clipping = clips[r.IntN(len(clips))]
	w.MaxStringBytes = 20 + r.IntN(100)
	if r.IntN(4) == 0 {
		w.OnViolation = snapshot.OnViolationReject
	}
	w.MaxEntities = r.IntN(5)
	return w.WithDefaults()
}

// TestAggregateDeterministic closes random rounds with every strategy and
// checks that the result — state, report and what became of each delta —
// is the same whatever order the deltas arrive in, and that the
// invariants hold: the state fits its limit, the query never changes, and
// a bound concept id changes only by a rebind the report records.
func TestAggregateDeterministic(t *testing.T) {
	trials := 300
	if testing.Short() {
		trials = 50
	}
	r := rand.New(rand.NewPCG(19, 2025))
	for trial := range trials {
		base := propertyBase()
		w := randomWorkflow(r)
		if err := w.Validate(); err != nil {
			t.Fatalf("trial %d: workflow: %v", trial, err)
		}
		var ds []snapshot.Delta
		for range 5 + r.IntN(30) {
			d := randomDelta(r)
			roles := [][]string{nil, {"checker"}}
			d.AgentRoles = roles[r.IntN(2)]
			if d.Check() != nil {
				continue
			}
			targets, err := snapshot.Expand(base, &d, w.MaxStateSize)
			if err != nil {
				continue
			}
			d.Targets, d.ID = targets, snapshot.DeltaID("wf", d)
			if !slices.ContainsFunc(ds, func(x snapshot.Delta) bool { return x.ID == d.ID }) {
				ds = append(ds, d)
			}
		}
		want, err := snapshot.Aggregate(base, ds, w)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checkInvariants(t, trial, base, w, want)
		for shuffle := range 4 {
			shuffled := slices.Clone(ds)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			got, err := snapshot.Aggregate(base, shuffled, w)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			if diff := cmp.Diff(encode(t, want), encode(t, got)); diff != "" {
				t.Fatalf("trial %d (strategy %s, %d deltas), shuffle %d: the result depends on the order (-first +shuffled):\n%s",
					trial, w.Strategy, len(ds), shuffle, diff)
			}
		}
	}
}

func encode(t *testing.T, res snapshot.Result) string {
	t.Helper()
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkInvariants(t *testing.T, trial int, base map[string]any, w snapshot.Workflow, res snapshot.Result) {
	t.Helper()
	if n := snapshot.Size(res.State); n > w.MaxStateSize {
		t.Fatalf("trial %d: state %d bytes, over the limit of %d", trial, n, w.MaxStateSize)
	}
	if res.State["query"] != base["query"] {
		t.Fatalf("trial %d: the query changed to %v", trial, res.State["query"])
	}
	oldB := base["bindings"].(map[string]any)
	newB := res.State["bindings"].(map[string]any)
	for term, id := range oldB {
		if newB[term] == id {
			continue
		}
		rebound := slices.ContainsFunc(res.Report.Rebinds, func(rb snapshot.Rebind) bool { return rb.Term == term && rb.To == newB[term] })
		if !rebound {
			t.Fatalf("trial %d: binding %s changed from %v to %v without a recorded rebind", trial, term, id, newB[term])
		}
	}
	if w.MaxEntities > 0 && len(res.State["entities"].([]any)) > w.MaxEntities {
		t.Fatalf("trial %d: %d entities over the cap of %d", trial, len(res.State["entities"].([]any)), w.MaxEntities)
	}
	counted := res.Report.Applied + res.Report.Partial + res.Report.Lost + res.Report.Clipped + res.Report.Rejected
	if counted != len(res.Deltas) || res.Report.Deltas != len(res.Deltas) {
		t.Fatalf("trial %d: report counts %d of %d deltas", trial, counted, len(res.Deltas))
	}
	for _, d := range res.Deltas {
		if d.Status == snapshot.StatusLost && d.Reason == "" {
			t.Fatalf("trial %d: delta %s lost without a reason", trial, d.ID)
		}
	}
	if w.OnViolation == snapshot.OnViolationReject {
		for _, c := range res.Report.Clips {
			if c.Strategy == snapshot.TruncateStrings {
				t.Fatalf("trial %d: onViolation reject truncated %s", trial, c.Path)
			}
		}
	}
}

// FuzzExpandAggregate feeds arbitrary paths and values through Check,
// Expand and Aggregate: nothing panics, and a delta that passes the
// checks aggregates into a state that keeps the invariants.
func FuzzExpandAggregate(f *testing.F) {
	f.Add("$.bindings.customer", `"sea:customer:001"`, uint8(0), 0.35)
	f.Add("$.entities[?@.id == 'e1'].name", `"client"`, uint8(1), 0.5)
	f.Add("$..scope", "", uint8(2), 0.9)
	f.Add("$.bindings.customer", `"sea:customer:002"`, uint8(3), 0.1)
	f.Add("$.notes['a b'][0]", `{"x":[1,2,{"y":null}]}`, uint8(0), 1.0)
	f.Add("$.query.x", `1`, uint8(0), 0.0)
	f.Fuzz(func(t *testing.T, path, value string, op uint8, weight float64) {
		base := propertyBase()
		d := snapshot.Delta{AgentID: "fuzzer", Round: 1, Weight: tenure.Ptr(weight), Operation: snapshot.Operations[int(op)%len(snapshot.Operations)],
			Path: path, Value: json.RawMessage(value), Provenance: "fuzz"}
		if d.Check() != nil {
			return
		}
		w := snapshot.Workflow{MaxStateSize: 2000}.WithDefaults()
		targets, err := snapshot.Expand(base, &d, w.MaxStateSize)
		if err != nil {
			if tenure.ErrorCode(err) == tenure.CodeInternal || tenure.ErrorField(err) == "" {
				t.Fatalf("Expand: %v: want a client error naming the field", err)
			}
			return
		}
		d.Targets, d.ID = targets, snapshot.DeltaID("wf", d)
		res, err := snapshot.Aggregate(base, []snapshot.Delta{d}, w)
		if err != nil {
			t.Fatalf("Aggregate: %v", err)
		}
		checkInvariants(t, 0, base, w, res)
		if _, err := snapshot.Canonical(res.State); err != nil {
			t.Fatalf("state does not encode: %v", err)
		}
	})
}

// ExampleAggregate closes a round with the specification's example delta
// and a lighter agent that disagrees.
func ExampleAggregate() {
	base := snapshot.InitialState("Which customers placed orders over $500 last month?")
	var spec snapshot.Delta
	json.Unmarshal([]byte(`{
	  "agentId": "semantic-mapper",
	  "round": 1,
	  "weight": 0.35,
	  "operation": "add",
	  "path": "$.bindings.customer",
	  "value": "sea:customer:001",
	  "provenance": "Matched 'customer' to concept via KGS lookup"
	}`), &spec)
	other := snapshot.Delta{AgentID: "summarizer", Round: 1, Weight: tenure.Ptr(0.2), Operation: snapshot.OpAdd,
		Path: "$.bindings.customer", Value: json.RawMessage(`"sea:client:042"`), Provenance: "customer sounds like a client"}
	var ds []snapshot.Delta
	for _, d := range []snapshot.Delta{spec, other} {
		targets, err := snapshot.Expand(base, &d, snapshot.DefaultMaxStateSize)
		if err != nil {
			panic(err)
		}
		d.Targets, d.ID = targets, snapshot.DeltaID("wf", d)
		ds = append(ds, d)
	}
	res, _ := snapshot.Aggregate(base, ds, snapshot.Workflow{})
	fmt.Println(res.State["bindings"])
	for _, d := range res.Deltas {
		fmt.Println(strings.TrimSpace(d.AgentID + " " + string(d.Status) + " " + d.Reason))
	}
	// Output:
	// map[customer:sea:customer:001]
	// semantic-mapper applied
	// summarizer lost outweighed
}
