package compile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// Mode selects a budget allocation.
type Mode string

// Modes.
const (
	ModeFull    Mode = "full"
	ModeMinimal Mode = "minimal"
)

// Modes lists the allowed modes.
var Modes = []Mode{ModeFull, ModeMinimal}

// Request is everything one compilation reads besides the store.
type Request struct {
	Principal tenure.Principal `json:"principal"`
	// PersonaID is the persona the context is compiled for: its
	// persona-scoped memories, commitments and messages join the global
	// ones. A principal bound to a persona may name only its own
	// (CodeForbidden otherwise); empty keeps the principal's.
	PersonaID string          `json:"persona_id,omitempty"`
	Scope     tenure.Scope    `json:"scope"`
	TaskType  tenure.TaskType `json:"task_type,omitempty"`
	// Query is what the context is compiled for; it defaults to CurrentTurn.
	Query string `json:"query"`
	// CurrentTurn is the user's message being answered.
	CurrentTurn string `json:"current_turn,omitempty"`
	// Tail holds the most recent messages of the conversation, oldest first.
	Tail []Message `json:"tail,omitempty"`
	// Instructions are system and developer instructions (trusted).
	Instructions []Instruction `json:"instructions,omitempty"`
	// LateInstructions arrived mid-session; they are appended after the
	// conversation instead of editing the cached system prompt.
	LateInstructions []Instruction `json:"late_instructions,omitempty"`
	Tools            []Tool        `json:"tools,omitempty"`
	// Documents are retrieved payloads: untrusted data.
	Documents []Document `json:"documents,omitempty"`
	// Budget is the envelope's token budget.
	Budget int `json:"budget"`
	// Tokenizer names the encoding (cl100k_base, o200k_base) or a model.
	Tokenizer string `json:"tokenizer,omitempty"`
	Mode      Mode   `json:"mode,omitempty"`
	// AsOf compiles what the system believed at that transaction time.
	AsOf *time.Time `json:"as_of,omitempty"`
	// ThreadID is the conversation the context is compiled for: its past
	// turns are the history, and its structured state and summaries the
	// task state. Other threads contribute only what crosses threads (see
	// Threads). Empty: every thread (no conversation is singled out).
	ThreadID string `json:"thread_id,omitempty"`
	// Threads lists further threads whose history and state may be used,
	// or ["*"] for every thread.
	Threads []string `json:"threads,omitempty"`
	// WorkflowID names a workflow whose current snapshot (or, with AsOf,
	// the latest closed by then) is rendered as task state in the
	// workflow section, within its own allocation (docs/snapshots.md).
	WorkflowID string `json:"workflow_id,omitempty"`
	// RulesOverflow says what happens when the binding rules (authority 0
	// and 1) do not fit the budget: RulesFail (the default) fails the
	// compilation with CodeTooLarge; RulesDrop drops the lowest rules first
	// and says so in the trace's warnings.
	RulesOverflow string `json:"rules_overflow,omitempty"`
}

// What to do with binding rules that do not fit the budget.
const (
	RulesFail = "fail"
	RulesDrop = "drop"
)

// Message is a conversation turn.
type Message struct {
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Speaker   string    `json:"speaker,omitempty"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at,omitempty"`
}

// Instruction is a trusted system or developer instruction.
type Instruction struct {
	Role string `json:"role"` // system or developer
	Text string `json:"text"`
}

// Tool is a tool the model may call.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// Document is a retrieved payload: untrusted data with its provenance.
type Document struct {
	ID      string `json:"id"`
	Source  string `json:"source"`
	Title   string `json:"title,omitempty"`
	Content string `json:"content"`
}

// Limits on request inputs.
const (
	MaxBudget = 2_000_000
	MaxInputs = 10_000
)

// Default Limits.
const (
	DefaultQueryBytes    = 4 << 20
	DefaultDocumentBytes = 10 << 20
	DefaultMessageBytes  = 4 << 20
)

// Limits bounds the size of a request's inputs, in bytes each. A request
// over one fails with CodeTooLarge naming the field (documents[3].content)
// before any work: a compilation's memory grows with its input. Zero
// fields take the defaults.
type Limits struct {
	// QueryBytes bounds the query and the current turn (default
	// DefaultQueryBytes, 4 MiB).
	QueryBytes int
	// DocumentBytes bounds each document's content (default
	// DefaultDocumentBytes, 10 MiB).
	DocumentBytes int
	// MessageBytes bounds each tail message's content, tool output
	// included, each instruction's text and each tool's description and
	// schema (default DefaultMessageBytes, 4 MiB).
	MessageBytes int
}

