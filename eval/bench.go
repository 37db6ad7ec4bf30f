package eval

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	// (default 1,000, 10,000 and 100,000).
	Sizes []int
	// IngestMessages is how many messages the ingestion comparison writes
	// (default 10,000); Rounds is how often each side runs, interleaved
	// (default 3, the best of each is kept).
	IngestMessages, Rounds int
	// Queries per size (default 200) and the compile budget (default
	// 2,000 tokens).
	Queries, Budget int
	TempDir         string
	Progress        func(step string)
	// Open opens Tenure's stores and OpenBare the baselines (default:
	// SQLite files in TempDir, and bare SQLite tables with FTS5).
	Open     Opener
	OpenBare BareOpener
	// Database names the database in the report (default "SQLite").
	Database string
}

// Bare is the baseline of a speed run: the same rows in a bare table of
// the same kind of database, and a bare full-text top-10 query over them.
type Bare interface {
	// Insert writes msgs as plainly as the database allows, indexed for
	// full-text search when withFTS is set.
	Insert(ctx context.Context, msgs []tenure.Message, withFTS bool) error
	// Top10 reads the ids and scores of the ten best matches of any of
	// words.
	Top10(ctx context.Context, words []string) error
	Close() error
}

// BareOpener opens an empty baseline named name.
type BareOpener func(ctx context.Context, name string) (Bare, error)

// sqliteBare is the SQLite baseline: a plain table and an FTS5 table.
type sqliteBare struct {
	db   *sql.DB
	stmt *sql.Stmt
}

func sqliteBareOpener(dir string) BareOpener {
	return func(ctx context.Context, name string) (Bare, error) {
		db, err := openBare(ctx, filepath.Join(dir, name+".db"))
		if err != nil {
			return nil, err
		}
		return &sqliteBare{db: db}, nil
	}
}

func (b *sqliteBare) Insert(ctx context.Context, msgs []tenure.Message, withFTS bool) error {
	return bareInsert(ctx, b.db, msgs, withFTS)
}

func (b *sqliteBare) Top10(ctx context.Context, words []string) error {
	if b.stmt == nil {
		var err error
		if b.stmt, err = b.db.PrepareContext(ctx, `SELECT rowid, bm25(messages_fts) FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 10`); err != nil {
			return err
		}
	}
	return bareTop10(ctx, b.stmt, words)
}

func (b *sqliteBare) Close() error {
	if b.stmt != nil {
		b.stmt.Close()
	}
	return b.db.Close()
}

// BenchReport holds a speed run's results.
type BenchReport struct {
	Ingest   IngestResult    `json:"ingest"`
	Compile  []CompileResult `json:"compile"`
	Budget   int             `json:"budget"`
	Queries  int             `json:"queries"`
	Database string          `json:"database"`
}

// IngestResult compares ingestion through the full write path (validation,
// token counting, date resolution, session assignment, until committed;
// full-text indexing follows the commit in the background and is caught
// up before any search) with bare inserts of the same rows.
type IngestResult struct {
	Messages int `json:"messages"`
	// Rates in messages per second.
	TenureRate float64 `json:"tenure_per_sec"`
	BareRate   float64 `json:"bare_insert_per_sec"`
	Ratio      float64 `json:"ratio"`
}

// CompileResult compares compile latency with a bare FTS5 top-10 query at
// one store size.
type CompileResult struct {
	Messages   int         `json:"messages"`
	Tenure     Percentiles `json:"tenure_ms"`
	BareFTS    Percentiles `json:"bare_fts_ms"`
	RatioP50   float64     `json:"ratio_p50"`
	RatioP99   float64     `json:"ratio_p99"`
	IngestSecs float64     `json:"ingest_seconds"`
}

