package compile_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/compile"
)

func TestTraceCompact(t *testing.T) {
	tr := compile.Trace{TraceID: "tr-1", Budget: 2000,
		Compiled: []compile.CompiledObject{{ObjectID: "msg:t:m1", SourceOrigin: "message://t/m1"}, {ObjectID: "plan", SourceOrigin: "doc://spec"}}}
	for i := range 25 {
		tr.Omitted = append(tr.Omitted, compile.OmittedObject{ObjectID: fmt.Sprint("msg:t:b", i), Reason: compile.OmitBudget})
	}
	tr.Omitted = append(tr.Omitted, compile.OmittedObject{ObjectID: "old", Reason: compile.OmitSuperseded})
	c := tr.Compact(3)
	want := []compile.OmittedObject{{ObjectID: "msg:t:b0", Reason: compile.OmitBudget}, {ObjectID: "msg:t:b1", Reason: compile.OmitBudget},
		{ObjectID: "msg:t:b2", Reason: compile.OmitBudget}, {ObjectID: "old", Reason: compile.OmitSuperseded}}
	if diff := cmp.Diff(want, c.Omitted); diff != "" {
		t.Errorf("omitted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[compile.OmitReason]int{compile.OmitBudget: 25, compile.OmitSuperseded: 1}, c.OmittedTotal); diff != "" {
		t.Errorf("omitted total (-want +got):\n%s", diff)
	}
	if !c.Compacted || c.Compiled[0].SourceOrigin != "" || c.Compiled[1].SourceOrigin != "doc://spec" {
		t.Errorf("compacted %v, compiled %+v", c.Compacted, c.Compiled)
	}
	// The original is untouched, and compacting twice changes nothing.
	if len(tr.Omitted) != 26 || tr.Compiled[0].SourceOrigin != "message://t/m1" || tr.Compacted {
		t.Errorf("original changed: %+v", tr)
	}
	if diff := cmp.Diff(c, c.Compact(1)); diff != "" {
		t.Errorf("compacted again (-want +got):\n%s", diff)
	}
}