// WithDefaults returns l with its zero fields set to the defaults.
func (l Limits) WithDefaults() Limits {
	for _, f := range []struct {
		v *int
		d int
	}{{&l.QueryBytes, DefaultQueryBytes}, {&l.DocumentBytes, DefaultDocumentBytes}, {&l.MessageBytes, DefaultMessageBytes}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
	return l
}

// check returns CodeTooLarge naming the first input over its limit.
func (l Limits) check(r *Request) error {
	over := func(field string, n, max int) error {
		return tenure.Errorf(tenure.CodeTooLarge, field, "%d bytes, more than the limit of %d", n, max)
	}
	if n := len(r.Query); n > l.QueryBytes {
		return over("query", n, l.QueryBytes)
	}
	if n := len(r.CurrentTurn); n > l.QueryBytes {
		return over("current_turn", n, l.QueryBytes)
	}
	for i, d := range r.Documents {
		if n := len(d.Content); n > l.DocumentBytes {
			return over(fmt.Sprintf("documents[%d].content", i), n, l.DocumentBytes)
		}
	}
	for i, m := range r.Tail {
		if n := len(m.Content); n > l.MessageBytes {
			return over(fmt.Sprintf("tail[%d].content", i), n, l.MessageBytes)
		}
	}
	for _, ins := range []struct {
		name string
		list []Instruction
	}{{"instructions", r.Instructions}, {"late_instructions", r.LateInstructions}} {
		for i, in := range ins.list {
			if n := len(in.Text); n > l.MessageBytes {
				return over(fmt.Sprintf("%s[%d].text", ins.name, i), n, l.MessageBytes)
			}
		}
	}
	for i, t := range r.Tools {
		if n := len(t.Description); n > l.MessageBytes {
			return over(fmt.Sprintf("tools[%d].description", i), n, l.MessageBytes)
		}
		if n := len(t.Schema); n > l.MessageBytes {
			return over(fmt.Sprintf("tools[%d].schema", i), n, l.MessageBytes)
		}
	}
	return nil
}

// normalize validates the request against lim and fills its defaults.
func (r *Request) normalize(lim Limits) error {
	if r.Budget <= 0 || r.Budget > MaxBudget {
		return tenure.Errorf(tenure.CodeInvalid, "budget", "must be between 1 and %d tokens, got %d", MaxBudget, r.Budget)
	}
	if r.Mode == "" {
		r.Mode = ModeFull
	}
	if _, err := tenure.ParseVocab("mode", string(r.Mode), Modes); err != nil {
		return err
	}
	if err := r.checkThreads(); err != nil {
		return err
	}
	if err := tenure.CheckID("workflow_id", r.WorkflowID, false); err != nil {
		return err
	}
	if r.RulesOverflow == "" {
		r.RulesOverflow = RulesFail
	}
	if _, err := tenure.ParseVocab("rules_overflow", r.RulesOverflow, []string{RulesFail, RulesDrop}); err != nil {
		return err
	}
	if r.TaskType != "" {
		if _, err := tenure.ParseVocab("task_type", string(r.TaskType), tenure.TaskTypes); err != nil {
			return err
		}
	}
	if n := len(r.Tail) + len(r.Tools) + len(r.Documents) + len(r.Instructions) + len(r.LateInstructions); n > MaxInputs {
		return tenure.Errorf(tenure.CodeTooLarge, "documents", "more than %d inputs", MaxInputs)
	}
	if err := lim.check(r); err != nil {
		return err
	}
	if r.Query == "" {
		r.Query = r.CurrentTurn
	}
	for i, in := range append(append([]Instruction(nil), r.Instructions...), r.LateInstructions...) {
		if in.Role != "system" && in.Role != "developer" {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("instructions[%d].role", i), "must be system or developer, got %q", in.Role)
		}
	}
	for i, m := range r.Tail {
		if m.Role != "user" && m.Role != "assistant" && m.Role != "tool" {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("tail[%d].role", i), "must be user, assistant or tool, got %q", m.Role)
		}
	}
	for i, t := range r.Tools {
		if t.Name == "" {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("tools[%d].name", i), "required")
		}
		if len(t.Schema) > 0 && !json.Valid(t.Schema) {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("tools[%d].schema", i), "not valid JSON")
		}
	}
	for i, d := range r.Documents {
		if d.Source == "" {
			return tenure.Errorf(tenure.CodeInvalid, fmt.Sprintf("documents[%d].source", i), "required: retrieved data must carry its provenance")
		}
		if d.ID == "" {
			r.Documents[i].ID = fmt.Sprintf("doc-%d", i+1)
		}
	}
	return nil
}

// AllThreads in Request.Threads opens every thread.
const AllThreads = "*"

func (r *Request) checkThreads() error {
	if len(r.Threads) > tenure.MaxListLen {
		return tenure.Errorf(tenure.CodeTooLarge, "threads", "more than %d threads", tenure.MaxListLen)
	}
	for i, t := range append([]string{r.ThreadID}, r.Threads...) {
		field := "thread_id"
		if i > 0 {
			field = fmt.Sprintf("threads[%d]", i-1)
		}
		if len(t) > tenure.MaxIDLen || strings.TrimSpace(t) != t || (i > 0 && t == "") {
			return tenure.Errorf(tenure.CodeInvalid, field, "not a thread id: %q", t)
		}
	}
	return nil
}

// threadSet returns the threads the request may use, or nil for every
// thread.
func (r *Request) threadSet() []string {
	if (r.ThreadID == "" && len(r.Threads) == 0) || slices.Contains(r.Threads, AllThreads) {
		return nil
	}
	set := []string{}
	if r.ThreadID != "" {
		set = append(set, r.ThreadID)
	}
	for _, t := range r.Threads {
		if !slices.Contains(set, t) {
			set = append(set, t)
		}
	}
	return set
}
