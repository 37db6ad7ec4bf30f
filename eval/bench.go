package eval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/retrieve"
)

// BenchOptions configures a speed run.
type BenchOptions struct {
	// Corpus supplies the messages' texts and the queries, cycled to reach
	// each size (message ids and threads are made unique).
	Corpus []Conversation
	// Sizes are the stored message counts compile latency is measured at
	// (default 10,000 and 100,000): threads of ThreadSize messages,
	// ThreadsPerTenant threads a tenant (defaults 600 and 10), appended a
	// session of each thread at a time, all threads in turn; every compile
	// is for one thread of one tenant.
	Sizes                        []int
	ThreadSize, ThreadsPerTenant int
	// Giant are the sizes of the single-tenant worst case: one tenant, one
	// thread holding every message (default none).
	Giant []int
	// BareUpTo is the largest size the bare query runs at (default
	// 100,000; it reads every match in the store, 0.4 s a query at 1M).
	BareUpTo int
	// Bare starts the bare query side on a bare database (a SQLite file's
	// path, or a PostgreSQL URL with Scratch; nil: BareInProcess, or
	// BarePostgres with Scratch). The command opens it with a process of
	// its own (BareCommand), so that it shares no SQLite page cache, nor
	// connection pool, with the store under test.
	Bare func(ctx context.Context, where string) (BareQuerier, error)
	// Open opens the stores under test, one fresh store for each round
	// and size (nil: SQLite files in the run's temporary directory).
	Open Opener
	// Scratch, when set, puts the bare side on PostgreSQL: it creates an
	// empty schema named after name and returns a URL whose connections
	// use it and what drops it (postgres.Scratch). Nil: SQLite files.
	Scratch func(ctx context.Context, name string) (url string, drop func() error, err error)
	// IngestMessages is how many messages the ingestion comparison writes
	// (default 10,000); Rounds is how many interleaved rounds each
	// comparison runs (default 5).
	IngestMessages, Rounds int
	// Queries per round and size (default 200) and the compile budget
	// (default 2,000 tokens).
	Queries, Budget int
	TempDir         string
	Progress        func(step string)
}

// BenchReport holds a speed run's results.
type BenchReport struct {
	Ingest IngestResult `json:"ingest"`
	// Compile holds one result per size, then one per giant size.
	Compile []CompileResult `json:"compile"`
	Budget  int             `json:"budget"`
	Queries int             `json:"queries"`
	Rounds  int             `json:"rounds"`
	// Bare says where the bare queries ran ("process" or "handle").
	Bare string `json:"bare"`
	// Database is what the bare side runs on: "sqlite" or "postgres".
	Database string `json:"database"`
}

// Spread is a measure's minimum, median and maximum over rounds.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Spread{Min: s[0], Median: s[len(s)/2], Max: s[len(s)-1]}
}

// IngestResult compares ingestion through the full write path (validation,
// token counting, date resolution, session assignment, until committed;
// on SQLite full-text indexing follows the commit in the background and
// is caught up before any search, on PostgreSQL it is part of the commit)
// with bare inserts of the same rows (on PostgreSQL a COPY into a table
// with a tsvector and its GIN index), over
// interleaved rounds, both under the same context (one that cannot be
// cancelled: the driver then starts no watcher per statement).
type IngestResult struct {
	Messages int `json:"messages"`
	// Rates in messages per second, and their ratio (Tenure / bare), per
	// round.
	TenureRate Spread `json:"tenure_per_sec"`
	BareRate   Spread `json:"bare_insert_per_sec"`
	Ratio      Spread `json:"ratio"`
}

// CompileResult compares compile latency with a bare full-text top-10
// query (SQLite: FTS5 bm25() over the whole store; PostgreSQL: ts_rank()
// over the compile's thread) at one store size, over interleaved rounds:
// the percentiles of every query, and the spread over rounds of each
// round's percentiles and ratios.
type CompileResult struct {
	Messages int `json:"messages"`
	Tenants  int `json:"tenants"`
	Threads  int `json:"threads"`
	// Giant marks the single-tenant, single-thread worst case.
	Giant   bool        `json:"giant,omitempty"`
	Tenure  Percentiles `json:"tenure_ms"`
	BareFTS Percentiles `json:"bare_fts_ms"`
	// Per round.
	TenureP50 Spread `json:"tenure_p50_ms"`
	TenureP99 Spread `json:"tenure_p99_ms"`
	BareP50   Spread `json:"bare_p50_ms"`
	BareP99   Spread `json:"bare_p99_ms"`
	RatioP50  Spread `json:"ratio_p50"`
	RatioP99  Spread `json:"ratio_p99"`
	// IngestSecs is how long the store took to build, IndexSecs its
	// full-text indexing after.
	IngestSecs float64 `json:"ingest_seconds"`
	IndexSecs  float64 `json:"index_seconds"`
}

