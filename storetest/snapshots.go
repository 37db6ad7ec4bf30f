package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

// SnapshotFactory opens a fresh, empty store that reads time from now and
// takes ids from newID, and returns with it a function that opens another
// handle on the same database — a second server — taking ids from its own
// sequence. Both register their own cleanup.
type SnapshotFactory func(t *testing.T, now func() time.Time, newID func() string) (snapshot.Store, func(newID func() string) snapshot.Store)

// Counter returns an id sequence: prefix-1, prefix-2, …
func Counter(prefix string) func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s-%d", prefix, n)
	}
}

// RunSnapshots runs the workflow snapshot suite: the lifecycle of rounds,
// every invalid input refused naming its field with nothing written,
// workflows seen only by those who may (and no existence oracle), the
// agent as the caller, who closes rounds, concurrent submitters, and the
// same result whichever server received which delta.
func RunSnapshots(t *testing.T, f SnapshotFactory) {
	t.Run("Lifecycle", func(t *testing.T) { testSnapshotLifecycle(t, f) })
	t.Run("InvalidWritesNothing", func(t *testing.T) { testSnapshotInvalid(t, f) })
	t.Run("Visibility", func(t *testing.T) { testSnapshotVisibility(t, f) })
	t.Run("NoExistenceOracle", func(t *testing.T) { testSnapshotOracle(t, f) })
	t.Run("WhoCloses", func(t *testing.T) { testSnapshotClose(t, f) })
	t.Run("ConcurrentSubmitters", func(t *testing.T) { testSnapshotConcurrent(t, f) })
	t.Run("AnyServerAnyOrder", func(t *testing.T) { testSnapshotServers(t, f) })
	t.Run("ClippedStaysInTheLog", func(t *testing.T) { testSnapshotClipped(t, f) })
}

// Agents of the suite: keys of tenant acme acting as agents.
var (
	router  = tenure.Principal{UserID: "router", TenantID: "acme", Authority: "manager", Clearance: tenure.Restricted, Roles: []string{"router"}}
	mapper  = tenure.Principal{UserID: "semantic-mapper", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted, Roles: []string{"kgs"}}
	checker = tenure.Principal{UserID: "rule-checker", TenantID: "acme", Authority: "employee", Clearance: tenure.Public}
	guest   = tenure.Principal{TenantID: "acme", Authority: "guest", Clearance: tenure.Public}
)

// SpecDelta is context-snapshot.md's example delta, verbatim.
const SpecDelta = `{
  "agentId": "semantic-mapper",
  "round": 1,
  "weight": 0.35,
  "operation": "add",
  "path": "$.bindings.customer",
  "value": "sea:customer:001",
  "provenance": "Matched 'customer' to concept via KGS lookup"
}`

func sdelta(agent string, round int, w float64, op snapshot.Operation, path, value string) snapshot.Delta {
	d := snapshot.Delta{AgentID: agent, Round: round, Weight: tenure.Ptr(w), Operation: op, Path: path, Provenance: agent + " says so"}
	if value != "" {
		d.Value = json.RawMessage(value)
	}
	return d
}

