package compile_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/summarize"
	"github.com/theory/jsonpath/spec"
)

// The adversarial test sends every payload of testdata/adversarial through
// every route by which text reaches an envelope, renders every format, and
// asserts for each (route, format, payload): the payload arrived (its
// canary is in the envelope, unless the route refused it at input), none
// of it is in a system role, it forged no heading, rule, role marker or
// fence outside a data block (the structural lines of the envelope are
// exactly those of the same compilation with a benign text in its place),
// and it was not promoted to a rule. The victim compiling is the tenant's
// administrator; the payloads are written by a guest, an intern, an
// employee and a manager without the rules permission.

type advPayload struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Text     string `json:"text"`
	Note     string `json:"note"`
}

// Routes, in the order of the report.
var advRoutes = []string{
	"document", "document_attrs", "tail_user", "tail_assistant", "tail_tool", "tail_speaker", "current_turn",
	"memory_guest", "memory_intern", "memory_employee", "memory_key", "implication_intern",
	"constraint_guest", "constraint_intern", "constraint_employee", "constraint_manager",
	"history_user", "history_assistant", "history_tool", "history_speaker", "history_caption",
	"state_items", "summaries",
	"workflow_concept", "workflow_term", "workflow_entity", "workflow_rule", "workflow_other",
}

var advFormats = []string{compile.FormatText, compile.FormatJSON, compile.FormatOpenAI, compile.FormatAnthropic}

// advCase is one payload (or the benign baseline) set up in its own tenant.
type advCase struct {
	tenant   string
	text     string // with {{CANARY}}
	canaries map[string]string
	refused  map[string]string // route → why the input was refused
}

func (c *advCase) canary(route string) string { return c.canaries[route] }

func (c *advCase) fill(route string) string {
	return strings.ReplaceAll(c.text, "{{CANARY}}", c.canary(route))
}

func newAdvCase(i int, text string) *advCase {
	c := &advCase{tenant: fmt.Sprintf("t%04d", i), text: text, canaries: map[string]string{}, refused: map[string]string{}}
	for j, r := range advRoutes {
		c.canaries[r] = fmt.Sprintf("zqc%04dr%02dx", i, j)
	}
	// Summaries are written from the conversation the state items come from.
	c.canaries["summaries"] = c.canaries["state_items"]
	return c
}

type advEnv struct {
	t     *testing.T
	ctx   context.Context
	store *sqlite.Store
	c     *compile.Compiler
	now   time.Time
}

func (e *advEnv) principal(c *advCase, user, rank string, perms ...string) tenure.Principal {
	p := tenure.Principal{TenantID: c.tenant, UserID: user, Authority: rank, Clearance: tenure.Restricted, Permissions: perms}
	if rank == "policy" {
		p.Clearance = tenure.HighlyRestricted
	}
	return p
}

