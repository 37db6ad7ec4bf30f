package compile_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/internal/golden"
	"github.com/tenure-dev/tenure/snapshot"
)

// workflowFixture starts workflow "orders" as owner and closes a round of
// bindings, rules, entities and a member of the agents' own.
func workflowFixture(t *testing.T, entities int) *fixture {
	t.Helper()
	f := newFixture(t)
	if _, err := f.store.StartWorkflow(f.ctx, owner, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers placed orders over $500 last month?"}); err != nil {
		t.Fatal(err)
	}
	d := func(w float64, path, value string) snapshot.Delta {
		return snapshot.Delta{Round: 1, Weight: tenure.Ptr(w), Operation: snapshot.OpAdd, Path: path, Value: json.RawMessage(value), Provenance: "fixture"}
	}
	ds := []snapshot.Delta{
		d(0.35, "$.bindings.customer", `"sea:customer:001"`),
		d(0.35, "$.bindings.order", `"sea:order:007"`),
		d(0.5, "$.rules", `{"id":"r1","rule":"Each order is placed by exactly one customer","result":"satisfied"}`),
		d(0.5, "$.rules", `{"id":"r2","rule":"An order over $500 needs approval","result":"violated","detail":"3 orders lack approval"}`),
		d(0.2, "$.summary", `"Three customers qualify; two orders lack approval."`),
	}
	for i := range entities {
		ds = append(ds, d(0.3, "$.entities", fmt.Sprintf(`{"id":"c%d","name":"Customer %d","type":"customer","total":%d}`, i, i, 500+i)))
	}
	if _, err := f.store.SubmitDeltas(f.ctx, owner, "orders", ds); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CloseRound(f.ctx, owner, "orders", 0); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestWorkflowSection(t *testing.T) {
	f := workflowFixture(t, 2)
	env, tr := f.compile(compile.Request{Principal: intern, Query: "Which orders need approval?", Budget: 2000, WorkflowID: "orders"})
	s, ok := env.Section(compile.SectionWorkflow)
	if !ok || s.Role != "user" {
		t.Fatalf("workflow section: %+v (present %v), want one in the user role", s, ok)
	}
	golden.Check(t, "workflow.txt.golden", []byte(env.Text()))
	golden.Check(t, "workflow.trace.json.golden", mustJSON(t, tr.Workflow))
	if tr.Workflow.Truncated || len(tr.Workflow.Omitted) != 0 {
		t.Errorf("a 2,000-token budget left out %v", tr.Workflow.Omitted)
	}
	for _, sec := range env.Sections {
		if sec.Role == "system" && strings.Contains(sec.Text, "sea:customer") {
			t.Errorf("snapshot text in the system role: %s", sec.Kind)
		}
	}
	// Without a workflow there is no section and no trace.
	env, tr = f.compile(compile.Request{Principal: intern, Query: "Which orders need approval?", Budget: 2000})
	if _, ok := env.Section(compile.SectionWorkflow); ok || tr.Workflow != nil {
		t.Errorf("a compilation without workflow_id has a workflow section or trace")
	}
}

func TestWorkflowSectionTruncated(t *testing.T) {
	f := workflowFixture(t, 300)
	env, tr := f.compile(compile.Request{Principal: intern, Query: "Which orders need approval?", Budget: 1500, WorkflowID: "orders"})
	s, _ := env.Section(compile.SectionWorkflow)
	if !s.Truncated || !strings.Contains(s.Text, "more omitted for budget]") {
		t.Fatalf("300 entities in 1,500 tokens: section not truncated with the marker:\n%s", s.Text)
	}
	w := tr.Workflow
	if !w.Truncated || len(w.Omitted) == 0 || len(w.Included)+len(w.Omitted) != 1+2+2+300+1 {
		t.Fatalf("trace: %d included, %d omitted, truncated %v", len(w.Included), len(w.Omitted), w.Truncated)
	}
	// The query, bindings and rules go first; the newest entities next.
	for _, p := range []string{"$", "$['bindings']['customer']", "$['rules'][1]", "$['entities'][299]"} {
		if !strings.Contains(strings.Join(w.Included, " "), p) {
			t.Errorf("%s left out, want it before older entities: included %v", p, w.Included[:min(8, len(w.Included))])
		}
	}
	if strings.Contains(strings.Join(w.Included, " "), "$['entities'][0]") {
		t.Errorf("the oldest entity was included while newer ones were left out")
	}
}

func TestWorkflowErrors(t *testing.T) {
	f := workflowFixture(t, 0)
	hidden := intern
	hidden.TenantID = "globex"
	for _, tc := range []struct {
		name string
		req  compile.Request
		code tenure.Code
	}{
		{"ErrUnknownWorkflow", compile.Request{Principal: intern, Query: "q", Budget: 500, WorkflowID: "nothing"}, tenure.CodeNotFound},
		{"ErrAnotherTenantsWorkflow", compile.Request{Principal: hidden, Query: "q", Budget: 500, WorkflowID: "orders"}, tenure.CodeNotFound},
		{"ErrBadWorkflowID", compile.Request{Principal: intern, Query: "q", Budget: 500, WorkflowID: " padded "}, tenure.CodeInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := f.c.Compile(f.ctx, tc.req)
			if tenure.ErrorCode(err) != tc.code || tenure.ErrorField(err) != "workflow_id" {
				t.Fatalf("compile: %v, want %s on workflow_id", err, tc.code)
			}
		})
	}
	c := compile.New(sourceOnly{f.store}, compile.Options{})
	if _, _, err := c.Compile(f.ctx, compile.Request{Principal: intern, Query: "q", Budget: 500, WorkflowID: "orders"}); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Fatalf("a source without snapshots: %v, want invalid", err)
	}
}

// sourceOnly hides every interface of a store but compile.Source.
type sourceOnly struct{ compile.Source }
