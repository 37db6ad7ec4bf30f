package snapshot_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

func fieldOf(err error) string { return tenure.ErrorField(err) }

func TestDeltaCheck(t *testing.T) {
	ok := delta("semantic-mapper", 0.35, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`)
	tests := []struct {
		name  string
		edit  func(*snapshot.Delta)
		code  tenure.Code
		field string
	}{
		{"OK", func(*snapshot.Delta) {}, "", ""},
		{"OKRemoveWithNull", func(d *snapshot.Delta) { d.Operation, d.Value = snapshot.OpRemove, json.RawMessage("null") }, "", ""},
		{"ErrNoAgent", func(d *snapshot.Delta) { d.AgentID = "" }, tenure.CodeInvalid, "agentId"},
		{"ErrRound", func(d *snapshot.Delta) { d.Round = 0 }, tenure.CodeInvalid, "round"},
		{"ErrNoWeight", func(d *snapshot.Delta) { d.Weight = nil }, tenure.CodeInvalid, "weight"},
		{"ErrWeightAbove", func(d *snapshot.Delta) { d.Weight = tenure.Ptr(1.5) }, tenure.CodeInvalid, "weight"},
		{"ErrWeightBelow", func(d *snapshot.Delta) { d.Weight = tenure.Ptr(-0.1) }, tenure.CodeInvalid, "weight"},
		{"ErrOperation", func(d *snapshot.Delta) { d.Operation = "replace" }, tenure.CodeInvalid, "operation"},
		{"ErrNoPath", func(d *snapshot.Delta) { d.Path = "" }, tenure.CodeInvalid, "path"},
		{"ErrJSONPath", func(d *snapshot.Delta) { d.Path = "$.bindings[" }, tenure.CodeInvalid, "path"},
		{"ErrNotJSONPath", func(d *snapshot.Delta) { d.Path = "bindings.customer" }, tenure.CodeInvalid, "path"},
		{"ErrPathTooLong", func(d *snapshot.Delta) { d.Path = "$." + strings.Repeat("a", 2000) }, tenure.CodeTooLarge, "path"},
		{"ErrNoValue", func(d *snapshot.Delta) { d.Value = nil }, tenure.CodeInvalid, "value"},
		{"ErrBadValue", func(d *snapshot.Delta) { d.Value = json.RawMessage(`{"a":`) }, tenure.CodeInvalid, "value"},
		{"ErrRemoveWithValue", func(d *snapshot.Delta) { d.Operation = snapshot.OpRemove }, tenure.CodeInvalid, "value"},
		{"ErrNoProvenance", func(d *snapshot.Delta) { d.Provenance = " " }, tenure.CodeInvalid, "provenance"},
		{"ErrProvenanceTooLong", func(d *snapshot.Delta) { d.Provenance = strings.Repeat("p", 5000) }, tenure.CodeTooLarge, "provenance"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := ok
			tc.edit(&d)
			err := d.Check()
			if got := tenure.ErrorCode(err); got != tc.code || fieldOf(err) != tc.field {
				t.Fatalf("Check: %v (code %q, field %q), want code %q on %q", err, got, fieldOf(err), tc.code, tc.field)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	base := withBindings(map[string]string{"customer": "sea:customer:001"})
	base["notes"] = map[string]any{"scope": "orders"}
	base["entities"] = []any{map[string]any{"id": "e1", "name": "customer"}}
	tests := []struct {
		name    string
		d       snapshot.Delta
		code    tenure.Code
		field   string
		targets string // with no error
		message string // a part of the error's message
	}{
		{name: "OKAddBinding", d: delta("a", 0.5, snapshot.OpAdd, "$.bindings.order", `"sea:order:007"`),
			targets: "$['bindings']['order']"},
		{name: "OKSameBindingAgain", d: delta("a", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
			targets: "$['bindings']['customer']"},
		{name: "OKAddAppends", d: delta("a", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e2"}`), targets: "$['entities']"},
		{name: "OKAddCreatesObjects", d: delta("a", 0.5, snapshot.OpAdd, "$.plan.steps.first", `"join"`),
			targets: "$['plan']['steps']['first']"},
		{name: "OKModifyFilter", d: delta("a", 0.5, snapshot.OpModify, "$.entities[?@.id == 'e1'].name", `"client"`),
			targets: "$['entities'][0]['name']"},
		{name: "OKModifyNegativeIndex", d: delta("a", 0.5, snapshot.OpModify, "$.entities[-1].name", `"client"`),
			targets: "$['entities'][0]['name']"},
		{name: "OKRemoveMember", d: delta("a", 0.5, snapshot.OpRemove, "$.notes.scope", ""), targets: "$['notes']['scope']"},
		{name: "OKRebind", d: delta("a", 0.5, snapshot.OpRebind, "$.bindings.customer", `"sea:customer:002"`),
			targets: "$['bindings']['customer']"},
		{name: "ErrPathIntoScalar", d: delta("a", 0.5, snapshot.OpAdd, "$.query.words", `1`),
			code: tenure.CodeInvalid, field: "path", message: "path into a scalar: $['query'] is a string"},
		{name: "ErrPathIntoScalarModify", d: delta("a", 0.5, snapshot.OpModify, "$.notes.scope.first", `1`),
			code: tenure.CodeInvalid, field: "path", message: "path into a scalar"},
		{name: "ErrAddQuery", d: delta("a", 0.5, snapshot.OpAdd, "$.entities[*].name", `"x"`),
			code: tenure.CodeInvalid, field: "path", message: "singular path"},
		{name: "ErrAddIndex", d: delta("a", 0.5, snapshot.OpAdd, "$.entities[0]", `{"id":"e0"}`),
			code: tenure.CodeInvalid, field: "path", message: "appends to an array"},
		{name: "ErrIndexIntoObject", d: delta("a", 0.5, snapshot.OpAdd, "$.notes[0]", `1`),
			code: tenure.CodeInvalid, field: "path", message: "is an object"},
		{name: "ErrNameIntoArray", d: delta("a", 0.5, snapshot.OpAdd, "$.entities.first", `1`),
			code: tenure.CodeInvalid, field: "path", message: "is an array"},
		{name: "ErrModifyMissing", d: delta("a", 0.5, snapshot.OpModify, "$.notes.period", `"x"`),
			code: tenure.CodeInvalid, field: "path", message: "no such member"},
		{name: "ErrModifyNoMatch", d: delta("a", 0.5, snapshot.OpModify, "$.entities[?@.id == 'e9'].name", `"x"`),
			code: tenure.CodeInvalid, field: "path", message: "selects nothing"},
		{name: "ErrIndexOutOfRange", d: delta("a", 0.5, snapshot.OpModify, "$.entities[3].name", `"x"`),
			code: tenure.CodeInvalid, field: "path", message: "has no element 3"},
		{name: "ErrQuery", d: delta("a", 0.5, snapshot.OpModify, "$.query", `"another question"`),
			code: tenure.CodeInvalid, field: "path", message: "never changes"},
		{name: "ErrReserved", d: delta("a", 0.5, snapshot.OpAdd, "$.round", `7`),
			code: tenure.CodeInvalid, field: "path", message: "field of the snapshot itself"},
		{name: "ErrRoot", d: delta("a", 0.5, snapshot.OpModify, "$", `{}`), code: tenure.CodeInvalid, field: "path", message: "name a member"},
		{name: "ErrRemoveEntities", d: delta("a", 0.5, snapshot.OpRemove, "$.entities", ""), code: tenure.CodeInvalid, field: "path"},
		{name: "ErrEntitiesNotArray", d: delta("a", 0.5, snapshot.OpModify, "$.entities", `{}`), code: tenure.CodeInvalid, field: "value"},
		{name: "ErrBindingNotString", d: delta("a", 0.5, snapshot.OpAdd, "$.bindings.order", `7`), code: tenure.CodeInvalid, field: "value"},
		{name: "ErrBindingMember", d: delta("a", 0.5, snapshot.OpAdd, "$.bindings.order.id", `"x"`), code: tenure.CodeInvalid, field: "path"},
		{name: "ErrIdentityChanged", d: delta("a", 0.5, snapshot.OpModify, "$.bindings.customer", `"sea:client:042"`),
			code: tenure.CodeConflict, field: "path", message: "cannot change"},
		{name: "ErrIdentityAdd", d: delta("a", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`),
			code: tenure.CodeConflict, field: "path", message: "rebind"},
		{name: "ErrIdentityRemoved", d: delta("a", 0.5, snapshot.OpRemove, "$.bindings.customer", ""),
			code: tenure.CodeConflict, field: "path"},
		{name: "ErrIdentityByWildcard", d: delta("a", 0.5, snapshot.OpModify, "$.bindings.*", `"sea:any"`),
			code: tenure.CodeConflict, field: "path"},
		{name: "ErrIdentityBindingsReplaced", d: delta("a", 0.5, snapshot.OpModify, "$.bindings", `{"order":"sea:order:007"}`),
			code: tenure.CodeConflict, field: "path"},
		{name: "ErrRemoveBindings", d: delta("a", 0.5, snapshot.OpRemove, "$.bindings", ""), code: tenure.CodeInvalid, field: "path"},
		{name: "ErrRebindMissing", d: delta("a", 0.5, snapshot.OpRebind, "$.bindings.order", `"sea:order:007"`),
			code: tenure.CodeInvalid, field: "path", message: "existing binding"},
		{name: "ErrRebindNotBinding", d: delta("a", 0.5, snapshot.OpRebind, "$.notes.scope", `"x"`), code: tenure.CodeInvalid, field: "path"},
		{name: "ErrValueOverState", d: delta("a", 0.5, snapshot.OpAdd, "$.notes.long", `"`+strings.Repeat("x", 300)+`"`),
			code: tenure.CodeTooLarge, field: "value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.d.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			targets, err := snapshot.Expand(base, &tc.d, 300)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("Expand: %v", err)
				}
				if got := strings.Join(targets, " "); got != tc.targets {
					t.Fatalf("targets %s, want %s", got, tc.targets)
				}
				return
			}
			if got := tenure.ErrorCode(err); got != tc.code || fieldOf(err) != tc.field || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("Expand: %v (code %q, field %q), want code %q on %q saying %q", err, got, fieldOf(err), tc.code, tc.field, tc.message)
			}
		})
	}
}

func TestRebindIsRecorded(t *testing.T) {
	base := withBindings(map[string]string{"customer": "sea:customer:001"})
	res := aggregate(t, base, snapshot.Workflow{},
		delta("semantic-mapper", 0.8, snapshot.OpRebind, "$.bindings.customer", `"sea:customer:002"`))
	if got := member(t, res.State, "bindings"); got != `{"customer":"sea:customer:002"}` {
		t.Fatalf("bindings %s", got)
	}
	want := snapshot.Rebind{Term: "customer", From: "sea:customer:001", To: "sea:customer:002", DeltaID: res.Deltas[0].ID,
		AgentID: "semantic-mapper", Reason: "test: semantic-mapper"}
	if len(res.Report.Rebinds) != 1 || res.Report.Rebinds[0] != want {
		t.Fatalf("rebinds %+v, want %+v", res.Report.Rebinds, want)
	}
}

func TestClipping(t *testing.T) {
	long := func(c string, n int) string { return `"` + strings.Repeat(c, n) + `"` }
	t.Run("TruncateStrings", func(t *testing.T) {
		w := snapshot.Workflow{MaxStateSize: 1000, MaxStringBytes: 100}
		res := aggregate(t, snapshot.InitialState(query), w,
			delta("a", 0.9, snapshot.OpAdd, "$.notes.a", long("a", 600)),
			delta("b", 0.1, snapshot.OpAdd, "$.notes.b", long("b", 500)))
		if n := snapshot.Size(res.State); n > 1000 {
			t.Fatalf("size %d", n)
		}
		notes := res.State["notes"].(map[string]any)
		if a := notes["a"].(string); !strings.HasPrefix(a, strings.Repeat("a", 100)+" …[clipped 500 bytes]") {
			t.Errorf("a = %q, want it cut to 100 bytes with a marker", a)
		}
		if len(res.Report.Clips) != 1 || res.Report.Clips[0].Strategy != snapshot.TruncateStrings ||
			res.Report.Clips[0].Path != "$['notes']['a']" || len(res.Report.Clips[0].DeltaIDs) != 1 {
			t.Errorf("clips %+v, want the longest string truncated, naming its delta", res.Report.Clips)
		}
		if res.Report.Applied != 2 {
			t.Errorf("applied %d, want 2 (truncation keeps the deltas)", res.Report.Applied)
		}
	})
	t.Run("DropLowestWeight", func(t *testing.T) {
		w := snapshot.Workflow{MaxStateSize: 400}
		var ds []snapshot.Delta
		for i, agent := range []string{"a", "b", "c", "d", "e", "f"} {
			ds = append(ds, delta(agent, float64(i+1)/10, snapshot.OpAdd, "$.entities", `{"id":"entity-`+agent+`","name":"`+strings.Repeat(agent, 40)+`"}`))
		}
		res := aggregate(t, snapshot.InitialState(query), w, ds...)
		if n := snapshot.Size(res.State); n > 400 {
			t.Fatalf("size %d", n)
		}
		st := statuses(res)
		if st["f"] != snapshot.StatusApplied || st["a"] != snapshot.StatusClipped {
			t.Errorf("statuses %v: want the heaviest applied and the lightest clipped", st)
		}
		for _, d := range res.Deltas {
			if d.Status == snapshot.StatusClipped && d.W() > 0.3 {
				t.Errorf("%s (weight %g) clipped while lighter ones were kept", d.AgentID, d.W())
			}
		}
		if res.Report.Clipped == 0 || len(res.Report.Clips) != res.Report.Clipped {
			t.Errorf("report: %d clipped, clips %+v", res.Report.Clipped, res.Report.Clips)
		}
	})
	t.Run("EvictOldest", func(t *testing.T) {
		base := snapshot.InitialState(query)
		for i := range 5 {
			base["entities"] = append(base["entities"].([]any), map[string]any{"id": "old-" + string(rune('a'+i)), "pad": strings.Repeat("x", 50)})
		}
		w := snapshot.Workflow{MaxStateSize: snapshot.Size(base) + 50, Clipping: []snapshot.ClipStrategy{snapshot.EvictOldest}}
		res := aggregate(t, base, w, delta("a", 0.5, snapshot.OpAdd, "$.entities", `{"id":"new","pad":"`+strings.Repeat("y", 60)+`"}`))
		ents := res.State["entities"].([]any)
		if first := ents[0].(map[string]any)["id"]; first != "old-b" || ents[len(ents)-1].(map[string]any)["id"] != "new" {
			t.Errorf("entities start with %v: want the oldest evicted and the new one kept", first)
		}
		if res.Report.Applied != 1 || len(res.Report.Clips) != 1 || res.Report.Clips[0].Strategy != snapshot.EvictOldest {
			t.Errorf("report %+v", res.Report)
		}
	})
	t.Run("Caps", func(t *testing.T) {
		w := snapshot.Workflow{MaxEntities: 2}
		res := aggregate(t, snapshot.InitialState(query), w,
			delta("a", 0.9, snapshot.OpAdd, "$.entities", `{"id":"e1"}`),
			delta("b", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e2"}`),
			delta("c", 0.1, snapshot.OpAdd, "$.entities", `{"id":"e3"}`))
		if got := member(t, res.State, "entities"); got != `[{"id":"e2"},{"id":"e3"}]` {
			t.Errorf("entities %s, want the oldest beyond the cap evicted", got)
		}
		if len(res.Report.Clips) != 1 || !strings.Contains(res.Report.Clips[0].Detail, "cap of 2") {
			t.Errorf("clips %+v", res.Report.Clips)
		}
	})
	t.Run("Reject", func(t *testing.T) {
		w := snapshot.Workflow{MaxStateSize: 1000, OnViolation: snapshot.OnViolationReject, MaxStringBytes: 10}
		res := aggregate(t, snapshot.InitialState(query), w,
			delta("a", 0.9, snapshot.OpAdd, "$.notes.a", long("a", 600)),
			delta("b", 0.1, snapshot.OpAdd, "$.notes.b", long("b", 500)))
		if got := statuses(res); got["a"] != snapshot.StatusApplied || got["b"] != snapshot.StatusRejected {
			t.Errorf("statuses %v: want the lighter rejected, nothing truncated", got)
		}
		if a := res.State["notes"].(map[string]any)["a"].(string); len(a) != 600 {
			t.Errorf("a was altered (%d bytes)", len(a))
		}
	})
}

