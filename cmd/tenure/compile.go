package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/jsonx"
	"github.com/tenure-dev/tenure/sqlite"
)

var compileSpec = commandSpec{
	name:    "compile",
	summary: "compile the context envelope for a query within a token budget",
	detail: `compile reads the store as the principal, in the scope, and prints the
envelope: system rules, policy and tools first (the cacheable static prefix),
then selected memory, retrieved data (wrapped as untrusted), task state (and a
workflow's snapshot with --workflow), the recent conversation and the current
turn. --trace adds the trace: what was
compiled, omitted and why, and quarantined.

Input files are JSON arrays: --tail of messages {id, role, speaker, content,
created_at}; --tools of {name, description, schema}; --documents of {id,
source, title, content}; --instructions of {role: system|developer, text}.`,
	new: func() subcommand { return new(compileCmd) },
}

type compileCmd struct {
	common
	query, turn, taskType, mode, format, tokenizer, asOf string
	rulesOverflow, thread, threads, workflow             string
	extract                                              bool
	embed                                                embedFlags
	budget                                               int
	trace                                                bool
	tail, tools, documents, instructions, late           string
}

func (c *compileCmd) define(fs *flag.FlagSet) {
	c.common.define(fs)
	fs.StringVar(&c.query, "query", "", "what the context is for (default: --turn)")
	fs.StringVar(&c.turn, "turn", "", "the current user turn")
	fs.IntVar(&c.budget, "budget", 2000, "token `budget` of the envelope")
	fs.StringVar(&c.taskType, "task", "", "task `type`: "+joinVocab(tenure.TaskTypes))
	fs.StringVar(&c.mode, "mode", string(compile.ModeFull), "budget allocation `mode`: full or minimal")
	fs.StringVar(&c.format, "format", compile.FormatText, "output `format`: text, json, openai or anthropic")
	fs.StringVar(&c.tokenizer, "tokenizer", "cl100k_base", "tokenizer `encoding` (cl100k_base, o200k_base) or model name")
	fs.StringVar(&c.asOf, "as-of", "", "compile what the store believed at transaction `time`")
	c.embed.define(fs, true)
	fs.StringVar(&c.rulesOverflow, "rules-overflow", compile.RulesFail, "`mode` when the binding rules do not fit the budget: fail, or drop (the lowest ones, with a warning in the trace)")
	fs.StringVar(&c.thread, "thread", "", "the conversation `thread` the context is for (history and state come from it; default: every thread)")
	fs.StringVar(&c.threads, "threads", "", "further `threads` whose history and state may be used, comma-separated, or * for every thread")
	fs.StringVar(&c.workflow, "workflow", "", "a `workflow` whose snapshot is task state for this context (tenure help snapshot)")
	fs.BoolVar(&c.extract, "extract", true, "with --thread on a local database, digest the thread's pending messages first (bounded to 30 s; the trace's notes say what it did)")
	fs.BoolVar(&c.trace, "trace", false, "also print the trace")
	fs.StringVar(&c.tail, "tail", "", "JSON `file` of recent messages")
	fs.StringVar(&c.tools, "tools", "", "JSON `file` of tool schemas")
	fs.StringVar(&c.documents, "documents", "", "JSON `file` of retrieved documents")
	fs.StringVar(&c.instructions, "instructions", "", "JSON `file` of system/developer instructions")
	fs.StringVar(&c.late, "late-instructions", "", "JSON `file` of instructions added mid-session")
}

func joinVocab[T ~string](vs []T) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += string(v)
	}
	return s
}

