package snapshot_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/snapshot"
)

// strategyCase is a round closed with a strategy, and what it must make
// of it.
type strategyCase struct {
	name     string
	workflow snapshot.Workflow
	base     map[string]any
	deltas   []snapshot.Delta
	// member and want: a state member and its canonical JSON after.
	member, want string
	statuses     map[string]snapshot.Status
	// losers lists the conflicts' losers as "path agent reason".
	losers []string
}

func runStrategyCases(t *testing.T, cases []strategyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == nil {
				base = snapshot.InitialState(query)
			}
			res := aggregate(t, base, tc.workflow, tc.deltas...)
			if got := member(t, res.State, tc.member); got != tc.want {
				t.Errorf("$.%s = %s, want %s", tc.member, got, tc.want)
			}
			if tc.statuses != nil {
				if diff := cmp.Diff(tc.statuses, statuses(res)); diff != "" {
					t.Errorf("statuses (-want +got):\n%s", diff)
				}
			}
			var losers []string
			for _, c := range res.Report.Conflicts {
				if c.Strategy == "" || len(c.Winners) == 0 {
					t.Errorf("conflict at %s has no strategy or winners: %+v", c.Path, c)
				}
				for _, l := range c.Losers {
					losers = append(losers, c.Path+" "+l.AgentID+" "+l.Reason)
				}
			}
			if diff := cmp.Diff(tc.losers, losers); diff != "" {
				t.Errorf("conflict losers (-want +got):\n%s", diff)
			}
			if got := snapshot.Size(res.State); got > tc.workflow.WithDefaults().MaxStateSize {
				t.Errorf("state size %d over the limit", got)
			}
		})
	}
}

const customer = "$['bindings']['customer']"

