package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/eval"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/postgres"
)

var evalSpec = commandSpec{
	name:    "eval",
	args:    "locomo|longmemeval|bench",
	summary: "measure retrieval on LoCoMo or LongMemEval, or speed against bare SQLite or PostgreSQL",
	detail: `eval locomo ingests each LoCoMo conversation of --data into a fresh store
and, for every question and budget, compiles a context and scores it:
evidence recall (the share of the question's evidence turns present
verbatim), answer-token recall, envelope tokens and compile latency, per
question category, beside two baselines: recency (the latest turns that
fit) and bm25-turns (BM25 top turns until the budget is full). --ablation
adds Tenure with each retrieval mechanism turned off in turn. Only turns,
speakers, session dates and photo captions reach the system under test;
gold observations, summaries and evidence never do.

eval longmemeval reads LongMemEval questions from --data (a JSON list,
.json or .json.gz) and, for each question, ingests its haystack into a
fresh store (every session a session of the user's thread, dated from
haystack_dates, user and assistant turns with their roles) and compiles
the question at question_date as "now" within each budget. Per question
type and overall (abstention questions left out): turn evidence recall
(the share of has_answer turns present verbatim), recall_all, session
recall and, for sessions ranked as units, recall_all@5/@10 and NDCG@5;
envelope tokens, compile latency and ingest time; beside bm25-turns,
bm25-sessions (whole sessions ranked, packed best first) and recency.
--types and --limit select questions; --ablation as for locomo. The
answers, evidence sessions and has_answer marks never reach the system.

With --embedder openai (locomo, longmemeval) every store's messages are
embedded and the Tenure systems fuse vector and lexical ranks; tenure-lexical
runs beside them without vectors, so that one run shows what the model adds.

eval bench measures, side by side in one run, message ingestion through
the full write path against a bare SQLite insert of the same rows, and
compile latency at each --sizes store size (threads of 600 messages, ten
threads a tenant, appended a session of every thread at a time; each
compile is for one thread) against a bare FTS5 bm25() top-10 query over
the same rows, up to --bare-up-to messages. --giant adds the worst case:
one tenant, one thread holding every message. Every comparison runs
--rounds interleaved rounds and reports the spread (min / median / max)
of each round's numbers. The bare queries run in a process of their own
(--bare process; --bare handle: a database handle of their own in this
process), so that they share no page cache with the store under test.

eval bench --db postgres://… runs the same comparison on PostgreSQL: each
round and size gets a fresh schema of that database (dropped after), the
store under test is the PostgreSQL store through the full write path, the
bare ingestion a COPY of the same rows into a plain table with a tsvector
and its GIN index, and the bare query a ts_rank() top-10 over the
messages of the thread the compile is for, on a connection pool of its
own (in its own process with --bare process).

eval bench --server measures the HTTP server instead: it builds a store of
--messages messages (laid out as above, a key per tenant), starts 'tenure
serve' on it in a process of its own on a loopback address, and runs
--queries compiles at each --clients concurrency (each for one thread, as
its tenant's key), then the middle level again mixed with a read of every
compile's trace and an append after every fifth: per route, requests a
second and p50 / p95 / p99 latency; the server's CPU time per compile;
its memory after opening and idle after all the compiles (their traces
kept, compact unless --full-traces); the mean size of a kept trace. The
server runs with --digest=false and --max-concurrent-compiles 1024 (with
the default cap, compiles past it are refused with 503).`,
	new: func() subcommand { return new(evalCmd) },
}

type evalCmd struct {
	json       bool
	data       string
	budgets    string
	tokenizer  string
	ablation   bool
	noProgress bool
	sizes      string
	giant      string
	rounds     int
	bareUpTo   int
	bare       string
	server     bool
	messages   int
	clients    string
	fullTraces bool
	queries    int
	dir        string
	extract    string
	llm        llmFlags
	embed      embedFlags
	limit      int
	types      string
	db         string
}