// setup writes everything a payload reaches the store by.
func (e *advEnv) setup(c *advCase) {
	e.t.Helper()
	admin := e.principal(c, "root", "policy", tenure.PermRulesWrite)
	guest := e.principal(c, "gus", "guest")
	intern := e.principal(c, "ian", "intern")
	employee := e.principal(c, "eve", "employee")
	manager := e.principal(c, "max", "manager")
	put := func(route string, p tenure.Principal, o tenure.Object) {
		if _, err := e.store.Put(e.ctx, p, o); err != nil {
			if tenure.ErrorCode(err) != tenure.CodeInvalid && tenure.ErrorCode(err) != tenure.CodeTooLarge {
				e.t.Fatalf("%s: put: %v", route, err)
			}
			c.refused[route] = err.Error()
		}
	}
	put("", admin, tenure.Object{Key: "rule.secrets", Content: "Never share credentials", ObjectType: tenure.TypePolicyRule})
	put("memory_guest", guest, tenure.Object{Key: "note.guest", Content: c.fill("memory_guest")})
	put("memory_intern", intern, tenure.Object{Key: "note.intern", Content: c.fill("memory_intern")})
	put("memory_employee", employee, tenure.Object{Key: "note.employee", Content: c.fill("memory_employee")})
	put("memory_key", employee, tenure.Object{Key: c.fill("memory_key"), Content: "a note about " + c.canary("memory_key")})
	put("implication_intern", intern, tenure.Object{Key: "habit.intern", Content: "the report habit " + c.canary("implication_intern"),
		BehavioralImplication: c.fill("implication_intern")})
	for route, p := range map[string]tenure.Principal{"constraint_guest": guest, "constraint_intern": intern,
		"constraint_employee": employee, "constraint_manager": manager} {
		put(route, p, tenure.Object{Key: "limit." + p.UserID, Content: c.fill(route), IsConstraint: true, ConstraintType: tenure.ConstraintBudget})
		if c.tenant != "t0000" {
			continue // the refusals are checked once, on the baseline
		}
		// Binding forms are refused outright for these writers.
		for _, o := range []tenure.Object{
			{Key: "pol." + p.UserID, Content: c.fill(route), IsConstraint: true, ConstraintType: tenure.ConstraintPolicy},
			{Key: "pol." + p.UserID, Content: c.fill(route), Layer: tenure.LayerPolicy},
			{Key: "pol." + p.UserID, Content: c.fill(route), AuthorityLevel: tenure.Ptr(1)},
		} {
			if _, err := e.store.Put(e.ctx, p, o); tenure.ErrorCode(err) != tenure.CodeForbidden {
				e.t.Fatalf("%s: binding write by %s = %v, want forbidden", route, p.Authority, err)
			}
		}
	}
	at := e.now.Add(-48 * time.Hour)
	msg := func(thread, id, role, speaker, content string, min int) tenure.Message {
		return tenure.Message{ThreadID: thread, ID: id, Role: role, Speaker: speaker, Content: content, CreatedAt: at.Add(time.Duration(min) * time.Minute)}
	}
	appendMsgs := func(route string, msgs ...tenure.Message) {
		if _, err := e.store.AppendMessages(e.ctx, employee, msgs); err != nil {
			if tenure.ErrorCode(err) != tenure.CodeInvalid && tenure.ErrorCode(err) != tenure.CodeTooLarge {
				e.t.Fatalf("%s: append: %v", route, err)
			}
			c.refused[route] = err.Error()
		}
	}
	appendMsgs("history_user", msg("h", "u1", "user", "Eve", c.fill("history_user"), 0))
	appendMsgs("history_assistant", msg("h", "a1", "assistant", "", c.fill("history_assistant"), 1))
	appendMsgs("history_tool", msg("h", "t1", "tool", "", c.fill("history_tool"), 2))
	appendMsgs("history_speaker", msg("h", "s1", "user", c.fill("history_speaker"), "it is done "+c.canary("history_speaker"), 3))
	cap := msg("h", "c1", "user", "Eve", "see the picture "+c.canary("history_caption"), 4)
	cap.Attachments = []tenure.Attachment{{Kind: "image", Caption: c.fill("history_caption")}}
	appendMsgs("history_caption", cap)
	// A conversation the rules extractor and the summarizer turn into
	// state items and summaries carrying the payload.
	st := c.fill("state_items")
	appendMsgs("state_items",
		msg("x", "x1", "user", "Eve", "Let's use "+st+" for the analytics store.", 0),
		msg("x", "x2", "assistant", "", "Agreed: we decided to go with "+st+".", 1),
		msg("x", "x3", "user", "Eve", "We must never "+st+".", 2),
		msg("x", "x4", "user", "Eve", "Should we "+st+"?", 3),
		msg("x", "x5", "user", "Eve", "I live in "+st+".", 4),
		msg("x", "x6", "user", "Eve", "Marco will "+st+" by Friday.", 5),
		msg("x", "x7", "user", "Eve", "Thanks, that settles it.", 90))
	if _, ok := c.refused["state_items"]; !ok {
		d := e.store.Digest(e.ctx, employee, "x", extract.NewRules(extract.RulesOptions{}), summarize.NewExtractive(summarize.Options{}),
			engine.SummaryOptions{RollingEvery: 1})
		if err := d.Err(); err != nil {
			e.t.Fatalf("digest: %v", err)
		}
	}
	e.setupWorkflow(c, admin)
}

