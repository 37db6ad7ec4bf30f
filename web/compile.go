package web

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// compileForm is the playground's input.
type compileForm struct {
	Query, Task, Mode, Format, Thread string
	Budget                            int
	Tasks, Modes, Formats             []string
}

// compileView is the playground's result.
type compileView struct {
	Form     compileForm
	Rendered string
	Envelope *compile.Envelope
	Bar      *tokenBar
	Trace    *traceView
	Err      *tenure.Error
}

// tokenBar draws the sections' tokens against the budget.
type tokenBar struct {
	Width    float64
	Segments []barSegment
	Tokens   int
	Budget   int
}

type barSegment struct {
	X, W   float64
	Kind   compile.SectionKind
	Tokens int
	Color  string
}

func newTokenBar(env compile.Envelope) *tokenBar {
	b := &tokenBar{Width: 720, Tokens: env.Tokens, Budget: env.Budget}
	total := max(env.Budget, env.Tokens, 1)
	x := 0.0
	for i, s := range env.Sections {
		w := b.Width * float64(s.Tokens) / float64(total)
		b.Segments = append(b.Segments, barSegment{X: x, W: w, Kind: s.Kind, Tokens: s.Tokens, Color: palette[i%len(palette)]})
		x += w
	}
	return b
}

// traceView groups a trace for reading.
type traceView struct {
	Trace   compile.Trace
	Omitted []omitGroup
}

type omitGroup struct {
	Reason  compile.OmitReason
	Objects []compile.OmittedObject
}

func newTraceView(tr compile.Trace) *traceView {
	v := &traceView{Trace: tr}
	by := map[compile.OmitReason][]compile.OmittedObject{}
	for _, o := range tr.Omitted {
		by[o.Reason] = append(by[o.Reason], o)
	}
	for reason, objs := range by {
		v.Omitted = append(v.Omitted, omitGroup{Reason: reason, Objects: objs})
	}
	sort.Slice(v.Omitted, func(i, j int) bool { return v.Omitted[i].Reason < v.Omitted[j].Reason })
	return v
}

func defaultCompileForm() compileForm {
	return compileForm{Budget: 2000, Mode: string(compile.ModeFull), Format: compile.FormatText,
		Tasks: vocab(tenure.TaskTypes), Modes: []string{string(compile.ModeFull), string(compile.ModeMinimal)}, Formats: compile.Formats}
}

func (h *Handler) compilePage(w http.ResponseWriter, r *http.Request, c *call) error {
	return h.render(w, r, c, http.StatusOK, "compile.html", "Compile", "compile", compileView{Form: defaultCompileForm()})
}

// compile runs one compilation as the principal, through the same
// compiler and trace recording as POST /v1/compile.
func (h *Handler) compile(w http.ResponseWriter, r *http.Request, c *call) error {
	f := defaultCompileForm()
	f.Query, f.Task, f.Mode, f.Format, f.Thread = r.PostFormValue("query"), r.PostFormValue("task"), r.PostFormValue("mode"),
		r.PostFormValue("format"), strings.TrimSpace(r.PostFormValue("thread"))
	v := compileView{Form: f}
	fail := func(err error) error {
		if te := tenure.AsError(err); te.Code == tenure.CodeInvalid || te.Code == tenure.CodeTooLarge || te.Code == tenure.CodeNotFound {
			v.Err = te
			return h.render(w, r, c, tenure.HTTPStatus(te.Code), "compile.html", "Compile", "compile", v)
		}
		return err
	}
	budget, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("budget")))
	if err != nil {
		return fail(tenure.Errorf(tenure.CodeInvalid, "budget", "not a number"))
	}
	v.Form.Budget = budget
	format, err := compile.ParseFormat(f.Format)
	if err != nil {
		return fail(err)
	}
	if h.opt.Compiler == nil {
		return tenure.Errorf(tenure.CodeUnavailable, "", "this server has no compiler")
	}
	req := compile.Request{Principal: c.p, Query: f.Query, Budget: budget, ThreadID: f.Thread}
	if f.Task != "" {
		if req.TaskType, err = tenure.ParseVocab("task", f.Task, tenure.TaskTypes); err != nil {
			return fail(err)
		}
	}
	if f.Mode != "" {
		m, err := tenure.ParseVocab("mode", f.Mode, []compile.Mode{compile.ModeFull, compile.ModeMinimal})
		if err != nil {
			return fail(err)
		}
		req.Mode = m
	}
	start := time.Now()
	env, tr, err := h.opt.Compiler.Compile(r.Context(), req)
	if h.opt.Traces != nil {
		h.opt.Traces.RecordCompile(c.p, env, tr, time.Since(start), err)
	}
	if err != nil {
		return fail(err)
	}
	v.Envelope = &env
	switch out := env.Render(format).(type) {
	case string:
		v.Rendered = out
	default:
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return tenure.Internal("render envelope", err)
		}
		v.Rendered = string(b)
	}
	v.Bar = newTokenBar(env)
	v.Trace = newTraceView(tr)
	return h.render(w, r, c, http.StatusOK, "compile.html", "Compile", "compile", v)
}

// traceLookup opens a trace by the id typed in.
func (h *Handler) traceLookup(w http.ResponseWriter, r *http.Request, c *call) error {
	if id := strings.TrimSpace(r.URL.Query().Get("id")); id != "" {
		http.Redirect(w, r, Prefix+"traces/"+urlPath(id), http.StatusSeeOther)
		return nil
	}
	return h.render(w, r, c, http.StatusOK, "trace.html", "Trace", "compile", (*traceView)(nil))
}

// trace shows a past trace under GET /v1/traces/{id}'s rules.
func (h *Handler) trace(w http.ResponseWriter, r *http.Request, c *call) error {
	if h.opt.Traces == nil {
		return tenure.Errorf(tenure.CodeUnavailable, "", "this server keeps no traces")
	}
	tr, err := h.opt.Traces.Trace(c.p, r.PathValue("id"))
	if err != nil {
		return err
	}
	return h.render(w, r, c, http.StatusOK, "trace.html", "Trace "+tr.TraceID, "compile", newTraceView(tr))
}