// RunBench measures ingestion and compile latency against bare SQLite,
// or against bare PostgreSQL with opt.Scratch (opt.Open then opens the
// stores under test on PostgreSQL).
func RunBench(ctx context.Context, opt BenchOptions) (*BenchReport, error) {
	if len(opt.Sizes) == 0 && len(opt.Giant) == 0 {
		opt.Sizes = []int{10_000, 100_000}
	}
	opt.IngestMessages = cmpOr(opt.IngestMessages, 10_000)
	opt.Rounds = cmpOr(opt.Rounds, 5)
	opt.Queries = cmpOr(opt.Queries, 200)
	opt.Budget = cmpOr(opt.Budget, 2000)
	opt.ThreadSize = cmpOr(opt.ThreadSize, 600)
	opt.ThreadsPerTenant = cmpOr(opt.ThreadsPerTenant, 10)
	opt.BareUpTo = cmpOr(opt.BareUpTo, 100_000)
	if opt.Progress == nil {
		opt.Progress = func(string) {}
	}
	rep := &BenchReport{Budget: opt.Budget, Queries: opt.Queries, Rounds: opt.Rounds, Bare: "process", Database: "sqlite"}
	if opt.Scratch != nil {
		if opt.Open == nil {
			return nil, tenure.Errorf(tenure.CodeInvalid, "open", "a bare side on PostgreSQL needs the stores under test there too")
		}
		rep.Database = "postgres"
	}
	if opt.Bare == nil {
		opt.Bare, rep.Bare = BareInProcess, "handle"
		if opt.Scratch != nil {
			opt.Bare = BarePostgres
		}
	}
	texts, queries := corpus(opt.Corpus)
	if len(texts) == 0 || len(queries) == 0 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "data", "the corpus has no turns or no questions")
	}
	dir, err := os.MkdirTemp(opt.TempDir, "tenure-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	open, bare := opener(opt.Open, dir), bareBase(sqliteBare(dir))
	if opt.Scratch != nil {
		bare = postgresBare(opt.Scratch)
	}
	opt.Progress("ingest")
	// Both sides run under the same context, one that cannot be cancelled.
	if rep.Ingest, err = benchIngest(context.WithoutCancel(ctx), open, bare, newLayout(texts, opt.IngestMessages, opt.ThreadSize, opt.IngestMessages).byThread(), opt.Rounds); err != nil {
		return nil, err
	}
	for _, n := range opt.Sizes {
		opt.Progress(fmt.Sprintf("compile at %d messages", n))
		res, err := benchCompile(ctx, open, bare, newLayout(texts, n, opt.ThreadSize, opt.ThreadsPerTenant), queries, opt)
		if err != nil {
			return nil, err
		}
		rep.Compile = append(rep.Compile, res)
	}
	for _, n := range opt.Giant {
		opt.Progress(fmt.Sprintf("compile in one thread of %d messages", n))
		res, err := benchCompile(ctx, open, bare, newLayout(texts, n, n, 1), queries, opt)
		if err != nil {
			return nil, err
		}
		res.Giant = true
		rep.Compile = append(rep.Compile, res)
	}
	return rep, nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// corpus returns the turns (as messages) and questions of convs.
func corpus(convs []Conversation) ([]tenure.Message, []string) {
	var msgs []tenure.Message
	var qs []string
	for _, c := range convs {
		msgs = append(msgs, c.Messages()...)
		for _, q := range c.QA {
			qs = append(qs, q.Question)
		}
	}
	return msgs, qs
}

var benchStart = time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)

// synthesize makes n messages of one thread (thread number th) by cycling
// through the corpus turns from turn first, a minute apart.
func synthesize(turns []tenure.Message, n, th, first int) []tenure.Message {
	out := make([]tenure.Message, n)
	for i := range out {
		m := turns[(first+i)%len(turns)]
		m.ThreadID = fmt.Sprintf("t%d", th)
		m.ID = fmt.Sprintf("m%d", first+i)
		m.SessionID = ""
		m.CreatedAt = benchStart.Add(time.Duration(first+i)*time.Minute + time.Duration(th)*time.Second)
		out[i] = m
	}
	return out
}