func TestWeightedMerge(t *testing.T) {
	runStrategyCases(t, []strategyCase{
		{name: "HeaviestHolds",
			deltas: []snapshot.Delta{
				delta("semantic-mapper", 0.35, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
				delta("summarizer", 0.2, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`)},
			member: "bindings", want: `{"customer":"sea:customer:001"}`,
			statuses: map[string]snapshot.Status{"semantic-mapper": snapshot.StatusApplied, "summarizer": snapshot.StatusLost},
			losers:   []string{customer + " summarizer outweighed"}},
		{name: "AgreeingDeltasAllApply",
			deltas: []snapshot.Delta{
				delta("a", 0.2, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
				delta("b", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`)},
			member: "bindings", want: `{"customer":"sea:customer:001"}`,
			statuses: map[string]snapshot.Status{"a": snapshot.StatusApplied, "b": snapshot.StatusApplied}},
		{name: "EqualWeightsGoToTheFirstAgentID",
			deltas: []snapshot.Delta{
				delta("zeta", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:002"`),
				delta("alpha", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:009"`)},
			member: "bindings", want: `{"customer":"sea:customer:009"}`,
			losers: []string{customer + " zeta outweighed"}},
		{name: "ObjectsMergeMemberByMember",
			deltas: []snapshot.Delta{
				delta("a", 0.6, snapshot.OpAdd, "$.notes", `{"scope":"orders","period":"last month"}`),
				delta("b", 0.4, snapshot.OpAdd, "$.notes", `{"period":"2025-04","currency":"USD"}`)},
			member: "notes", want: `{"currency":"USD","period":"last month","scope":"orders"}`,
			statuses: map[string]snapshot.Status{"a": snapshot.StatusApplied, "b": snapshot.StatusPartial},
			losers:   []string{"$['notes'] b outweighed"}},
		{name: "ArrayAdditionsAllKeptHeaviestFirst",
			deltas: []snapshot.Delta{
				delta("a", 0.2, snapshot.OpAdd, "$.entities", `{"id":"e1","name":"customer"}`),
				delta("b", 0.9, snapshot.OpAdd, "$.entities", `{"id":"e2","name":"order"}`),
				delta("c", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e1","name":"customer"}`)},
			member: "entities", want: `[{"id":"e2","name":"order"},{"id":"e1","name":"customer"},{"id":"e1","name":"customer"}]`},
		{name: "AHeavierRemovalBeatsAChangeBelowIt",
			base: map[string]any{"query": query, "bindings": map[string]any{}, "entities": []any{}, "rules": []any{},
				"notes": map[string]any{"a": 1.0}},
			deltas: []snapshot.Delta{
				delta("remover", 0.7, snapshot.OpRemove, "$.notes", ""),
				delta("editor", 0.5, snapshot.OpModify, "$.notes.a", `2`)},
			member: "notes", want: `null`,
			statuses: map[string]snapshot.Status{"remover": snapshot.StatusApplied, "editor": snapshot.StatusLost},
			losers:   []string{"$['notes']['a'] editor overlap"}},
		{name: "AHeavierChangeBelowBeatsARemovalAbove",
			base: map[string]any{"query": query, "bindings": map[string]any{}, "entities": []any{}, "rules": []any{},
				"notes": map[string]any{"a": 1.0}},
			deltas: []snapshot.Delta{
				delta("remover", 0.3, snapshot.OpRemove, "$.notes", ""),
				delta("editor", 0.5, snapshot.OpModify, "$.notes.a", `2`)},
			member: "notes", want: `{"a":2}`,
			losers: []string{"$['notes'] remover overlap"}},
		{name: "RemovalsOfElementsAndEditsOfOthers",
			base: map[string]any{"query": query, "bindings": map[string]any{}, "rules": []any{},
				"entities": []any{map[string]any{"id": "e0"}, map[string]any{"id": "e1"}, map[string]any{"id": "e2"}}},
			deltas: []snapshot.Delta{
				delta("a", 0.5, snapshot.OpRemove, "$.entities[?@.id == 'e1']", ""),
				delta("b", 0.5, snapshot.OpAdd, "$.entities[2].name", `"order"`),
				delta("c", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e3"}`)},
			member: "entities", want: `[{"id":"e0"},{"id":"e2","name":"order"},{"id":"e3"}]`},
	})
}

func TestMajorityVote(t *testing.T) {
	w := snapshot.Workflow{Strategy: snapshot.MajorityVote}
	runStrategyCases(t, []strategyCase{
		{name: "MostAgentsWin", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
				delta("b", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
				delta("c", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`)},
			member: "bindings", want: `{"customer":"sea:customer:001"}`,
			statuses: map[string]snapshot.Status{"a": snapshot.StatusApplied, "b": snapshot.StatusApplied, "c": snapshot.StatusLost},
			losers:   []string{customer + " c outvoted"}},
		{name: "TiesGoToTheHeavierVoters", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.3, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
				delta("b", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`)},
			member: "bindings", want: `{"customer":"sea:client:042"}`,
			losers: []string{customer + " a outvoted"}},
		{name: "ThenToTheHeaviestVoter", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.25, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("b", 0.75, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("c", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:y"`),
				delta("d", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:y"`)},
			member: "bindings", want: `{"customer":"sea:x"}`,
			losers: []string{customer + " c outvoted", customer + " d outvoted"}},
		{name: "ThenToTheSmallerValue", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:b"`),
				delta("b", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:a"`)},
			member: "bindings", want: `{"customer":"sea:a"}`,
			losers: []string{customer + " a outvoted"}},
		{name: "OneVotePerAgent", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("a", 0.8, snapshot.OpAdd, "$.bindings.customer", `"sea:z"`),
				delta("b", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:z"`),
				delta("c", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:z"`)},
			member: "bindings", want: `{"customer":"sea:z"}`,
			losers: []string{customer + " a same_agent", customer + " a outvoted"}},
		{name: "AdditionsToAnArrayAreKeptOnce", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e1"}`),
				delta("b", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e1"}`),
				delta("c", 0.1, snapshot.OpAdd, "$.entities", `{"id":"e2"}`)},
			member: "entities", want: `[{"id":"e1"},{"id":"e2"}]`},
	})
}

func TestHighestWeight(t *testing.T) {
	w := snapshot.Workflow{Strategy: snapshot.HighestWeight}
	runStrategyCases(t, []strategyCase{
		{name: "HeaviestWins", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("b", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("c", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:y"`)},
			member: "bindings", want: `{"customer":"sea:y"}`,
			losers: []string{customer + " a outweighed", customer + " b outweighed"}},
		{name: "ObjectsDoNotMerge", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.6, snapshot.OpAdd, "$.notes", `{"scope":"orders"}`),
				delta("b", 0.4, snapshot.OpAdd, "$.notes", `{"currency":"USD"}`)},
			member: "notes", want: `{"scope":"orders"}`,
			losers: []string{"$['notes'] b outweighed"}},
		{name: "OnlyTheHeaviestAdditions", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.9, snapshot.OpAdd, "$.entities", `{"id":"e1"}`),
				delta("b", 0.9, snapshot.OpAdd, "$.entities", `{"id":"e2"}`),
				delta("c", 0.5, snapshot.OpAdd, "$.entities", `{"id":"e3"}`)},
			member: "entities", want: `[{"id":"e1"},{"id":"e2"}]`,
			losers: []string{"$['entities'] c outweighed"}},
	})
}

func TestUnion(t *testing.T) {
	w := snapshot.Workflow{Strategy: snapshot.Union}
	base := map[string]any{"query": query, "bindings": map[string]any{}, "entities": []any{}, "rules": []any{},
		"tags": []any{"x"}}
	runStrategyCases(t, []strategyCase{
		{name: "AdditionsDeduplicated", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.5, snapshot.OpAdd, "$.tags", `"y"`),
				delta("b", 0.9, snapshot.OpAdd, "$.tags", `"x"`),
				delta("c", 0.1, snapshot.OpAdd, "$.tags", `"y"`)},
			base: base, member: "tags", want: `["x","y"]`,
			statuses: map[string]snapshot.Status{"a": snapshot.StatusApplied, "b": snapshot.StatusApplied, "c": snapshot.StatusApplied}},
		{name: "ArraysSetAreUnited", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.5, snapshot.OpModify, "$.tags", `["a","b"]`),
				delta("b", 0.4, snapshot.OpModify, "$.tags", `["b","c"]`)},
			base: base, member: "tags", want: `["x","a","b","c"]`},
		{name: "OtherValuesByWeightedMerge", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.5, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("b", 0.4, snapshot.OpAdd, "$.bindings.customer", `"sea:y"`)},
			member: "bindings", want: `{"customer":"sea:x"}`,
			losers: []string{customer + " b outweighed"}},
	})
}

func TestExpertOverride(t *testing.T) {
	w := snapshot.Workflow{Strategy: snapshot.ExpertOverride,
		Experts: []snapshot.Expert{{Path: "$.bindings", Agents: []string{"semantic-mapper", "kgs"}}}}
	byRole := delta("mapper-2", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:003"`)
	byRole.AgentRoles = []string{"kgs"}
	runStrategyCases(t, []strategyCase{
		{name: "ExpertWinsDespiteWeight", workflow: w,
			deltas: []snapshot.Delta{
				delta("semantic-mapper", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:customer:001"`),
				delta("summarizer", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`)},
			member: "bindings", want: `{"customer":"sea:customer:001"}`,
			losers: []string{customer + " summarizer expert_override"}},
		{name: "ExpertByRole", workflow: w,
			deltas: []snapshot.Delta{byRole, delta("summarizer", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:client:042"`)},
			member: "bindings", want: `{"customer":"sea:customer:003"}`,
			losers: []string{customer + " summarizer expert_override"}},
		{name: "NoExpertSpokeWeightedMerge", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.2, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("b", 0.7, snapshot.OpAdd, "$.bindings.customer", `"sea:y"`)},
			member: "bindings", want: `{"customer":"sea:y"}`,
			losers: []string{customer + " a outweighed"}},
		{name: "OutsideThePrefixWeightedMerge", workflow: w,
			deltas: []snapshot.Delta{
				delta("semantic-mapper", 0.1, snapshot.OpAdd, "$.notes.scope", `"orders"`),
				delta("summarizer", 0.9, snapshot.OpAdd, "$.notes.scope", `"customers"`)},
			member: "notes", want: `{"scope":"customers"}`,
			losers: []string{"$['notes']['scope'] semantic-mapper outweighed"}},
	})
}

func TestPathStrategies(t *testing.T) {
	w := snapshot.Workflow{Strategy: snapshot.MajorityVote, PathStrategies: map[string]snapshot.Strategy{"$.notes": snapshot.HighestWeight}}
	runStrategyCases(t, []strategyCase{
		{name: "PrefixOverrides", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.1, snapshot.OpAdd, "$.notes.scope", `"orders"`),
				delta("b", 0.1, snapshot.OpAdd, "$.notes.scope", `"orders"`),
				delta("c", 0.9, snapshot.OpAdd, "$.notes.scope", `"customers"`)},
			member: "notes", want: `{"scope":"customers"}`,
			losers: []string{"$['notes']['scope'] a outweighed", "$['notes']['scope'] b outweighed"}},
		{name: "ElsewhereTheWorkflowsStrategy", workflow: w,
			deltas: []snapshot.Delta{
				delta("a", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("b", 0.1, snapshot.OpAdd, "$.bindings.customer", `"sea:x"`),
				delta("c", 0.9, snapshot.OpAdd, "$.bindings.customer", `"sea:y"`)},
			member: "bindings", want: `{"customer":"sea:x"}`,
			losers: []string{customer + " c outvoted"}},
	})
}

func TestWorkflowValidate(t *testing.T) {
	ok := snapshot.Workflow{WorkflowID: "w", Query: query}
	tests := []struct {
		name  string
		edit  func(*snapshot.Workflow)
		field string
	}{
		{"OK", func(*snapshot.Workflow) {}, ""},
		{"ErrNoID", func(w *snapshot.Workflow) { w.WorkflowID = "" }, "workflowId"},
		{"ErrNoQuery", func(w *snapshot.Workflow) { w.Query = " " }, "query"},
		{"ErrStrategy", func(w *snapshot.Workflow) { w.Strategy = "loudest" }, "strategy"},
		{"ErrPathStrategyPath", func(w *snapshot.Workflow) {
			w.PathStrategies = map[string]snapshot.Strategy{"$.entities[*]": snapshot.Union}
		}, "pathStrategies.$.entities[*]"},
		{"ErrPathStrategy", func(w *snapshot.Workflow) { w.PathStrategies = map[string]snapshot.Strategy{"$.entities": "all"} }, "pathStrategies.$.entities"},
		{"ErrExpertsMissing", func(w *snapshot.Workflow) { w.Strategy = snapshot.ExpertOverride }, "experts"},
		{"ErrExpertAgents", func(w *snapshot.Workflow) { w.Experts = []snapshot.Expert{{Path: "$.bindings"}} }, "experts[0].agents"},
		{"ErrMaxStateSize", func(w *snapshot.Workflow) { w.MaxStateSize = -1 }, "maxStateSize"},
		{"ErrQueryOverMaxStateSize", func(w *snapshot.Workflow) { w.MaxStateSize = 40 }, "query"},
		{"ErrOnViolation", func(w *snapshot.Workflow) { w.OnViolation = "ignore" }, "onViolation"},
		{"ErrClipping", func(w *snapshot.Workflow) { w.Clipping = []snapshot.ClipStrategy{"shrink"} }, "clipping[0]"},
		{"ErrDropNotLast", func(w *snapshot.Workflow) {
			w.Clipping = []snapshot.ClipStrategy{snapshot.DropLowestWeight, snapshot.TruncateStrings}
		}, "clipping[0]"},
		{"ErrThreshold", func(w *snapshot.Workflow) { w.ConvergenceThreshold = 2 }, "convergenceThreshold"},
		{"ErrClassification", func(w *snapshot.Workflow) { w.SecurityClassification = "secret" }, "securityClassification"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := ok
			tc.edit(&w)
			err := w.WithDefaults().Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(fieldOf(err), tc.field) {
				t.Fatalf("Validate: %v, want an error on %s", err, tc.field)
			}
		})
	}
}