// setupWorkflow starts a workflow whose agents contributed the payload as
// a binding's concept id and term, an entity's name, a rule's text and a
// member of the state of their own, and closes its round.
func (e *advEnv) setupWorkflow(c *advCase, agent tenure.Principal) {
	e.t.Helper()
	if _, err := e.store.StartWorkflow(e.ctx, agent, snapshot.Workflow{WorkflowID: "wf", Query: "Which reports are due?", MaxStateSize: 4 << 20}); err != nil {
		e.t.Fatalf("start workflow: %v", err)
	}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	obj := func(m map[string]string) json.RawMessage { b, _ := json.Marshal(m); return b }
	for _, d := range []struct {
		route, path string
		value       json.RawMessage
	}{
		{"workflow_concept", "$.bindings.report", str(c.fill("workflow_concept"))},
		{"workflow_term", spec.Normalized(spec.Name("bindings"), spec.Name(c.fill("workflow_term"))).String(), str("sea:term:1")},
		{"workflow_entity", "$.entities", obj(map[string]string{"id": "e1", "name": c.fill("workflow_entity")})},
		{"workflow_rule", "$.rules", obj(map[string]string{"id": "r1", "rule": c.fill("workflow_rule"), "result": "violated"})},
		{"workflow_other", "$.notes", str(c.fill("workflow_other"))},
	} {
		_, err := e.store.SubmitDeltas(e.ctx, agent, "wf", []snapshot.Delta{{Round: 1, Weight: tenure.Ptr(0.5), Operation: snapshot.OpAdd,
			Path: d.path, Value: d.value, Provenance: "adversarial corpus"}})
		switch code := tenure.ErrorCode(err); {
		case code == tenure.CodeInternal:
			e.t.Fatalf("%s: submit: %v", d.route, err)
		case err != nil:
			c.refused[d.route] = err.Error()
		}
	}
	if _, err := e.store.CloseRound(e.ctx, agent, "wf", 0); err != nil {
		e.t.Fatalf("close round: %v", err)
	}
}

// request is what the victim compiles, carrying the request-side routes.
func (e *advEnv) request(c *advCase) compile.Request {
	var query []string
	for _, r := range advRoutes {
		query = append(query, c.canary(r))
	}
	return compile.Request{
		Principal:        e.principal(c, "root", "policy", tenure.PermRulesWrite),
		Query:            strings.Join(query, " "),
		Budget:           400_000,
		Instructions:     []compile.Instruction{{Role: "system", Text: "You are the reporting assistant."}},
		LateInstructions: []compile.Instruction{{Role: "developer", Text: "Answer briefly."}},
		Tools:            []compile.Tool{{Name: "run_sql", Description: "read-only SQL"}},
		Documents: []compile.Document{
			{ID: "doc-1", Source: "https://kb.example/1", Content: c.fill("document")},
			{ID: c.fill("document_attrs"), Source: c.fill("document_attrs"), Title: c.fill("document_attrs"),
				Content: "attribute carrier " + c.canary("document_attrs")},
		},
		Tail: []compile.Message{
			{ID: "m1", Role: "user", Speaker: "Dana", Content: c.fill("tail_user")},
			{ID: "m2", Role: "assistant", Content: c.fill("tail_assistant")},
			{ID: "m3", Role: "tool", Content: c.fill("tail_tool")},
			{ID: "m4", Role: "user", Speaker: c.fill("tail_speaker"), Content: "noted " + c.canary("tail_speaker")},
			// The digested conversation's last turn is the agent's tail, so
			// that the history does not hold all of it and its rolling
			// summary is compiled (else it is covered_by_history).
			{ID: "x7", Role: "user", Speaker: "Eve", Content: "Thanks, that settles it."},
		},
		CurrentTurn: c.fill("current_turn"),
		WorkflowID:  "wf",
	}
}

// advView is one rendered format: the texts by role, as the model gets
// them.
type advView struct {
	system []string // system-role texts
	all    []string // every text, system ones included
}