func (c *evalCmd) define(fs *flag.FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print the numbers as JSON")
	fs.StringVar(&c.data, "data", "", "`path`: locomo and bench, a directory of LoCoMo conversation files (*.json; default "+
		defaultLoCoMo+"), bench using their turns and questions as its corpus; longmemeval, a JSON file of questions (.json or .json.gz; default "+
		defaultLongMemEval+")")
	fs.StringVar(&c.budgets, "budgets", "", "token `budgets`, comma-separated (default: locomo "+locomoBudgets+", longmemeval "+lmeBudgets+")")
	fs.StringVar(&c.tokenizer, "tokenizer", "cl100k_base", "tokenizer `encoding` of the budgets")
	fs.BoolVar(&c.ablation, "ablation", false, "locomo, longmemeval: also run Tenure with each mechanism turned off")
	fs.BoolVar(&c.noProgress, "no-progress", false, "never show the progress bar (it shows only on a terminal)")
	fs.StringVar(&c.sizes, "sizes", "10000,100000", "bench: stored message `counts`, comma-separated")
	fs.StringVar(&c.giant, "giant", "", "bench: message `counts` of single-thread stores (the worst case), comma-separated")
	fs.IntVar(&c.rounds, "rounds", 5, "bench: interleaved `rounds` of each comparison")
	fs.IntVar(&c.bareUpTo, "bare-up-to", 100_000, "bench: run the bare query at sizes up to `n` messages")
	fs.StringVar(&c.bare, "bare", "process", "bench: where the bare queries run: process or handle")
	fs.BoolVar(&c.server, "server", false, "bench: measure the HTTP server under concurrent clients instead")
	fs.IntVar(&c.messages, "messages", 100_000, "bench --server: stored `messages`")
	fs.StringVar(&c.clients, "clients", "1,8,32", "bench --server: concurrent `clients` per level, comma-separated")
	fs.BoolVar(&c.fullTraces, "full-traces", false, "bench --server: the server keeps traces whole (serve --full-traces)")
	fs.IntVar(&c.queries, "queries", 200, "bench: compile `queries` per size")
	fs.IntVar(&c.limit, "limit", 0, "longmemeval: evaluate the first `n` selected questions only (0: all)")
	fs.StringVar(&c.types, "types", "", "longmemeval: question `types` to evaluate, comma-separated (default all)")
	fs.StringVar(&c.extract, "extract", "none", "locomo: also run Tenure with state extraction: none, rules or llm (see --llm)")
	c.llm.define(fs)
	c.embed.define(fs, false)
	fs.StringVar(&c.dir, "dir", "", "`directory` for the temporary stores (default: the system's)")
	fs.StringVar(&c.db, "db", "", "locomo, longmemeval, bench: keep the temporary stores in the PostgreSQL database at `URL` (postgres://…), a schema each, instead of SQLite files")
}

func (c *evalCmd) exec(ctx context.Context, sio stdio, args []string) error {
	if err := wantArgs(evalSpec, args, 1); err != nil {
		return err
	}
	switch args[0] {
	case "locomo":
		return c.locomo(ctx, sio)
	case "longmemeval":
		return c.longMemEval(ctx, sio)
	case "bench":
		return c.bench(ctx, sio)
	case "bench-bare": // eval bench's bare side (--bare process): --data a SQLite file, or --db a PostgreSQL URL
		if c.db != "" {
			return eval.ServeBare(ctx, eval.BarePostgres, c.db, sio.in, sio.out)
		}
		return eval.ServeBare(ctx, eval.BareInProcess, c.data, sio.in, sio.out)
	}
	return tenure.Errorf(tenure.CodeInvalid, "", "unknown evaluation %q (want locomo, longmemeval or bench)", args[0])
}