// RunBench measures ingestion and compile latency against bare SQLite.
func RunBench(ctx context.Context, opt BenchOptions) (*BenchReport, error) {
	if len(opt.Sizes) == 0 {
		opt.Sizes = []int{1_000, 10_000, 100_000}
	}
	opt.IngestMessages = cmpOr(opt.IngestMessages, 10_000)
	opt.Rounds = cmpOr(opt.Rounds, 3)
	opt.Queries = cmpOr(opt.Queries, 200)
	opt.Budget = cmpOr(opt.Budget, 2000)
	if opt.Progress == nil {
		opt.Progress = func(string) {}
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
	opt.Open = opener(opt.Open, dir)
	if opt.OpenBare == nil {
		opt.OpenBare = sqliteBareOpener(dir)
	}
	if opt.Database == "" {
		opt.Database = "SQLite"
	}
	rep := &BenchReport{Budget: opt.Budget, Queries: opt.Queries, Database: opt.Database}
	opt.Progress("ingest")
	if rep.Ingest, err = benchIngest(ctx, opt, synthesize(texts, opt.IngestMessages)); err != nil {
		return nil, err
	}
	for _, n := range opt.Sizes {
		opt.Progress(fmt.Sprintf("compile at %d messages", n))
		res, err := benchCompile(ctx, synthesize(texts, n), queries, opt)
		if err != nil {
			return nil, err
		}
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

// threadSize is how many messages a synthesized thread holds.
const threadSize = 600

// synthesize makes n messages by cycling through the corpus turns, in
// threads of threadSize messages, a minute apart.
func synthesize(turns []tenure.Message, n int) []tenure.Message {
	out := make([]tenure.Message, n)
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range out {
		m := turns[i%len(turns)]
		m.ThreadID = fmt.Sprintf("t%d", i/threadSize)
		m.ID = fmt.Sprintf("m%d", i)
		m.SessionID = ""
		m.CreatedAt = start.Add(time.Duration(i) * time.Minute)
		out[i] = m
	}
	return out
}

func openBare(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, `CREATE TABLE messages (thread_id TEXT, id TEXT, role TEXT, speaker TEXT, content TEXT, created_at INTEGER);
		CREATE VIRTUAL TABLE messages_fts USING fts5 (speaker, text, tokenize = 'porter unicode61 remove_diacritics 2')`)
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// bareInsert inserts msgs into a plain table in one transaction.
func bareInsert(ctx context.Context, db *sql.DB, msgs []tenure.Message, withFTS bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	fts, err := tx.PrepareContext(ctx, `INSERT INTO messages_fts (rowid, speaker, text) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	for i, m := range msgs {
		if _, err := ins.ExecContext(ctx, m.ThreadID, m.ID, m.Role, m.Speaker, m.Content, m.CreatedAt.UnixNano()); err != nil {
			return err
		}
		if withFTS {
			if _, err := fts.ExecContext(ctx, i+1, m.Speaker, m.Text()); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

var benchPrincipal = tenure.Principal{UserID: "bench", TenantID: "bench", Authority: "policy", Clearance: tenure.HighlyRestricted}

func benchIngest(ctx context.Context, opt BenchOptions, msgs []tenure.Message) (IngestResult, error) {
	var tenureBest, bareBest time.Duration
	for r := range opt.Rounds {
		db, err := opt.OpenBare(ctx, fmt.Sprintf("bare-%d", r))
		if err != nil {
			return IngestResult{}, err
		}
		start := time.Now()
		err = db.Insert(ctx, msgs, false)
		bare := time.Since(start)
		db.Close()
		if err != nil {
			return IngestResult{}, fmt.Errorf("bare insert: %w", err)
		}
		st, err := opt.Open(ctx, fmt.Sprintf("tenure-%d", r), nil)
		if err != nil {
			return IngestResult{}, err
		}
		start = time.Now()
		_, err = st.ImportMessages(ctx, benchPrincipal, msgs, nil)
		full := time.Since(start)
		st.Close()
		if err != nil {
			return IngestResult{}, fmt.Errorf("tenure ingest: %w", err)
		}
		if r == 0 || bare < bareBest {
			bareBest = bare
		}
		if r == 0 || full < tenureBest {
			tenureBest = full
		}
	}
	res := IngestResult{Messages: len(msgs), TenureRate: float64(len(msgs)) / tenureBest.Seconds(),
		BareRate: float64(len(msgs)) / bareBest.Seconds()}
	res.Ratio = res.TenureRate / res.BareRate
	return res, nil
}

func benchCompile(ctx context.Context, msgs []tenure.Message, queries []string, opt BenchOptions) (CompileResult, error) {
	res := CompileResult{Messages: len(msgs)}
	bare, err := opt.OpenBare(ctx, fmt.Sprintf("bare-fts-%d", len(msgs)))
	if err != nil {
		return res, err
	}
	defer bare.Close()
	if err := bare.Insert(ctx, msgs, true); err != nil {
		return res, fmt.Errorf("bare insert: %w", err)
	}
	st, err := opt.Open(ctx, fmt.Sprintf("tenure-%d", len(msgs)), nil)
	if err != nil {
		return res, err
	}
	defer st.Close()
	start := time.Now()
	if _, err := st.ImportMessages(ctx, benchPrincipal, msgs, nil); err != nil {
		return res, fmt.Errorf("tenure ingest: %w", err)
	}
	res.IngestSecs = time.Since(start).Seconds()
	c := compile.New(st, compile.Options{})
	var tl, bl []float64
	for i := range opt.Queries {
		q := queries[i%len(queries)]
		t0 := time.Now()
		_, _, err := c.Compile(ctx, compile.Request{Principal: benchPrincipal, Query: q, Budget: opt.Budget, TaskType: tenure.TaskQuestionAnswering})
		t1 := time.Now()
		if err != nil {
			return res, fmt.Errorf("compile %q: %w", q, err)
		}
		if err := bare.Top10(ctx, retrieve.ContentWords(q)); err != nil {
			return res, fmt.Errorf("bare query %q: %w", q, err)
		}
		t2 := time.Now()
		tl = append(tl, ms(t1.Sub(t0)))
		bl = append(bl, ms(t2.Sub(t1)))
	}
	res.Tenure, res.BareFTS = percentiles(tl), percentiles(bl)
	res.RatioP50 = ratio(res.Tenure.P50, res.BareFTS.P50)
	res.RatioP99 = ratio(res.Tenure.P99, res.BareFTS.P99)
	return res, nil
}

// bareTop10 runs the bare query: the question's content words, any of
// them, reading the ten best rows' ids and scores.
func bareTop10(ctx context.Context, stmt *sql.Stmt, ws []string) error {
	var words []string
	for _, w := range ws {
		words = append(words, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	if len(words) == 0 {
		return nil
	}
	rows, err := stmt.QueryContext(ctx, strings.Join(words, " OR "))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return err
		}
	}
	return rows.Err()
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
	fmt.Fprintf(w, "ingestion of %d messages (best of rounds)\n", r.Ingest.Messages)
	fmt.Fprintf(w, "  tenure (full write path)  %10.0f msg/s\n", r.Ingest.TenureRate)
	fmt.Fprintf(w, "  %-25s %10.0f msg/s\n", "bare "+r.Database+" insert", r.Ingest.BareRate)
	fmt.Fprintf(w, "  ratio                     %10.2fx\n\n", r.Ingest.Ratio)
	query := "FTS5 bm25()"
	if r.Database != "SQLite" {
		query = r.Database + " ts_rank()"
	}
	fmt.Fprintf(w, "compile at a %d-token budget vs bare %s top-10, %d queries, ms\n", r.Budget, query, r.Queries)
	fmt.Fprintf(w, "  %-9s  %-22s  %-22s  %s\n", "messages", "tenure p50/p95/p99", "bare p50/p95/p99", "ratio p50, p99")
	for _, c := range r.Compile {
		fmt.Fprintf(w, "  %-9d  %-22s  %-22s  %.1fx, %.1fx\n", c.Messages,
			fmt.Sprintf("%.2f/%.2f/%.2f", c.Tenure.P50, c.Tenure.P95, c.Tenure.P99),
			fmt.Sprintf("%.2f/%.2f/%.2f", c.BareFTS.P50, c.BareFTS.P95, c.BareFTS.P99), c.RatioP50, c.RatioP99)
	}
	return nil
}