// layout is a synthetic store: n messages in threads of size messages,
// perTenant threads a tenant.
type layout struct {
	turns                []tenure.Message
	n, size, perTenant   int
	threads, tenants     int
	sessionLen, sessions int
}

func newLayout(turns []tenure.Message, n, size, perTenant int) layout {
	size = min(size, n)
	l := layout{turns: turns, n: n, size: size, perTenant: perTenant, threads: (n + size - 1) / size}
	l.tenants = (l.threads + perTenant - 1) / perTenant
	l.sessionLen = min(20, size)
	if size > 10_000 {
		l.sessionLen = 10_000 // the giant thread: few, large appends
	}
	l.sessions = (size + l.sessionLen - 1) / l.sessionLen
	return l
}

// threadLen is how many messages thread th holds (the last may be short).
func (l layout) threadLen(th int) int { return min(l.size, l.n-th*l.size) }

func (l layout) principal(tenant int) tenure.Principal {
	p := benchPrincipal
	p.TenantID = fmt.Sprintf("tenant%d", tenant)
	return p
}

// appends calls f with each append of the layout, in order: a session
// (20 messages) of every thread of a tenant, each tenant in turn, round
// after round, so that a thread's messages are spread through the store
// as a busy server's are.
func (l layout) appends(f func(tenant int, batch []tenure.Message) error) error {
	for s := range l.sessions {
		for tn := range l.tenants {
			var batch []tenure.Message
			for th := tn * l.perTenant; th < min(l.threads, (tn+1)*l.perTenant); th++ {
				from := s * l.sessionLen
				if n := min(l.sessionLen, l.threadLen(th)-from); n > 0 {
					// Threads start at different turns of the corpus.
					batch = append(batch, synthesize(l.turns, n, th, th*l.size+from)...)
				}
			}
			if len(batch) == 0 {
				continue
			}
			if err := f(tn, batch); err != nil {
				return err
			}
		}
	}
	return nil
}

// byThread returns the layout's messages thread after thread (what the
// ingestion comparison writes: a bulk import of whole conversations).
func (l layout) byThread() []tenure.Message {
	var out []tenure.Message
	for th := range l.threads {
		out = append(out, synthesize(l.turns, l.threadLen(th), th, th*l.size)...)
	}
	return out
}

// importer is what build writes to.
type importer interface {
	ImportMessages(ctx context.Context, p tenure.Principal, msgs []tenure.Message, progress func(done int)) (tenure.AppendResult, error)
}

// build appends the layout's messages to st.
func (l layout) build(ctx context.Context, st importer) error {
	return l.appends(func(tn int, batch []tenure.Message) error {
		_, err := st.ImportMessages(ctx, l.principal(tn), batch, nil)
		return err
	})
}

// bareRows writes the layout's messages, in the same order, to a bare
// database (a plain table and its full-text index, no tenants).
func (l layout) bareRows(ctx context.Context, db bareDB) error {
	var pending []tenure.Message
	flush := func() error {
		err := db.insert(ctx, pending, true)
		pending = pending[:0]
		return err
	}
	if err := l.appends(func(_ int, batch []tenure.Message) error {
		if pending = append(pending, batch...); len(pending) >= 50_000 {
			return flush()
		}
		return nil
	}); err != nil {
		return err
	}
	return flush()
}

var benchPrincipal = tenure.Principal{UserID: "bench", TenantID: "bench", Authority: "policy", Clearance: tenure.HighlyRestricted}

func benchIngest(ctx context.Context, open Opener, bare bareBase, msgs []tenure.Message, rounds int) (IngestResult, error) {
	var tr, br, ratios []float64
	// Round 0 warms both sides up and is not counted: the first import of
	// a process loads the tokenizer's vocabulary (~0.1 s), a cost of
	// starting the process, not of ingesting.
	for r := range rounds + 1 {
		var bareTime, full time.Duration
		// Alternate which side goes first.
		for side := range 2 {
			if (side+r)%2 == 0 {
				db, err := bare.create(ctx, fmt.Sprintf("bare-%d", r))
				if err != nil {
					return IngestResult{}, err
				}
				runtime.GC()
				start := time.Now()
				err = db.insert(ctx, msgs, false)
				bareTime = time.Since(start)
				err = errors.Join(err, db.close(), db.drop())
				if err != nil {
					return IngestResult{}, fmt.Errorf("bare insert: %w", err)
				}
				continue
			}
			st, err := open(ctx, fmt.Sprintf("tenure-%d", r), nil)
			if err != nil {
				return IngestResult{}, err
			}
			// Each side starts on a collected heap, as testing.B does: the
			// garbage of the round before is not its cost.
			runtime.GC()
			start := time.Now()
			_, err = st.ImportMessages(ctx, benchPrincipal, msgs, nil)
			full = time.Since(start)
			err = errors.Join(err, st.Close())
			if err != nil {
				return IngestResult{}, fmt.Errorf("tenure ingest: %w", err)
			}
		}
		if r == 0 {
			continue
		}
		t, b := float64(len(msgs))/full.Seconds(), float64(len(msgs))/bareTime.Seconds()
		tr, br, ratios = append(tr, t), append(br, b), append(ratios, t/b)
	}
	return IngestResult{Messages: len(msgs), TenureRate: spread(tr), BareRate: spread(br), Ratio: spread(ratios)}, nil
}