// Defaults of the flags that differ by evaluation.
const (
	defaultLoCoMo      = "../shared/data/locomo"
	defaultLongMemEval = "../shared/data/longmemeval/dev.json.gz"
	locomoBudgets      = "500,1000,2000,4000"
	lmeBudgets         = "1000,2000,4000,8000"
)

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func (c *evalCmd) longMemEval(ctx context.Context, sio stdio) error {
	budgets, err := positiveInts("--budgets", orDefault(c.budgets, lmeBudgets), 1_000_000)
	if err != nil {
		return err
	}
	if c.limit < 0 {
		return tenure.Errorf(tenure.CodeInvalid, "--limit", "%d is negative", c.limit)
	}
	if c.extract != "none" {
		return tenure.Errorf(tenure.CodeInvalid, "--extract", "is for locomo only")
	}
	var types []string
	for _, t := range strings.Split(c.types, ",") {
		if t = strings.TrimSpace(t); t != "" {
			types = append(types, t)
		}
	}
	qs, loaded, err := eval.LoadLongMemEval(orDefault(c.data, defaultLongMemEval), eval.LoadOptions{Types: types, Limit: c.limit})
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return tenure.Errorf(tenure.CodeInvalid, "--data", "no question with evidence selected (%d read)", loaded.Read)
	}
	if err := c.embed.setUp(); err != nil {
		return err
	}
	if err := c.checkDB(); err != nil {
		return err
	}
	opt := eval.LMEOptions{Budgets: budgets, Tokenizer: c.tokenizer, TempDir: c.dir, Embedding: c.embed.space, Open: evalOpener(c.db)}
	if c.ablation {
		opt.Variants = eval.Ablations
	}
	if bar := newProgress(progressOut(sio, c.noProgress), len(qs), "longmemeval", "question"); bar != nil {
		opt.Progress = func(done, _ int) { bar.Set(done) }
		defer bar.Finish()
	}
	rep, err := eval.RunLongMemEval(ctx, qs, opt)
	if err != nil {
		return err
	}
	rep.Loaded = loaded
	if c.json {
		return writeJSON(sio.out, rep)
	}
	return rep.WriteTable(sio.out)
}

func (c *evalCmd) locomo(ctx context.Context, sio stdio) error {
	budgets, err := positiveInts("--budgets", orDefault(c.budgets, locomoBudgets), 1_000_000)
	if err != nil {
		return err
	}
	if err := c.embed.setUp(); err != nil {
		return err
	}
	convs, err := eval.LoadLoCoMo(orDefault(c.data, defaultLoCoMo))
	if err != nil {
		return err
	}
	if err := c.checkDB(); err != nil {
		return err
	}
	opt := eval.Options{Budgets: budgets, Tokenizer: c.tokenizer, TempDir: c.dir, Embedding: c.embed.space, Open: evalOpener(c.db)}
	if c.ablation {
		opt.Variants = eval.Ablations
	}
	if opt.Extractor, err = c.extractor(); err != nil {
		return err
	}
	if bar := newProgress(progressOut(sio, c.noProgress), len(convs), "locomo", "conversation"); bar != nil {
		opt.Progress = func(done, _ int) { bar.Set(done) }
		defer bar.Finish()
	}
	rep, err := eval.RunLoCoMo(ctx, convs, opt)
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(sio.out, rep)
	}
	return rep.WriteTable(sio.out)
}

// checkDB refuses a --db that is not a PostgreSQL URL.
func (c *evalCmd) checkDB() error {
	if c.db != "" && !postgres.IsURL(c.db) {
		return tenure.Errorf(tenure.CodeInvalid, "--db", "%q is not a PostgreSQL URL (postgres://…); without --db the stores are SQLite files", c.db)
	}
	return nil
}

// extractor returns the --extract extractor (nil for none).
func (c *evalCmd) extractor() (extract.Extractor, error) {
	if err := c.llm.validate(); err != nil {
		return nil, err
	}
	switch c.extract {
	case "none":
		return nil, nil
	case "rules":
		return extract.NewRules(extract.RulesOptions{}), nil
	case "llm":
		comp := c.llm.completer()
		if comp == nil {
			return nil, tenure.Errorf(tenure.CodeInvalid, "--extract", "llm needs --llm openai or anthropic")
		}
		return extract.NewLLM(comp, extract.LLMOptions{}), nil
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, "--extract", "unknown extractor %q (want none, rules or llm)", c.extract)
}

// positiveInts parses a comma-separated list of integers in 1..limit.
func positiveInts(flagName, v string, limit int) ([]int, error) {
	var out []int
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > limit {
			return nil, tenure.Errorf(tenure.CodeInvalid, flagName, "%q is not a whole number between 1 and %d", s, limit)
		}
		out = append(out, n)
	}
	return out, nil
}

