package compile

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/theory/jsonpath/spec"
)

// SnapshotSource supplies workflow snapshots as a principal sees them
// (snapshot.Store's Snapshot). When the Source given to New also
// implements it, a request's WorkflowID renders the workflow's snapshot as
// task state in the workflow section.
type SnapshotSource interface {
	Snapshot(ctx context.Context, p tenure.Principal, workflowID string, q snapshot.Read) (snapshot.Snapshot, error)
}

// WorkflowTrace says what of a workflow's snapshot a compilation
// included.
type WorkflowTrace struct {
	WorkflowID string `json:"workflow_id"`
	SnapshotID string `json:"snapshot_id"`
	Round      int    `json:"round"`
	Converged  bool   `json:"converged"`
	StateSize  int    `json:"state_size"`
	// Included lists the state's locations in the envelope, as normalized
	// paths ($ for the query); Omitted those the budget left out.
	Included  []string `json:"included"`
	Omitted   []string `json:"omitted"`
	Tokens    int      `json:"tokens"`
	Truncated bool     `json:"truncated,omitempty"`
}

// addWorkflow reads the request's workflow snapshot (step 1).
func (r *run) addWorkflow(ctx context.Context) error {
	if r.req.WorkflowID == "" {
		return nil
	}
	src, ok := r.c.src.(SnapshotSource)
	if !ok {
		return tenure.Errorf(tenure.CodeInvalid, "workflow_id", "this compiler's source keeps no workflow snapshots")
	}
	snap, err := src.Snapshot(ctx, r.p, r.req.WorkflowID, snapshot.Read{AsOf: r.req.AsOf, OmitDeltas: true})
	if err != nil {
		if te := tenure.AsError(err); te.Field == "workflowId" {
			return tenure.Errorf(te.Code, "workflow_id", "%s", te.Message)
		}
		return err
	}
	r.workflow = &snap
	r.trace.Workflow = &WorkflowTrace{WorkflowID: snap.WorkflowID, SnapshotID: snap.ID, Round: snap.Round, Converged: snap.Converged,
		StateSize: snap.StateSize, Included: []string{}, Omitted: []string{}}
	return nil
}

// workflowBlocks renders the snapshot's state as lines, in packing
// priority order: the query, the bindings, the rules with their
// evaluations, the entities (newest first) and whatever else agents
// contributed. Every text in them came from agents: it goes through the
// untrusted-text renderer. The blocks' seq gives the display order.
func (r *run) workflowBlocks() ([]block, []string) {
	snap := r.workflow
	var blocks []block
	var paths []string
	add := func(group, header, text string, loc spec.NormalizedPath, seq int) {
		blocks = append(blocks, block{text: text, group: group, header: header, seq: int64(seq)})
		paths = append(paths, loc.String())
	}
	seq := 0
	add("", "", "Query: "+inlineText(snap.Query()), nil, seq)
	bindings := snap.Bindings()
	terms := make([]string, 0, len(bindings))
	for t := range bindings {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	for _, t := range terms {
		seq++
		add("bindings", "Bindings (term → concept id):", "- "+keyText(t)+" → "+inlineText(bindings[t]),
			spec.Normalized(spec.Name(snapshot.KeyBindings), spec.Name(t)), seq)
	}
	for i, rule := range snap.Rules() {
		seq++
		add("rules", "Rules (evaluations):", "- "+ruleLine(rule, i), spec.Normalized(spec.Name(snapshot.KeyRules), spec.Index(i)), seq)
	}
	ents := snap.Entities()
	base := seq
	for i := len(ents) - 1; i >= 0; i-- {
		add("entities", "Entities:", "- "+entityLine(ents[i], i), spec.Normalized(spec.Name(snapshot.KeyEntities), spec.Index(i)), base+1+i)
	}
	seq = base + len(ents)
	for _, k := range sortedMembers(snap.State) {
		seq++
		add("other", "Other:", "- "+keyText(k)+": "+valueText(snap.State[k]), spec.Normalized(spec.Name(k)), seq)
	}
	return blocks, paths
}

// sortedMembers lists the state's members other than the query,
// bindings, entities and rules.
func sortedMembers(state map[string]any) []string {
	var out []string
	for k := range state {
		switch k {
		case snapshot.KeyQuery, snapshot.KeyBindings, snapshot.KeyEntities, snapshot.KeyRules:
		default:
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ruleLine renders a rule evaluation: its id (or its position), its rule
// and its result, from the fields agents conventionally give it; anything
// else as compact JSON.
func ruleLine(v any, i int) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "rule " + strconv.Itoa(i+1) + ": " + valueText(v)
	}
	label := firstString(m, "id", "ruleId")
	if label == "" {
		label = "rule " + strconv.Itoa(i+1)
	}
	text := firstString(m, "rule", "text", "statement")
	result := firstString(m, "result", "evaluation", "status")
	line := keyText(label) + ": "
	switch {
	case text != "" && result != "":
		line += inlineText(text) + " → " + inlineText(strings.ToUpper(result))
	case text != "":
		line += inlineText(text)
	default:
		return line + valueText(m)
	}
	rest := without(m, "id", "ruleId", "rule", "text", "statement", "result", "evaluation", "status")
	if len(rest) > 0 {
		line += " " + valueText(rest)
	}
	return line
}

// entityLine renders an entity: its name (or id), its id and type, and
// its other fields as compact JSON.
func entityLine(v any, i int) string {
	m, ok := v.(map[string]any)
	if !ok {
		return valueText(v)
	}
	name, id, typ := firstString(m, "name", "label"), firstString(m, "id"), firstString(m, "type")
	label := name
	if label == "" {
		label = id
	}
	if label == "" {
		return "entity " + strconv.Itoa(i+1) + ": " + valueText(m)
	}
	line := keyText(label)
	var about []string
	if id != "" && id != label {
		about = append(about, "id "+inlineText(id))
	}
	if typ != "" {
		about = append(about, "type "+inlineText(typ))
	}
	if len(about) > 0 {
		line += " (" + strings.Join(about, ", ") + ")"
	}
	if rest := without(m, "name", "label", "id", "type"); len(rest) > 0 {
		line += ": " + valueText(rest)
	}
	return line
}

// firstString returns the first of the keys whose value is a non-empty
// string.
func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// without returns m without the keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// valueText renders a JSON value on one line: a string as itself,
// anything else as compact JSON. The state's size limit bounds it; a line
// the budget cannot hold is left out whole.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return inlineText(s)
	}
	b, err := snapshot.Canonical(v)
	if err != nil {
		return inlineText(fmt.Sprint(v))
	}
	return inlineText(string(b))
}

// workflowHeader is the workflow section's heading.
func (r *run) workflowHeader() string {
	s := r.workflow
	state := "not converged"
	if s.Converged {
		state = "converged"
	}
	return fmt.Sprintf("## Workflow state (untrusted: contributed by agents)\nWorkflow %s, round %d (%s; %d of %d bytes)",
		inlineText(s.WorkflowID), s.Round, state, s.StateSize, s.MaxStateSize)
}

// traceWorkflow records which of the snapshot's lines the envelope holds.
func (r *run) traceWorkflow(pl *plan) {
	tr := r.trace.Workflow
	if tr == nil {
		return
	}
	packed := map[int]bool{}
	for _, i := range pl.packed {
		packed[i] = true
	}
	for i, p := range r.workflowPaths {
		if packed[i] {
			tr.Included = append(tr.Included, p)
		} else {
			tr.Omitted = append(tr.Omitted, p)
		}
	}
	tr.Tokens, tr.Truncated = pl.tokens, len(tr.Omitted) > 0
}