func benchCompile(ctx context.Context, open Opener, base bareBase, l layout, queries []string, opt BenchOptions) (res CompileResult, err error) {
	res = CompileResult{Messages: l.n, Tenants: l.tenants, Threads: l.threads}
	name := fmt.Sprintf("%d-%d", l.n, l.size)
	var bare BareQuerier
	if l.n <= opt.BareUpTo {
		db, err := base.create(ctx, "bare-fts-"+name)
		if err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, db.drop()) }()
		err = l.bareRows(ctx, db)
		if err = errors.Join(err, db.close()); err != nil {
			return res, fmt.Errorf("bare insert: %w", err)
		}
		if bare, err = opt.Bare(ctx, db.where()); err != nil {
			return res, fmt.Errorf("bare side: %w", err)
		}
		defer bare.Close()
	}
	st, err := open(ctx, "tenure-"+name, nil)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	start := time.Now()
	if err := l.build(ctx, st); err != nil {
		return res, fmt.Errorf("tenure ingest: %w", err)
	}
	res.IngestSecs = time.Since(start).Seconds()
	start = time.Now()
	if err := st.IndexMessages(ctx); err != nil {
		return res, err
	}
	res.IndexSecs = time.Since(start).Seconds()
	c := compile.New(st, compile.Options{})
	rng := rand.New(rand.NewPCG(uint64(l.n), 17))
	// Each compile is for a thread drawn at random; the bare query that
	// follows it, for the same thread.
	var thread string
	compileOne := func(q string) (time.Duration, error) {
		th := rng.IntN(l.threads)
		p := l.principal(th / l.perTenant)
		thread = fmt.Sprintf("t%d", th)
		t0 := time.Now()
		_, _, err := c.Compile(ctx, compile.Request{Principal: p, ThreadID: thread, Query: q, Budget: opt.Budget,
			TaskType: tenure.TaskQuestionAnswering})
		return time.Since(t0), err
	}
	// Warm both sides: one pass over the queries of a round.
	for i := range min(opt.Queries, len(queries)) {
		if _, err := compileOne(queries[i%len(queries)]); err != nil {
			return res, err
		}
		if bare != nil {
			if _, err := bare.Query(ctx, thread, queries[i%len(queries)]); err != nil {
				return res, err
			}
		}
	}
	var tl, bl []float64
	var tp50, tp99, bp50, bp99, r50, r99 []float64
	for r := range opt.Rounds {
		var rt, rb []float64
		for i := range opt.Queries {
			q := queries[(r*opt.Queries+i)%len(queries)]
			d, err := compileOne(q)
			if err != nil {
				return res, fmt.Errorf("compile %q: %w", q, err)
			}
			rt = append(rt, ms(d))
			if bare != nil {
				d, err := bare.Query(ctx, thread, q)
				if err != nil {
					return res, fmt.Errorf("bare query %q: %w", q, err)
				}
				rb = append(rb, ms(d))
			}
		}
		pt := percentiles(rt)
		tl, tp50, tp99 = append(tl, rt...), append(tp50, pt.P50), append(tp99, pt.P99)
		if bare != nil {
			pb := percentiles(rb)
			bl, bp50, bp99 = append(bl, rb...), append(bp50, pb.P50), append(bp99, pb.P99)
			r50, r99 = append(r50, ratio(pt.P50, pb.P50)), append(r99, ratio(pt.P99, pb.P99))
		}
	}
	res.Tenure, res.BareFTS = percentiles(tl), percentiles(bl)
	res.TenureP50, res.TenureP99, res.BareP50, res.BareP99 = spread(tp50), spread(tp99), spread(bp50), spread(bp99)
	res.RatioP50, res.RatioP99 = spread(r50), spread(r99)
	return res, nil
}