// must returns v, failing the test given to what it returns on err:
// must(s.CloseRound(ctx, p, "w", 0))(t).
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func testSnapshotLifecycle(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	clock := NewClock(T0)
	s, _ := f(t, clock.Now, Counter("wf"))
	snap := must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers placed orders over $500?"}))(t)
	if snap.Round != 0 || snap.OpenRound != 1 || snap.Query() != "Which customers placed orders over $500?" || len(snap.Bindings()) != 0 ||
		snap.Entities() == nil || snap.Rules() == nil || snap.StateSize != snapshot.Size(snap.State) || snap.MaxStateSize != snapshot.DefaultMaxStateSize {
		t.Fatalf("round 0: %+v", snap)
	}
	var d snapshot.Delta
	if err := json.Unmarshal([]byte(SpecDelta), &d); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	res := must(s.SubmitDeltas(ctx, mapper, "orders", []snapshot.Delta{d}))(t)
	if res.Accepted != 1 || res.Round != 1 || len(res.Deltas) != 1 || !strings.HasPrefix(res.Deltas[0].ID, "d_") ||
		res.Deltas[0].Status != snapshot.StatusPending || !slices.Equal(res.Deltas[0].Targets, []string{"$['bindings']['customer']"}) ||
		!slices.Equal(res.Deltas[0].AgentRoles, []string{"kgs"}) {
		t.Fatalf("submit: %+v", res)
	}
	again := must(s.SubmitDeltas(ctx, mapper, "orders", []snapshot.Delta{d}))(t)
	if again.Accepted != 0 || again.Duplicates != 1 || again.Deltas[0].ID != res.Deltas[0].ID {
		t.Fatalf("the same delta again: %+v, want a duplicate with the same id", again)
	}
	noAgent := sdelta("", 1, 0.2, snapshot.OpAdd, "$.entities", `{"id":"customer","type":"concept"}`)
	must(s.SubmitDeltas(ctx, checker, "orders", []snapshot.Delta{noAgent,
		sdelta("rule-checker", 1, 0.2, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`)}))(t)
	clock.Advance(time.Minute)
	r1 := must(s.CloseRound(ctx, router, "orders", 0))(t)
	if r1.Round != 1 || r1.OpenRound != 2 || r1.Bindings()["customer"] != "sea:customer:001" || len(r1.Entities()) != 1 ||
		r1.Report == nil || r1.Report.Deltas != 3 || r1.Report.Applied != 2 || r1.Report.Lost != 1 || r1.Converged ||
		!r1.Timestamp.Equal(clock.Now()) {
		t.Fatalf("round 1: %+v", r1)
	}
	if len(r1.Report.Conflicts) != 1 || r1.Report.Conflicts[0].Losers[0].AgentID != "rule-checker" || r1.Report.Conflicts[0].Losers[0].Reason != snapshot.LostOutweighed {
		t.Fatalf("round 1 conflicts: %+v", r1.Report.Conflicts)
	}
	cur := must(s.Snapshot(ctx, checker, "orders", snapshot.Read{}))(t)
	if diff := cmp.Diff(r1.State, cur.State); diff != "" || cur.Round != 1 || len(cur.Deltas) != 3 {
		t.Fatalf("current snapshot differs from the close's (round %d, %d deltas): %s", cur.Round, len(cur.Deltas), diff)
	}
	zero := 0
	r0 := must(s.Snapshot(ctx, checker, "orders", snapshot.Read{Round: &zero}))(t)
	if len(r0.Bindings()) != 0 || r0.Round != 0 || len(r0.Deltas) != 0 {
		t.Fatalf("round 0 read back: %+v", r0)
	}
	asOf := T0.Add(90 * time.Second)
	if r := must(s.Snapshot(ctx, checker, "orders", snapshot.Read{AsOf: &asOf, OmitDeltas: true}))(t); r.Round != 0 || r.Deltas == nil || len(r.Deltas) != 0 {
		t.Fatalf("as of %s: round %d, deltas %v", asOf, r.Round, r.Deltas)
	}
	b := must(s.Binding(ctx, checker, "orders", "customer"))(t)
	if b.ConceptID != "sea:customer:001" || b.Round != 1 {
		t.Fatalf("binding: %+v", b)
	}
	h := must(s.PathHistory(ctx, checker, "orders", "$.bindings.customer"))(t)
	var lines []string
	for _, d := range h.Deltas {
		lines = append(lines, d.String())
	}
	want := []string{
		`Round 1: semantic-mapper → "sea:customer:001" (add $.bindings.customer, weight 0.35, applied) — Matched 'customer' to concept via KGS lookup`,
		`Round 1: rule-checker → "sea:client:042" (add $.bindings.customer, weight 0.2, lost: outweighed) — rule-checker says so`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("history of $.bindings.customer (-want +got):\n%s", diff)
	}
	// A round with nothing new changes nothing: converged.
	must(s.SubmitDeltas(ctx, mapper, "orders", []snapshot.Delta{sdelta("", 2, 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`)}))(t)
	r2 := must(s.CloseRound(ctx, router, "orders", 0))(t)
	if !r2.Converged || len(r2.Report.Changes) != 0 || r2.OpenRound != 3 {
		t.Fatalf("round 2: converged %v, changes %v", r2.Converged, r2.Report.Changes)
	}
	// A rebind is the one way a binding changes, and it is recorded.
	must(s.SubmitDeltas(ctx, mapper, "orders", []snapshot.Delta{sdelta("", 3, 0.9, snapshot.OpRebind, "$.bindings.customer", `"sea:customer:002"`)}))(t)
	r3 := must(s.CloseRound(ctx, router, "orders", 0))(t)
	if r3.Bindings()["customer"] != "sea:customer:002" || len(r3.Report.Rebinds) != 1 || r3.Report.Rebinds[0].From != "sea:customer:001" {
		t.Fatalf("round 3: %v, rebinds %+v", r3.Bindings(), r3.Report.Rebinds)
	}
}