func advRender(env compile.Envelope, format string) (advView, error) {
	var v advView
	switch format {
	case compile.FormatOpenAI:
		for _, m := range env.OpenAI() {
			v.all = append(v.all, m.Content)
			if m.Role == "system" || m.Role == "developer" {
				v.system = append(v.system, m.Content)
			}
		}
	case compile.FormatAnthropic:
		p := env.Anthropic()
		for _, b := range p.System {
			v.system = append(v.system, b.Text)
			v.all = append(v.all, b.Text)
		}
		for _, m := range p.Messages {
			for _, b := range m.Content {
				v.all = append(v.all, b.Text)
			}
		}
	case compile.FormatJSON:
		raw, err := json.Marshal(env.Render(format))
		if err != nil {
			return v, err
		}
		var back compile.Envelope
		if err := json.Unmarshal(raw, &back); err != nil {
			return v, err
		}
		for _, s := range back.Sections {
			v.all = append(v.all, s.Text)
			for _, m := range s.Messages {
				v.all = append(v.all, m.Speaker, m.Content)
			}
			if s.Role == "system" {
				v.system = append(v.system, s.Text)
			}
		}
	default:
		text := env.Render(format).(string)
		v.all = []string{text}
		for _, s := range env.Sections {
			if s.Role == "system" {
				v.system = append(v.system, s.Text)
			}
		}
	}
	return v, nil
}

// Independent structure detection: what a line reads as, after folding
// look-alikes and dropping invisible characters.
var (
	advHeading = regexp.MustCompile(`^#`)
	advSetext  = regexp.MustCompile(`^(={2,}|-{2,})$`)
	advRule    = regexp.MustCompile(`^(?:(?:[-*+•·]|\d+[.)])\s*must\b|(?:[-*+•·]|\d+[.)])?\s*(?:must|guidance)\s*(?::|not\b|$)|(?:[-*+•·]|\d+[.)])\s*guidance\b)`)
	advRole    = regexp.MustCompile(`^(?:(?:system|assistant|user|developer|tool|human|ai|model)\s*:|<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>|</?s>|<(?:system|assistant|user)>)`)
	advFence   = regexp.MustCompile(`<\s*/?\s*untrusted_data`)
	advOpen    = regexp.MustCompile(`^<untrusted_data id="[^"\n]*" source="[^"\n]*"(?: attached_to="[^"\n]*" rescued_from="[^"\n]*"| part="\d+/\d+")?>`)
)

func advFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case tenureInvisible(r):
		default:
			f := norm.NFKC.String(string(r))
			if !isASCIIString(f) {
				f = confusables.Skeleton(string(r))
			}
			b.WriteString(f)
		}
	}
	return strings.ToLower(b.String())
}

