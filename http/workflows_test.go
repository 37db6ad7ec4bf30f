package http_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tenure-dev/tenure"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/storetest"
)

// agentP is an agent key of tenant acme.
func agentP(id string) tenure.Principal {
	return tenure.Principal{TenantID: "acme", UserID: id, Authority: "employee", Clearance: tenure.Restricted}
}

func TestWorkflowOverHTTP(t *testing.T) {
	e := newEnv(t)
	mapper := e.key(agentP("semantic-mapper"))
	router := e.client(e.alice)
	snap, err := router.StartWorkflow(e.ctx, tenure.Principal{}, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers placed orders over $500?"})
	if err != nil || snap.Round != 0 || snap.Query() == "" || snap.Workflow.CreatedBy != "alice" {
		t.Fatalf("start: %+v, %v", snap, err)
	}
	// The specification's example delta, verbatim, from the agent's key.
	r := e.call("POST", "/v1/workflows/orders/deltas", mapper, `{"deltas":[`+storetest.SpecDelta+`]}`)
	if r.status != 200 {
		t.Fatalf("submit the spec's delta: %d %s", r.status, r.body)
	}
	// Error fields name the delta.
	r = e.call("POST", "/v1/workflows/orders/deltas", mapper, `{"deltas":[{"round":1,"weight":2,"operation":"add","path":"$.x","value":1,"provenance":"p"}]}`)
	if b := r.errBody(t); r.status != 400 || b.Field != "deltas[0].weight" {
		t.Fatalf("bad weight: %d %+v", r.status, b)
	}
	r = e.call("POST", "/v1/workflows/orders/deltas", mapper, `{"deltas":[{"round":1,"weight":0.5,"operation":"add","path":"$.x","value":1,"provenance":"p","extra":1}]}`)
	if b := r.errBody(t); r.status != 400 || b.Field != "deltas[0].extra" {
		t.Fatalf("unknown field: %d %+v", r.status, b)
	}
	_, err = e.client(mapper).SubmitDeltas(e.ctx, tenure.Principal{}, "orders", []snapshot.Delta{{Round: 1, Weight: tenure.Ptr(0.5),
		Operation: snapshot.OpAdd, Path: "$.query.x", Value: json.RawMessage(`1`), Provenance: "p"}})
	if tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "[0].path" || !strings.Contains(err.Error(), "path into a scalar") {
		t.Fatalf("client: %v, want invalid on [0].path", err)
	}
	closed, err := router.CloseRound(e.ctx, tenure.Principal{}, "orders", 0)
	if err != nil || closed.Bindings()["customer"] != "sea:customer:001" || closed.Report.Applied != 1 {
		t.Fatalf("close: %+v, %v", closed, err)
	}
	// The snapshot's JSON is the spec's object: its fields beside the state.
	r = e.call("GET", "/v1/workflows/orders?deltas=false", e.alice, "")
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.body), &raw); err != nil || r.status != 200 {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	for _, k := range []string{"id", "workflowId", "round", "query", "bindings", "entities", "rules", "deltas", "timestamp", "stateSize", "maxStateSize"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("the snapshot has no %q: %s", k, r.body)
		}
	}
	b, err := router.Binding(e.ctx, tenure.Principal{}, "orders", "customer")
	if err != nil || b.ConceptID != "sea:customer:001" {
		t.Fatalf("binding: %+v, %v", b, err)
	}
	h, err := router.PathHistory(e.ctx, tenure.Principal{}, "orders", "$.bindings[*]")
	if err != nil || len(h.Deltas) != 1 || h.Deltas[0].Status != snapshot.StatusApplied {
		t.Fatalf("history: %+v, %v", h, err)
	}
	zero := 0
	if r0, err := router.Snapshot(e.ctx, tenure.Principal{}, "orders", snapshot.Read{Round: &zero}); err != nil || len(r0.Bindings()) != 0 {
		t.Fatalf("round 0: %+v, %v", r0, err)
	}
	// Another tenant's key sees no workflow.
	if r := e.call("GET", "/v1/workflows/orders", e.bob, ""); r.status != 404 {
		t.Fatalf("bob reads acme's workflow: %d %s", r.status, r.body)
	}
}

// TestConcurrentSubmittersOverHTTP has 16 agents submit to one round at
// once, each with its own key, and checks that the close counts every
// delta.
func TestConcurrentSubmittersOverHTTP(t *testing.T) {
	e := newEnv(t)
	if _, err := e.client(e.alice).StartWorkflow(e.ctx, tenure.Principal{}, snapshot.Workflow{WorkflowID: "busy", Query: "q", MaxStateSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	const agents, each = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, agents*each)
	for i := range agents {
		c := e.client(e.key(agentP(fmt.Sprintf("agent-%02d", i))))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				d := snapshot.Delta{Round: 1, Weight: tenure.Ptr(float64(j%10) / 10), Operation: snapshot.OpAdd, Path: "$.entities",
					Value: json.RawMessage(fmt.Sprintf(`{"agent":%d,"n":%d}`, i, j)), Provenance: "load"}
				if j%4 == 0 {
					d.Path, d.Value = fmt.Sprintf("$.bindings.a%02d_%02d", i, j), json.RawMessage(fmt.Sprintf(`"sea:%d:%d"`, i, j))
				}
				if _, err := c.SubmitDeltas(e.ctx, tenure.Principal{}, "busy", []snapshot.Delta{d}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("submit: %v", err)
	}
	snap, err := e.client(e.alice).CloseRound(e.ctx, tenure.Principal{}, "busy", 0)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Report.Deltas != agents*each || snap.Report.Applied != agents*each || len(snap.Deltas) != agents*each {
		t.Fatalf("%d deltas submitted; the round counts %d, %d applied", agents*each, snap.Report.Deltas, snap.Report.Applied)
	}
	if got, want := len(snap.Entities())+len(snap.Bindings()), agents*each; got != want {
		t.Fatalf("%d entities and bindings, want %d", got, want)
	}
}

// BenchmarkSubmitDeltasHTTP has 16 agents, each an HTTP client with its
// own key, submit one delta per call to one round at once: deltas accepted
// per second over HTTP.
//
//	go test ./http -run '^$' -bench SubmitDeltasHTTP -benchtime 5000x
func BenchmarkSubmitDeltasHTTP(b *testing.B) {
	e := newEnv(b)
	if _, err := e.client(e.alice).StartWorkflow(e.ctx, tenure.Principal{}, snapshot.Workflow{WorkflowID: "bench", Query: "q",
		MaxStateSize: snapshot.MaxMaxStateSize}); err != nil {
		b.Fatal(err)
	}
	clients := make([]*tenurehttp.Client, 16)
	for i := range clients {
		clients[i] = e.client(e.key(agentP(fmt.Sprintf("agent-%02d", i))))
	}
	var next, agent atomic.Int64
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		c := clients[agent.Add(1)%16]
		for pb.Next() {
			d := storetest.LoadDelta(int(next.Add(1)), 1<<20)
			d.AgentID = ""
			if _, err := c.SubmitDeltas(e.ctx, tenure.Principal{}, "bench", []snapshot.Delta{d}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
}