func testSnapshotInvalid(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	s, _ := f(t, NewClock(T0).Now, Counter("wf"))
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers?"}))(t)
	must(s.SubmitDeltas(ctx, mapper, "orders", []snapshot.Delta{sdelta("", 1, 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`)}))(t)
	must(s.CloseRound(ctx, router, "orders", 0))(t)
	ok := sdelta("", 2, 0.5, snapshot.OpAdd, "$.bindings.order", `"sea:order:007"`)
	edit := func(fn func(*snapshot.Delta)) []snapshot.Delta { d := ok; fn(&d); return []snapshot.Delta{d} }
	tests := []struct {
		name     string
		p        tenure.Principal
		workflow string
		ds       []snapshot.Delta
		code     tenure.Code
		field    string
	}{
		{"ErrJSONPath", mapper, "orders", edit(func(d *snapshot.Delta) { d.Path = "$.bindings[" }), tenure.CodeInvalid, "[0].path"},
		{"ErrPathIntoScalar", mapper, "orders", edit(func(d *snapshot.Delta) { d.Path = "$.query.text" }), tenure.CodeInvalid, "[0].path"},
		{"ErrOperation", mapper, "orders", edit(func(d *snapshot.Delta) { d.Operation = "upsert" }), tenure.CodeInvalid, "[0].operation"},
		{"ErrWeight", mapper, "orders", edit(func(d *snapshot.Delta) { d.Weight = tenure.Ptr(1.2) }), tenure.CodeInvalid, "[0].weight"},
		{"ErrNoProvenance", mapper, "orders", edit(func(d *snapshot.Delta) { d.Provenance = "" }), tenure.CodeInvalid, "[0].provenance"},
		{"ErrPastRound", mapper, "orders", edit(func(d *snapshot.Delta) { d.Round = 1 }), tenure.CodeConflict, "[0].round"},
		{"ErrFutureRound", mapper, "orders", edit(func(d *snapshot.Delta) { d.Round = 3 }), tenure.CodeConflict, "[0].round"},
		{"ErrOtherAgent", mapper, "orders", edit(func(d *snapshot.Delta) { d.AgentID = "rule-checker" }), tenure.CodeForbidden, "[0].agentId"},
		{"ErrNoAgent", guest, "orders", edit(func(*snapshot.Delta) {}), tenure.CodeInvalid, "[0].agentId"},
		{"ErrIdentity", mapper, "orders", edit(func(d *snapshot.Delta) { d.Path, d.Value = "$.bindings.customer", json.RawMessage(`"sea:x"`) }),
			tenure.CodeConflict, "[0].path"},
		{"ErrStoreFields", mapper, "orders", edit(func(d *snapshot.Delta) { d.Status = snapshot.StatusApplied }), tenure.CodeInvalid, "[0].id"},
		{"ErrUnknownWorkflow", mapper, "nothing", edit(func(*snapshot.Delta) {}), tenure.CodeNotFound, "workflowId"},
		{"ErrNoDeltas", mapper, "orders", nil, tenure.CodeInvalid, ""},
		{"ErrOneBadInABatch", mapper, "orders", append(edit(func(*snapshot.Delta) {}), edit(func(d *snapshot.Delta) { d.Weight = nil })...),
			tenure.CodeInvalid, "[1].weight"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.SubmitDeltas(ctx, tc.p, tc.workflow, tc.ds)
			if tenure.ErrorCode(err) != tc.code || tenure.ErrorField(err) != tc.field {
				t.Fatalf("submit: %v (code %s, field %q), want %s on %q", err, tenure.ErrorCode(err), tenure.ErrorField(err), tc.code, tc.field)
			}
		})
	}
	// Nothing was written: the open round has no deltas.
	r2 := must(s.CloseRound(ctx, router, "orders", 0))(t)
	if r2.Report.Deltas != 0 {
		t.Fatalf("round 2 has %d deltas after only refused submissions", r2.Report.Deltas)
	}
	if _, err := s.PathHistory(ctx, mapper, "orders", "$.bindings["); tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "path" {
		t.Errorf("history of a bad path: %v", err)
	}
	five := 5
	if _, err := s.Snapshot(ctx, mapper, "orders", snapshot.Read{Round: &five}); tenure.ErrorCode(err) != tenure.CodeNotFound || tenure.ErrorField(err) != "round" {
		t.Errorf("a round not closed: %v", err)
	}
	for _, w := range []snapshot.Workflow{{WorkflowID: "x"}, {WorkflowID: "x", Query: "q", Strategy: "loudest"}, {WorkflowID: "x", Query: "q", MaxStateSize: 10}} {
		if _, err := s.StartWorkflow(ctx, router, w); err == nil || tenure.ErrorField(err) == "" {
			t.Errorf("start %+v: %v, want an error naming the field", w, err)
		}
	}
	if _, err := s.Snapshot(ctx, router, "x", snapshot.Read{}); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("a refused start stored a workflow: %v", err)
	}
}

func testSnapshotVisibility(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	s, _ := f(t, NewClock(T0).Now, Counter("wf"))
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "restricted", Query: "q", SecurityClassification: tenure.Restricted}))(t)
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "private", Query: "q", UserID: "router"}))(t)
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "routers", Query: "q", AllowRoles: []string{"router"}}))(t)
	for _, id := range []string{"restricted", "private", "routers"} {
		if _, err := s.Snapshot(ctx, router, id, snapshot.Read{}); err != nil {
			t.Errorf("%s: its creator cannot read it: %v", id, err)
		}
		for _, p := range []tenure.Principal{checker, outsider} {
			_, err := s.Snapshot(ctx, p, id, snapshot.Read{})
			if tenure.ErrorCode(err) != tenure.CodeNotFound || tenure.ErrorField(err) != "workflowId" || !strings.Contains(err.Error(), `no workflow "`+id+`"`) {
				t.Errorf("%s read by %s: %v, want not_found as for a missing workflow", id, p.UserID, err)
			}
		}
	}
	// The same name in another audience is another workflow.
	other := must(s.StartWorkflow(ctx, checker, snapshot.Workflow{WorkflowID: "restricted", Query: "the checker's"}))(t)
	if other.Query() != "the checker's" {
		t.Fatalf("start beside a hidden workflow: %+v", other)
	}
	if got := must(s.Snapshot(ctx, router, "restricted", snapshot.Read{}))(t); got.Query() != "q" {
		t.Errorf("the router sees %q, want its own, the first it can see", got.Query())
	}
	if _, err := s.StartWorkflow(ctx, mapper, snapshot.Workflow{WorkflowID: "restricted", Query: "q"}); tenure.ErrorCode(err) != tenure.CodeConflict {
		t.Errorf("start of a name the caller sees: %v, want conflict", err)
	}
	// A workflow one could not see oneself is refused.
	if _, err := s.StartWorkflow(ctx, checker, snapshot.Workflow{WorkflowID: "w", Query: "q", SecurityClassification: tenure.Confidential}); tenure.ErrorCode(err) != tenure.CodeForbidden {
		t.Errorf("start above one's clearance: %v, want forbidden", err)
	}
	if _, err := s.StartWorkflow(ctx, checker, snapshot.Workflow{WorkflowID: "w", Query: "q", UserID: "router"}); tenure.ErrorCode(err) != tenure.CodeForbidden ||
		tenure.ErrorField(err) != "userId" {
		t.Errorf("start for another user: %v, want forbidden on userId", err)
	}
}

// testSnapshotOracle replays one principal's operations in two stores, one
// holding a workflow of the same name it may not see: every answer must
// be the same, byte for byte.
func testSnapshotOracle(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	hidden := []struct {
		name string
		p    tenure.Principal
		w    snapshot.Workflow
	}{
		{"OtherTenant", outsider, snapshot.Workflow{WorkflowID: "orders", Query: "hidden"}},
		{"OtherUser", router, snapshot.Workflow{WorkflowID: "orders", Query: "hidden", UserID: "router"}},
		{"AboveClearance", router, snapshot.Workflow{WorkflowID: "orders", Query: "hidden", SecurityClassification: tenure.Restricted}},
		{"Roles", router, snapshot.Workflow{WorkflowID: "orders", Query: "hidden", DenyRoles: []string{"checkers"}}},
	}
	actor := checker
	actor.Roles = []string{"checkers"}
	run := func(s snapshot.Store) []string {
		var out []string
		record := func(v any, err error) {
			if err != nil {
				out = append(out, fmt.Sprintf("%s %s %s", tenure.ErrorCode(err), tenure.ErrorField(err), err))
				return
			}
			b, _ := json.Marshal(v)
			out = append(out, string(b))
		}
		record(s.Snapshot(ctx, actor, "orders", snapshot.Read{}))
		record(s.SubmitDeltas(ctx, actor, "orders", []snapshot.Delta{sdelta("", 1, 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`)}))
		record(s.CloseRound(ctx, actor, "orders", 0))
		record(s.PathHistory(ctx, actor, "orders", "$.bindings"))
		record(s.Binding(ctx, actor, "orders", "customer"))
		record(s.StartWorkflow(ctx, actor, snapshot.Workflow{WorkflowID: "orders", Query: "mine"}))
		record(s.SubmitDeltas(ctx, actor, "orders", []snapshot.Delta{sdelta("", 1, 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`)}))
		record(s.CloseRound(ctx, actor, "orders", 0))
		record(s.Snapshot(ctx, actor, "orders", snapshot.Read{}))
		record(s.PathHistory(ctx, actor, "orders", "$..*"))
		return out
	}
	for _, h := range hidden {
		t.Run(h.name, func(t *testing.T) {
			clock := NewClock(T0)
			a, _ := f(t, clock.Now, Counter("wf"))
			b, second := f(t, clock.Now, Counter("wf"))
			must(second(Counter("hidden")).StartWorkflow(ctx, h.p, h.w))(t)
			if diff := cmp.Diff(run(a), run(b)); diff != "" {
				t.Fatalf("answers differ when a workflow the caller cannot see exists (-without +with):\n%s", diff)
			}
		})
	}
}

func testSnapshotClose(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	s, _ := f(t, NewClock(T0).Now, Counter("wf"))
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "q"}))(t)
	if _, err := s.CloseRound(ctx, mapper, "orders", 0); tenure.ErrorCode(err) != tenure.CodeForbidden {
		t.Fatalf("an agent closed the router's round: %v", err)
	}
	// A principal with no user would be a creator no one is.
	if _, err := s.StartWorkflow(ctx, guest, snapshot.Workflow{WorkflowID: "guests", Query: "q"}); tenure.ErrorCode(err) != tenure.CodeForbidden {
		t.Fatalf("a principal with no user started a workflow: %v", err)
	}
	if _, err := s.CloseRound(ctx, guest, "orders", 0); tenure.ErrorCode(err) != tenure.CodeForbidden {
		t.Fatalf("a principal with no user closed a round: %v", err)
	}
	anyUser := mapper
	anyUser.Permissions = []string{tenure.PermAnyUser}
	if r := must(s.CloseRound(ctx, anyUser, "orders", 0))(t); r.Round != 1 {
		t.Fatalf("scope:any_user close: round %d", r.Round)
	}
	// Naming the round to close: a repeated close of round 1 (a retry,
	// a second coordinator) closes nothing; round 2 stays open.
	if _, err := s.CloseRound(ctx, router, "orders", 1); tenure.ErrorCode(err) != tenure.CodeConflict || tenure.ErrorField(err) != "round" {
		t.Fatalf("closing round 1 again: %v, want conflict on round", err)
	}
	if _, err := s.CloseRound(ctx, router, "orders", -1); tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "round" {
		t.Fatalf("closing round -1: %v, want invalid round", err)
	}
	if cur := must(s.Snapshot(ctx, router, "orders", snapshot.Read{}))(t); cur.OpenRound != 2 {
		t.Fatalf("after refused closes the open round is %d, want 2", cur.OpenRound)
	}
	if r := must(s.CloseRound(ctx, router, "orders", 2))(t); r.Round != 2 || r.OpenRound != 3 {
		t.Fatalf("closing round 2 by name: round %d, open %d", r.Round, r.OpenRound)
	}
}

func testSnapshotConcurrent(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	s, _ := f(t, NewClock(T0).Now, Counter("wf"))
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "q", MaxStateSize: 1 << 20}))(t)
	const submitters, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, submitters*each)
	for i := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := tenure.Principal{UserID: fmt.Sprintf("agent-%02d", i), TenantID: "acme"}
			for j := range each {
				d := sdelta("", 1, float64(j%10)/10, snapshot.OpAdd, "$.entities", fmt.Sprintf(`{"agent":%d,"n":%d}`, i, j))
				if _, err := s.SubmitDeltas(ctx, p, "orders", []snapshot.Delta{d}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent submit: %v", err)
	}
	r := must(s.CloseRound(ctx, router, "orders", 0))(t)
	if r.Report.Deltas != submitters*each || r.Report.Applied != submitters*each || len(r.Entities()) != submitters*each {
		t.Fatalf("%d submitted; the round has %d deltas, %d applied, %d entities", submitters*each, r.Report.Deltas, r.Report.Applied, len(r.Entities()))
	}
}

// testSnapshotServers submits the same deltas in shuffled orders, split
// between two servers of one database, and compares every close with a
// reference store that received them in order.
func testSnapshotServers(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 19))
	agents := []tenure.Principal{mapper, checker, router}
	var ds []snapshot.Delta
	for i := range 40 {
		path, value := "$.bindings.term"+fmt.Sprint(i%5), fmt.Sprintf(`"sea:%d"`, i%3)
		switch i % 4 {
		case 1:
			path, value = "$.entities", fmt.Sprintf(`{"id":"e%d"}`, i%6)
		case 2:
			path, value = "$.notes.n"+fmt.Sprint(i%3), fmt.Sprintf(`{"v":%d}`, i%4)
		}
		d := sdelta(agents[i%3].UserID, 1, []float64{0.25, 0.5, 0.75}[(i/3)%3], snapshot.OpAdd, path, value)
		ds = append(ds, d)
	}
	principal := func(agent string) tenure.Principal {
		return agents[slices.IndexFunc(agents, func(p tenure.Principal) bool { return p.UserID == agent })]
	}
	closeWith := func(submit func(d snapshot.Delta) error, s snapshot.Store) string {
		t.Helper()
		for _, d := range ds {
			if err := submit(d); err != nil {
				t.Fatal(err)
			}
		}
		snap := must(s.CloseRound(ctx, router, "orders", 0))(t)
		for i := range snap.Deltas {
			snap.Deltas[i].SubmittedAt = time.Time{}
		}
		b, _ := json.MarshalIndent(struct {
			State  map[string]any
			Report *snapshot.Report
			Deltas []snapshot.Delta
		}{snap.State, snap.Report, snap.Deltas}, "", " ")
		return string(b)
	}
	start := func(s snapshot.Store) {
		must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "q", Strategy: snapshot.MajorityVote}))(t)
	}
	clock := NewClock(T0)
	ref, _ := f(t, clock.Now, Counter("wf"))
	start(ref)
	want := closeWith(func(d snapshot.Delta) error {
		_, err := ref.SubmitDeltas(ctx, principal(d.AgentID), "orders", []snapshot.Delta{d})
		return err
	}, ref)
	for trial := range 3 {
		one, second := f(t, clock.Now, Counter("wf"))
		two := second(Counter("other"))
		start(one)
		r.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		got := closeWith(func(d snapshot.Delta) error {
			s := one
			if r.IntN(2) == 0 {
				s = two
			}
			_, err := s.SubmitDeltas(ctx, principal(d.AgentID), "orders", []snapshot.Delta{d})
			return err
		}, two)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("trial %d: the close depends on which server received which delta, in which order (-in order +shuffled):\n%s", trial, diff)
		}
	}
}

func testSnapshotClipped(t *testing.T, f SnapshotFactory) {
	ctx := context.Background()
	s, _ := f(t, NewClock(T0).Now, Counter("wf"))
	must(s.StartWorkflow(ctx, router, snapshot.Workflow{WorkflowID: "orders", Query: "q", MaxStateSize: 300}))(t)
	var ds []snapshot.Delta
	for i := range 6 {
		ds = append(ds, sdelta("", 1, float64(i+1)/10, snapshot.OpAdd, "$.entities", fmt.Sprintf(`{"id":"e%d","pad":"%s"}`, i, strings.Repeat("x", 40))))
	}
	must(s.SubmitDeltas(ctx, mapper, "orders", ds))(t)
	r := must(s.CloseRound(ctx, router, "orders", 0))(t)
	if r.StateSize > 300 || r.Report.Clipped == 0 || len(r.Report.Clips) == 0 {
		t.Fatalf("state %d bytes, %d clipped, clips %+v", r.StateSize, r.Report.Clipped, r.Report.Clips)
	}
	h := must(s.PathHistory(ctx, router, "orders", "$.entities"))(t)
	clipped := 0
	for _, d := range h.Deltas {
		if d.Status == snapshot.StatusClipped && len(d.Value) > 0 {
			clipped++
		}
	}
	if clipped != r.Report.Clipped || len(h.Deltas) != 6 {
		t.Fatalf("history of $.entities: %d deltas, %d clipped with their values; the round clipped %d", len(h.Deltas), clipped, r.Report.Clipped)
	}
}

// LoadDelta is the i-th delta of a benchmark round of n from 16 agents
// (agent-00 … agent-15): 40% bindings (the agents disagree on a quarter of
// the terms), 40% entities, 20% members of $.notes, weights in steps of
// 0.1.
func LoadDelta(i, n int) snapshot.Delta {
	d := snapshot.Delta{AgentID: fmt.Sprintf("agent-%02d", i%16), Round: 1, Weight: tenure.Ptr(float64(i%10) / 10),
		Operation: snapshot.OpAdd, Provenance: "benchmark"}
	switch i % 5 {
	case 0, 1:
		term := i % max(1, n/4)
		d.Path, d.Value = fmt.Sprintf("$.bindings.t%d", term), json.RawMessage(fmt.Sprintf(`"sea:%d:%d"`, term, i%3))
	case 2, 3:
		d.Path, d.Value = "$.entities", json.RawMessage(fmt.Sprintf(`{"id":"e%d","name":"entity %d","type":"concept"}`, i, i))
	default:
		d.Path, d.Value = fmt.Sprintf("$.notes.n%d", i%50), json.RawMessage(fmt.Sprintf(`{"v":%d,"by":"agent-%02d"}`, i, i%16))
	}
	return d
}