// request builds and checks the compile request before the store opens.
func (c *compileCmd) request() (compile.Request, compile.Options, error) {
	var opt compile.Options
	if strings.TrimSpace(c.query) == "" && strings.TrimSpace(c.turn) == "" {
		return compile.Request{}, opt, tenure.Errorf(tenure.CodeInvalid, "--query", "required (or --turn): the context is compiled for a question or a task")
	}
	p, s, err := c.identity()
	if err != nil {
		return compile.Request{}, opt, err
	}
	req := compile.Request{Principal: p, Scope: s, TaskType: tenure.TaskType(c.taskType), Query: c.query, CurrentTurn: c.turn,
		Budget: c.budget, Tokenizer: c.tokenizer, Mode: compile.Mode(c.mode), RulesOverflow: c.rulesOverflow,
		ThreadID: c.thread, Threads: splitList(c.threads), WorkflowID: c.workflow}
	if req.AsOf, err = tenure.ParseTime("--as-of", c.asOf); err != nil {
		return req, opt, err
	}
	if c.format, err = compile.ParseFormat(c.format); err != nil {
		return req, opt, prefixField("--", err)
	}
	if c.serverURL() != "" && c.embed.embedder != "none" {
		return req, opt, tenure.Errorf(tenure.CodeInvalid, "--embedder", "with --server the server compiles with its own embedder")
	}
	if err := c.embed.setUp(); err != nil {
		return req, opt, err
	}
	opt = c.embed.compileOptions(opt)
	files := []struct {
		flag, path string
		load       func([]byte) error
	}{
		{"--tail", c.tail, func(b []byte) (err error) { req.Tail, err = decodeList[compile.Message](b, "messages"); return }},
		{"--tools", c.tools, func(b []byte) (err error) { req.Tools, err = decodeList[compile.Tool](b, "tools"); return }},
		{"--documents", c.documents, func(b []byte) (err error) { req.Documents, err = decodeList[compile.Document](b, "documents"); return }},
		{"--instructions", c.instructions, func(b []byte) (err error) {
			req.Instructions, err = decodeList[compile.Instruction](b, "instructions")
			return
		}},
		{"--late-instructions", c.late, func(b []byte) (err error) {
			req.LateInstructions, err = decodeList[compile.Instruction](b, "instructions")
			return
		}},
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			return req, opt, &tenure.Error{Code: tenure.CodeInvalid, Field: f.flag, Message: "cannot read " + f.path, Err: err}
		}
		if err := f.load(data); err != nil {
			return req, opt, fmt.Errorf("%s %s: %w", f.flag, f.path, err)
		}
	}
	return req, opt, nil
}

// decodeList strictly decodes a JSON array file.
func decodeList[T any](data []byte, what string) ([]T, error) { return jsonx.ParseList[T](data, what) }

func (c *compileCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(compileSpec, args, 0); err != nil {
		return err
	}
	req, opt, err := c.request()
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	return c.withBackendOptions(ctx, c.embed.storeOptions(sqlite.Options{}), opt, func(st backend) error {
		var notes []string
		if local, ok := st.(localBackend); ok && c.extract && req.ThreadID != "" {
			// State is there when the agent asks: the thread's new messages
			// are digested before it is compiled. (A server digests in the
			// background after every append.)
			for _, d := range digestThreads(ctx, local.dbStore, req.Principal, []string{req.ThreadID}, nil) {
				if d.did() {
					notes = append(notes, digestNote(d))
				}
			}
		}
		env, tr, err := st.Compile(ctx, req)
		if err != nil {
			return err
		}
		tr.Notes = append(tr.Notes, notes...)
		if c.format == compile.FormatText && !c.json {
			if _, err := fmt.Fprint(sio.out, env.Render(compile.FormatText)); err != nil {
				return err
			}
			if c.trace {
				fmt.Fprintln(sio.out, "\n# trace")
				return writeJSON(sio.out, tr)
			}
			return nil
		}
		format := c.format
		if format == compile.FormatText {
			format = compile.FormatJSON
		}
		if !c.trace {
			return writeJSON(sio.out, env.Render(format))
		}
		return writeJSON(sio.out, struct {
			Envelope any           `json:"envelope"`
			Trace    compile.Trace `json:"trace"`
		}{env.Render(format), tr})
	})
}