func (c *evalCmd) bench(ctx context.Context, sio stdio) error {
	if c.server {
		if c.db != "" {
			return tenure.Errorf(tenure.CodeInvalid, "--db", "eval bench --server runs on SQLite only")
		}
		return c.load(ctx, sio)
	}
	if err := c.checkDB(); err != nil {
		return err
	}
	sizes, err := positiveInts("--sizes", c.sizes, 10_000_000)
	if err != nil {
		return err
	}
	var giant []int
	if c.giant != "" {
		if giant, err = positiveInts("--giant", c.giant, 10_000_000); err != nil {
			return err
		}
	}
	if c.queries < 1 || c.queries > 1_000_000 {
		return tenure.Errorf(tenure.CodeInvalid, "--queries", "%d is not between 1 and 1000000", c.queries)
	}
	if c.rounds < 1 || c.rounds > 1000 {
		return tenure.Errorf(tenure.CodeInvalid, "--rounds", "%d is not between 1 and 1000", c.rounds)
	}
	if c.bareUpTo < 0 {
		return tenure.Errorf(tenure.CodeInvalid, "--bare-up-to", "%d is negative", c.bareUpTo)
	}
	var bare func(context.Context, string) (eval.BareQuerier, error)
	switch c.bare {
	case "process":
		self, err := os.Executable()
		if err != nil {
			return err
		}
		where := "--data"
		if c.db != "" {
			where = "--db"
		}
		bare = eval.BareCommand(func(path string) *exec.Cmd {
			cmd := exec.CommandContext(ctx, self, "eval", "bench-bare", where, path)
			cmd.Stderr = sio.err
			return cmd
		})
	case "handle":
	default:
		return tenure.Errorf(tenure.CodeInvalid, "--bare", "%q is not process or handle", c.bare)
	}
	convs, err := eval.LoadLoCoMo(orDefault(c.data, defaultLoCoMo))
	if err != nil {
		return err
	}
	opt := eval.BenchOptions{Corpus: convs, Sizes: sizes, Giant: giant, Queries: c.queries, Rounds: c.rounds,
		BareUpTo: max(c.bareUpTo, 1), Bare: bare, TempDir: c.dir}
	if c.db != "" {
		opt.Open = evalOpener(c.db)
		opt.Scratch = func(ctx context.Context, name string) (string, func() error, error) {
			return postgres.Scratch(ctx, c.db, name)
		}
	}
	if f := progressOut(sio, c.noProgress); f != nil {
		opt.Progress = func(step string) { fmt.Fprintf(f, "bench: %s…\n", step) }
	}
	rep, err := eval.RunBench(ctx, opt)
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(sio.out, rep)
	}
	return rep.WriteTable(sio.out)
}

// load runs eval bench --server.
func (c *evalCmd) load(ctx context.Context, sio stdio) error {
	clients, err := positiveInts("--clients", c.clients, 1000)
	if err != nil {
		return err
	}
	if c.messages < 1 || c.messages > 10_000_000 {
		return tenure.Errorf(tenure.CodeInvalid, "--messages", "%d is not between 1 and 10000000", c.messages)
	}
	if c.queries < 1 || c.queries > 1_000_000 {
		return tenure.Errorf(tenure.CodeInvalid, "--queries", "%d is not between 1 and 1000000", c.queries)
	}
	convs, err := eval.LoadLoCoMo(orDefault(c.data, defaultLoCoMo))
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	opt := eval.ServerLoadOptions{Corpus: convs, Messages: c.messages, Clients: clients, Requests: c.queries, TempDir: c.dir,
		Serve: func(path string) *exec.Cmd {
			// Every client's compile runs: past the default cap (twice
			// GOMAXPROCS) the server would refuse them with 503.
			args := []string{"serve", "--db", path, "--addr", "127.0.0.1:0", "--digest=false", "--log-level", "error",
				"--max-concurrent-compiles", "1024"}
			if c.fullTraces {
				args = append(args, "--full-traces")
			}
			return exec.CommandContext(ctx, self, args...)
		}}
	if f := progressOut(sio, c.noProgress); f != nil {
		opt.Progress = func(step string) { fmt.Fprintf(f, "bench --server: %s…\n", step) }
	}
	rep, err := eval.RunLoad(ctx, opt)
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(sio.out, rep)
	}
	return rep.WriteTable(sio.out)
}