func TestConvergence(t *testing.T) {
	base := withBindings(map[string]string{"customer": "sea:customer:001"})
	base["summary"] = strings.Repeat("s", 400)
	tests := []struct {
		name      string
		threshold float64
		deltas    []snapshot.Delta
		want      bool
	}{
		{"NoDeltas", 0, nil, true},
		{"AgreeingDeltas", 0, []snapshot.Delta{delta("a", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`)}, true},
		{"AChange", 0, []snapshot.Delta{delta("a", 0.5, snapshot.OpAdd, "$.bindings.order", `"sea:order:1"`)}, false},
		{"AChangeUnderTheThreshold", 0.1, []snapshot.Delta{delta("a", 0.5, snapshot.OpAdd, "$.bindings.order", `"sea:order:1"`)}, true},
		{"AChangeOverTheThreshold", 0.01, []snapshot.Delta{delta("a", 0.5, snapshot.OpAdd, "$.bindings.order", `"sea:order:1"`)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := aggregate(t, base, snapshot.Workflow{ConvergenceThreshold: tc.threshold}, tc.deltas...)
			if res.Report.Converged != tc.want {
				t.Fatalf("converged %v (changes %d, ratio %.4f), want %v", res.Report.Converged, len(res.Report.Changes), res.Report.ChangeRatio, tc.want)
			}
		})
	}
}

func TestMatcher(t *testing.T) {
	base := withBindings(map[string]string{"customer": "sea:customer:001"})
	ds := prepared(t, base, 50_000,
		delta("a", 0.5, snapshot.OpAdd, "$.bindings.order", `"sea:order:007"`),
		delta("b", 0.5, snapshot.OpAdd, "$.bindings", `{"customer":"sea:customer:001","product":"sea:product:1"}`),
		delta("c", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e1","type":"customer"}`),
		delta("d", 0.5, snapshot.OpAdd, "$.notes.scope", `"orders"`))
	tests := []struct{ path, want string }{
		{"$.bindings.order", "a b"},
		{"$.bindings", "a b"},
		{"$.bindings.*", "a b"},
		{"$.entities[?@.type == 'customer']", "c"},
		{"$..scope", "d"},
		{"$.notes", "d"},
		{"$.rules", ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			m, err := snapshot.NewMatcher(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			var agents []string
			for _, d := range m.Match(ds, base, nil) {
				agents = append(agents, d.AgentID)
			}
			if got := strings.Join(agents, " "); got != tc.want {
				t.Fatalf("matched %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := snapshot.NewMatcher("$.["); tenure.ErrorCode(err) != tenure.CodeInvalid || fieldOf(err) != "path" {
		t.Errorf("NewMatcher: %v, want invalid on path", err)
	}
}