// BareQuerier runs the bare query: the question's content words, any of
// them, over every stored message (SQLite) or over the messages of thread
// (PostgreSQL), reading the ten best rows' ids and scores; it reports how
// long the query took.
type BareQuerier interface {
	Query(ctx context.Context, thread, q string) (time.Duration, error)
	Close() error
}

// bareHandle runs the bare query on a database handle of its own.
type bareHandle struct {
	db   *sql.DB
	stmt *sql.Stmt
}

// BareInProcess opens the bare database at path on a handle of its own
// (its own connection and page cache, in this process).
func BareInProcess(ctx context.Context, path string) (BareQuerier, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	stmt, err := db.PrepareContext(ctx, `SELECT rowid, bm25(messages_fts) FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 10`)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &bareHandle{db: db, stmt: stmt}, nil
}

// Query ignores thread: the bare FTS5 query reads the whole store.
func (b *bareHandle) Query(ctx context.Context, _, q string) (time.Duration, error) {
	var words []string
	for _, w := range retrieve.ContentWords(q) {
		words = append(words, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	if len(words) == 0 {
		return 0, nil
	}
	start := time.Now()
	rows, err := b.stmt.QueryContext(ctx, strings.Join(words, " OR "))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return 0, err
		}
	}
	return time.Since(start), rows.Err()
}

func (b *bareHandle) Close() error {
	b.stmt.Close()
	return b.db.Close()
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// WriteTable writes the speed comparison as readable tables.
func (r *BenchReport) WriteTable(w io.Writer) error {
	sp := func(s Spread, f string) string {
		return fmt.Sprintf(f+" / "+f+" / "+f, s.Min, s.Median, s.Max)
	}
	fmt.Fprintf(w, "ingestion of %d messages, %d interleaved rounds (min / median / max)\n", r.Ingest.Messages, r.Rounds)
	fmt.Fprintf(w, "  tenure (full write path)  %s msg/s\n", sp(r.Ingest.TenureRate, "%.0f"))
	bareInsert, bareQuery := "bare SQLite insert       ", "bare FTS5 bm25() top-10 over the whole store"
	if r.Database == "postgres" {
		bareInsert, bareQuery = "bare PostgreSQL COPY     ", "bare PostgreSQL ts_rank() top-10 over the same thread"
	}
	fmt.Fprintf(w, "  %s %s msg/s\n", bareInsert, sp(r.Ingest.BareRate, "%.0f"))
	fmt.Fprintf(w, "  ratio                     %s\n\n", sp(r.Ingest.Ratio, "%.2fx"))
	fmt.Fprintf(w, "compile of one thread at a %d-token budget vs %s (bare on its own %s),\n"+
		"%d queries x %d rounds, ms; per-round spreads min / median / max\n", r.Budget, bareQuery, r.Bare, r.Queries, r.Rounds)
	var base float64
	for _, c := range r.Compile {
		kind := fmt.Sprintf("%d msgs (%d tenants, %d threads)", c.Messages, c.Tenants, c.Threads)
		if c.Giant {
			kind = fmt.Sprintf("%d msgs in one thread of one tenant", c.Messages)
		}
		fmt.Fprintf(w, "  %s; built in %.1f s + indexed in %.1f s\n", kind, c.IngestSecs, c.IndexSecs)
		fmt.Fprintf(w, "    tenure  p50/p95/p99 %.2f/%.2f/%.2f; per round p50 %s, p99 %s\n", c.Tenure.P50, c.Tenure.P95, c.Tenure.P99,
			sp(c.TenureP50, "%.2f"), sp(c.TenureP99, "%.2f"))
		if !c.Giant {
			if base == 0 {
				base = c.TenureP99.Median
			} else if base > 0 {
				fmt.Fprintf(w, "    p99 (median round) / p99 at the first size: %.2fx\n", c.TenureP99.Median/base)
			}
		}
		if c.BareP50.Max > 0 {
			fmt.Fprintf(w, "    bare    p50/p95/p99 %.2f/%.2f/%.2f; per round p50 %s, p99 %s\n", c.BareFTS.P50, c.BareFTS.P95, c.BareFTS.P99,
				sp(c.BareP50, "%.2f"), sp(c.BareP99, "%.2f"))
			fmt.Fprintf(w, "    ratio   p50 %s, p99 %s\n", sp(c.RatioP50, "%.2fx"), sp(c.RatioP99, "%.2fx"))
		}
	}
	return nil
}
