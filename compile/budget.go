package compile

import (
	"math"

	"github.com/tenure-dev/tenure"
)

// Allocation splits the budget left after the mandatory sections (system
// instructions, late instructions, the current turn) between the other
// sections, as fractions. Unused budget flows to the next group in order
// (skills → context → state → tail); what is still unused at the end goes
// back to truncated dynamic sections. The static skills group never
// receives leftovers, so the cacheable prefix cannot change with the turn.
type Allocation struct {
	// Summary and State are the narrative summary and structured state,
	// both rendered in the state section.
	Summary float64 `json:"summary"`
	State   float64 `json:"state"`
	// Skills covers the static policy and tools sections.
	Skills float64 `json:"skills"`
	// Context covers selected memory, past conversation and retrieved
	// documents.
	Context float64 `json:"context"`
	// Tail covers the recent conversation.
	Tail float64 `json:"tail"`
	// Workflow covers a workflow's snapshot (Request.WorkflowID); a
	// compilation without one gives it to the tail.
	Workflow float64 `json:"workflow"`
}

// DefaultAllocations are the prompt budget allocations of the structured
// state design.
var DefaultAllocations = map[Mode]Allocation{
	ModeFull:    {Summary: 0.06, State: 0.14, Skills: 0.10, Context: 0.15, Tail: 0.45, Workflow: 0.10},
	ModeMinimal: {Summary: 0.06, State: 0.14, Skills: 0.08, Context: 0.12, Tail: 0.50, Workflow: 0.10},
}

// Validate checks that fractions are in [0, 1] and sum to at most 1.
func (a Allocation) Validate() error {
	sum := 0.0
	for _, f := range []float64{a.Summary, a.State, a.Skills, a.Context, a.Tail, a.Workflow} {
		if math.IsNaN(f) || f < 0 || f > 1 {
			return tenure.Errorf(tenure.CodeInvalid, "allocations", "fractions must be in [0, 1]")
		}
		sum += f
	}
	if sum > 1.0000001 {
		return tenure.Errorf(tenure.CodeInvalid, "allocations", "fractions sum to %.3f, more than 1", sum)
	}
	return nil
}

func (c *Compiler) allocation(m Mode) (Allocation, error) {
	a, ok := c.opt.Allocations[m]
	if !ok {
		a = DefaultAllocations[m]
	}
	return a, a.Validate()
}

// group is a budget group: sections packed one after another from a shared
// allocation.
type group struct {
	share    float64
	sections []SectionKind
}

// groups returns the budget groups; without a workflow, its share is the
// tail's.
func (a Allocation) groups(workflow bool) []group {
	gs := []group{
		{a.Skills, []SectionKind{SectionPolicy, SectionTools}},
		{a.Context, []SectionKind{SectionMemory, SectionHistory, SectionDocuments}},
		{a.Summary + a.State, []SectionKind{SectionState}},
	}
	if !workflow {
		return append(gs, group{a.Tail + a.Workflow, []SectionKind{SectionTail}})
	}
	return append(gs, group{a.Workflow, []SectionKind{SectionWorkflow}}, group{a.Tail, []SectionKind{SectionTail}})
}