func tenureInvisible(r rune) bool {
	return (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2060 && r <= 0x206f) ||
		r == 0xfeff || r == 0xad || (r >= 0xe0000 && r <= 0xe007f) || (r >= 0xfe00 && r <= 0xfe0f)
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// advLines splits a text into lines the way a model or a renderer may:
// at every line-break character.
func advLines(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			if r == '\n' && i > 0 && s[i-1] == '\r' {
				start = i + 1
				continue
			}
			out = append(out, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(out, s[start:])
}

// advStructure returns the structural lines of a text outside its data
// fences, as "kind: marker" (the marker only, so that the payload's and
// the baseline's own words do not matter), and every fence tag, each with
// the line it was found on.
func advStructure(text string) []advMark {
	var out []advMark
	inFence := false
	for _, l := range advLines(text) {
		f := strings.TrimSpace(advFold(l))
		if strings.Contains(f, "untrusted_data") {
			for range advFence.FindAllString(f, -1) {
				out = append(out, advMark{"fence tag", l})
			}
		}
		switch {
		case inFence:
			if f == "</untrusted_data>" {
				inFence = false
			}
			continue
		case advOpen.MatchString(l) && !strings.Contains(l, "</untrusted_data>"):
			inFence = true
			continue
		}
		switch {
		case advHeading.MatchString(f):
			out = append(out, advMark{"heading: " + f, l})
		case advSetext.MatchString(f):
			out = append(out, advMark{"setext", l})
		case advRule.MatchString(f):
			out = append(out, advMark{"rule", l})
		case advRole.MatchString(f):
			out = append(out, advMark{"role: " + advRole.FindString(f), l})
		}
	}
	return out
}

// advMark is a structural element and the line it is on.
type advMark struct{ kind, line string }

// advExtra returns the marks of got beyond those of want (as multisets of
// kinds).
func advExtra(got, want []advMark) []advMark {
	left := map[string]int{}
	for _, m := range want {
		left[m.kind]++
	}
	var extra []advMark
	for _, m := range got {
		if left[m.kind] > 0 {
			left[m.kind]--
			continue
		}
		extra = append(extra, m)
	}
	return extra
}

// advPromoted reports rule lines outside data fences that carry a canary.
func advPromoted(marks []advMark, canary string) bool {
	return slices.ContainsFunc(marks, func(m advMark) bool { return m.kind == "rule" && strings.Contains(m.line, canary) })
}

// adversarialFull runs every payload of the corpus (.ci/run sets it).
var adversarialFull = flag.Bool("adversarial.full", false, "run every payload of the adversarial corpus")

// advSample returns the payloads a run sends: all of them with
// -adversarial.full, else every eighth (every sixteenth with -short).
// The corpus is ordered by category, so a stride keeps every category
// (two payloads or more of each at every eighth); the whole corpus costs
// ~25 s, and .ci/run sends all of it.
func advSample(payloads []advPayload) []advPayload {
	if *adversarialFull {
		return payloads
	}
	stride := 8
	if testing.Short() {
		stride = 16
	}
	var out []advPayload
	for i := 0; i < len(payloads); i += stride {
		out = append(out, payloads[i])
	}
	return out
}

func TestAdversarialCorpus(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "adversarial", "payloads.json"))
	if err != nil {
		t.Fatal(err)
	}
	var payloads []advPayload
	if err := json.Unmarshal(raw, &payloads); err != nil {
		t.Fatal(err)
	}
	payloads = advSample(payloads)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	// Writes happen an hour before the compilations.
	s := sqlite.New(filepath.Join(t.TempDir(), "adv.db"), sqlite.Options{Now: func() time.Time { return now.Add(-time.Hour) }})
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := &advEnv{t: t, ctx: context.Background(), store: s, now: now,
		c: compile.New(s, compile.Options{Now: func() time.Time { return now }})}

	// Each payload is compiled for two readers: the tenant's administrator
	// (everything is someone else's text to it) and the employee whose
	// conversation was digested (state items and summaries are hers; her
	// own constraint binds her, in a user role).
	viewers := []struct{ user, rank string }{{"root", "policy"}, {"eve", "employee"}}
	compileCase := func(c *advCase, viewer int) compile.Envelope {
		req := e.request(c)
		if viewer > 0 {
			req.Principal = e.principal(c, viewers[viewer].user, viewers[viewer].rank)
		}
		env, _, err := e.c.Compile(e.ctx, req)
		if err != nil {
			t.Fatalf("compile %s: %v", c.tenant, err)
		}
		return env
	}
	base := newAdvCase(0, "benign note {{CANARY}} about the weekly report")
	e.setup(base)
	baseStructure := map[string][]advMark{}
	for vi := range viewers {
		env := compileCase(base, vi)
		for _, f := range advFormats {
			v, err := advRender(env, f)
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprint(vi, f)
			for _, txt := range v.all {
				baseStructure[key] = append(baseStructure[key], advStructure(txt)...)
			}
		}
	}
	for _, f := range advFormats {
		for _, r := range advRoutes {
			reached := false
			for vi := range viewers {
				v, _ := advRender(compileCase(base, vi), f)
				reached = reached || advReached(r, advLines(strings.Join(v.all, "\n")), base.canary(r))
			}
			if !reached {
				t.Errorf("baseline: route %s never reaches the %s envelope: the test would not exercise it", r, f)
			}
		}
	}

	type cell struct{ runs, reached, refused, escapes int }
	matrix := map[string]map[string]*cell{}
	for _, r := range advRoutes {
		matrix[r] = map[string]*cell{}
		for _, f := range advFormats {
			matrix[r][f] = &cell{}
		}
	}
	escapes := 0
	for i, p := range payloads {
		c := newAdvCase(i+1, p.Text)
		e.setup(c)
		reached := map[string]bool{}
		for vi, viewer := range viewers {
			env := compileCase(c, vi)
			for _, f := range advFormats {
				v, err := advRender(env, f)
				if err != nil {
					t.Fatal(err)
				}
				all := strings.Join(v.all, "\n")
				lines := advLines(all)
				system := strings.Join(v.system, "\n")
				var structure []advMark
				for _, txt := range v.all {
					structure = append(structure, advStructure(txt)...)
				}
				want := baseStructure[fmt.Sprint(vi, f)]
				extra, missing := advExtra(structure, want), advExtra(want, structure)
				attributed := false
				for _, r := range advRoutes {
					if _, ok := c.refused[r]; ok {
						continue
					}
					k := c.canary(r)
					reached[r+f] = reached[r+f] || (strings.Contains(all, k) && advReached(r, lines, k))
					bad := ""
					switch {
					case strings.Contains(system, k):
						bad = "payload text in a system role"
					case advPromoted(structure, k) && !(viewer.user == "eve" && r == "constraint_employee"):
						bad = "promoted to a rule"
					case slices.ContainsFunc(extra, func(m advMark) bool { return strings.Contains(m.line, k) }):
						bad = "forged structure"
					}
					if bad != "" {
						attributed = attributed || bad == "forged structure"
						matrix[r][f].escapes++
						escapes++
						t.Errorf("%s via %s in %s, read by %s: %s (%s)", p.ID, r, f, viewer.user, bad, p.Note)
					}
				}
				if (len(extra) > 0 && !attributed) || len(missing) > 0 {
					escapes++
					t.Errorf("%s in %s, read by %s: the structure differs from the baseline's:\nextra %q\nmissing %q",
						p.ID, f, viewer.user, extra, missing)
				}
				for _, m := range extra {
					if attributed {
						t.Logf("%s in %s, read by %s: forged %s on %q", p.ID, f, viewer.user, m.kind, m.line)
					}
				}
			}
		}
		for _, r := range advRoutes {
			for _, f := range advFormats {
				m := matrix[r][f]
				m.runs++
				switch _, refused := c.refused[r]; {
				case refused:
					m.refused++
				case reached[r+f]:
					m.reached++
				}
			}
		}
	}
	for _, r := range advRoutes {
		for _, f := range advFormats {
			m := matrix[r][f]
			direct := r != "state_items" && r != "summaries"
			if direct && m.reached+m.refused != m.runs {
				t.Errorf("route %s in %s: %d of %d payloads reached the envelope (%d refused at input)", r, f, m.reached, m.runs, m.refused)
			}
		}
	}
	if testing.Verbose() {
		var b strings.Builder
		fmt.Fprintf(&b, "| route | %s |\n|---|%s\n", strings.Join(advFormats, " | "), strings.Repeat("---|", len(advFormats)))
		for _, r := range advRoutes {
			fmt.Fprintf(&b, "| %s |", r)
			for _, f := range advFormats {
				m := matrix[r][f]
				fmt.Fprintf(&b, " %d reached, %d refused, %d escapes |", m.reached, m.refused, m.escapes)
			}
			b.WriteString("\n")
		}
		t.Logf("%d payloads × %d routes × %d formats, %d escapes\n%s", len(payloads), len(advRoutes), len(advFormats), escapes, b.String())
	}
}

// advReached reports whether a route's payload is in the envelope: state
// items and summaries are recognised by their lines, since both come from
// the same conversation.
func advReached(route string, lines []string, canary string) bool {
	for _, l := range lines {
		if !strings.Contains(l, canary) {
			continue
		}
		l = strings.TrimSpace(l)
		switch route {
		case "state_items":
			if strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[… ") {
				return true
			}
		case "summaries":
			if strings.Contains(l, "summary/") {
				return true
			}
		default:
			return true
		}
	}
	return false
}
