package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/tokenizer"
)

// Options configures a LoCoMo run.
type Options struct {
	// Budgets in tokens (default 500, 1000, 2000, 4000).
	Budgets []int
	// Tokenizer counts budgets and context sizes (default cl100k_base).
	Tokenizer string
	// Variants are extra Tenure configurations to run beside the default
	// one, by name (see Ablations).
	Variants []Variant
	// TempDir holds the per-conversation stores (default os.TempDir()).
	TempDir string
	// Progress, when set, is called after each conversation.
	Progress func(done, total int)
	// Extractor, when set, adds the system "tenure+state": a second store
	// per conversation whose messages also went through state extraction
	// (structured items and facts become candidates beside the turns).
	Extractor extract.Extractor
	// Embedding, when set, embeds every store's messages and has the
	// Tenure systems find them by meaning too; LexicalSystem runs beside
	// them without.
	Embedding *semantic.Model
	// Open opens the stores (default: SQLite files in TempDir).
	Open Opener
}

// StateSystem is the name of the system with structured state.
const StateSystem = "tenure+state"

// StateAblations are the memory-ranking ablations of StateSystem, run
// beside it whenever there is an extractor: memories ranked by
// similarity alone (no recency, no frequency), and without the
// foundation set and the fill of free budget.
var StateAblations = []struct {
	Name    string
	Ranking compile.MemoryRanking
}{
	{StateSystem + "-similarity-only", compile.MemoryRanking{Similarity: 1}},
	{StateSystem + "-no-fill", func() compile.MemoryRanking { r := compile.DefaultMemoryRanking; r.NoFill = true; return r }()},
}

// ExtractionStats reports the state extraction of a run.
type ExtractionStats struct {
	Messages int `json:"messages"`
	// Seconds is the time ingestion plus extraction took, and
	// MessagesPerSecond the messages ingested and extracted per second.
	Seconds           float64 `json:"seconds"`
	MessagesPerSecond float64 `json:"messages_per_second"`
	// IngestOnlyPerSecond is the same stores' ingestion rate without
	// extraction, for comparison.
	IngestOnlyPerSecond float64 `json:"ingest_only_per_second"`
	Items               int     `json:"items"`
	Facts               int     `json:"facts"`
	ingestSeconds       float64
}

// Variant is a named Tenure configuration.
type Variant struct {
	Name    string
	History compile.HistoryOptions
}

// Ablations turns each history mechanism off in turn.
var Ablations = []Variant{
	{"tenure-no-speaker", compile.HistoryOptions{DisableSpeaker: true}},
	{"tenure-no-focus", compile.HistoryOptions{DisableFocus: true}},
	{"tenure-no-roles", compile.HistoryOptions{DisableRoles: true}},
	{"tenure-no-temporal", compile.HistoryOptions{DisableTemporal: true}},
	{"tenure-no-sessions", compile.HistoryOptions{DisableSessions: true}},
	{"tenure-no-neighbors", compile.HistoryOptions{DisableNeighbors: true}},
	{"tenure-no-backfill", compile.HistoryOptions{DisableBackfill: true}},
	{"tenure-no-compact", compile.HistoryOptions{DisableCompact: true}},
}

// Report holds a run's results.
type Report struct {
	Conversations []string `json:"conversations"`
	Questions     int      `json:"questions"`
	Tokenizer     string   `json:"tokenizer"`
	Budgets       []int    `json:"budgets"`
	Systems       []string `json:"systems"`
	// FullTokens is each conversation's size rendered as the baselines
	// render it.
	FullTokens map[string]int `json:"full_conversation_tokens"`
	// Results is indexed by system, then budget.
	Results map[string]map[int]*Result `json:"results"`
	// Extraction is set when the run had an extractor.
	Extraction *ExtractionStats `json:"extraction,omitempty"`
	// Vectors is set when the run had an embedding model.
	Vectors *VectorStats `json:"vectors,omitempty"`
}

// Result aggregates one system at one budget.
type Result struct {
	Overall    Metrics             `json:"overall"`
	Categories map[string]*Metrics `json:"categories"`
	latencies  []float64
	LatencyMS  Percentiles `json:"latency_ms"`
}

// Metrics are means over questions.
type Metrics struct {
	Questions         int     `json:"questions"`
	EvidenceRecall    float64 `json:"evidence_recall"`
	AnswerQuestions   int     `json:"answer_questions"`
	AnswerTokenRecall float64 `json:"answer_token_recall"`
	Tokens            float64 `json:"mean_tokens"`
	evid, ans, tokens float64
	nTok              int
}

// Percentiles summarize latencies.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

func (m *Metrics) add(evid float64, hasEvid bool, ans float64, hasAns bool, tokens int) {
	if hasEvid {
		m.Questions++
		m.evid += evid
	}
	if hasAns {
		m.AnswerQuestions++
		m.ans += ans
	}
	m.nTok++
	m.tokens += float64(tokens)
}

func (m *Metrics) finish() {
	if m.Questions > 0 {
		m.EvidenceRecall = m.evid / float64(m.Questions)
	}
	if m.AnswerQuestions > 0 {
		m.AnswerTokenRecall = m.ans / float64(m.AnswerQuestions)
	}
	if m.nTok > 0 {
		m.Tokens = m.tokens / float64(m.nTok)
	}
}

// RunLoCoMo evaluates every conversation.
func RunLoCoMo(ctx context.Context, convs []Conversation, opt Options) (*Report, error) {
	counter, variants, err := setUp(&opt.Budgets, []int{500, 1000, 2000, 4000}, &opt.Tokenizer, opt.Variants)
	if err != nil {
		return nil, err
	}
	variants = withLexical(variants, opt.Embedding)
	rep := &Report{Tokenizer: opt.Tokenizer, Budgets: opt.Budgets, FullTokens: map[string]int{},
		Results: map[string]map[int]*Result{}, Vectors: newVectorStats(opt.Embedding)}
	for _, v := range variants {
		rep.Systems = append(rep.Systems, v.Name)
	}
	if opt.Extractor != nil {
		rep.Systems = append(rep.Systems, StateSystem)
		for _, a := range StateAblations {
			rep.Systems = append(rep.Systems, a.Name)
		}
		rep.Extraction = &ExtractionStats{}
	}
	rep.Systems = append(rep.Systems, "recency", "bm25-turns")
	for _, name := range rep.Systems {
		rep.Results[name] = map[int]*Result{}
		for _, b := range opt.Budgets {
			rep.Results[name][b] = &Result{Categories: map[string]*Metrics{}}
		}
	}
	for i, conv := range convs {
		if err := runConversation(ctx, conv, opt, variants, counter, rep); err != nil {
			return nil, fmt.Errorf("conversation %s: %w", conv.ID, err)
		}
		rep.Conversations = append(rep.Conversations, conv.ID)
		rep.Questions += len(conv.QA)
		if opt.Progress != nil {
			opt.Progress(i+1, len(convs))
		}
	}
	if x := rep.Extraction; x != nil && x.Seconds > 0 {
		x.MessagesPerSecond = float64(x.Messages) / x.Seconds
		x.IngestOnlyPerSecond = float64(x.Messages) / x.ingestSeconds
	}
	for _, bySys := range rep.Results {
		for _, r := range bySys {
			r.Overall.finish()
			for _, m := range r.Categories {
				m.finish()
			}
			r.LatencyMS = percentiles(r.latencies)
		}
	}
	return rep, nil
}

// setUp applies the defaults a harness shares: the budgets (def when
// none), the tokenizer (cl100k_base) and its counter, and the Tenure
// systems: the default configuration, then the variants.
func setUp(budgets *[]int, def []int, tok *string, variants []Variant) (*tokenizer.Tokenizer, []Variant, error) {
	if len(*budgets) == 0 {
		*budgets = def
	}
	if *tok == "" {
		*tok = tokenizer.CL100KBase
	}
	counter, err := tokenizer.New(*tok)
	if err != nil {
		return nil, nil, err
	}
	return counter, append([]Variant{{Name: "tenure"}}, variants...), nil
}

// evalPrincipal owns the evaluation stores.
var evalPrincipal = tenure.Principal{UserID: "eval", TenantID: "locomo", Authority: "policy", Clearance: tenure.HighlyRestricted}

func runConversation(ctx context.Context, conv Conversation, opt Options, variants []Variant, counter *tokenizer.Tokenizer, rep *Report) error {
	dir, err := os.MkdirTemp(opt.TempDir, "locomo-"+conv.ID+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	msgs := conv.Messages()
	open := opener(opt.Open, dir)
	store, ingest, err := openConversation(ctx, open, "locomo-"+conv.ID, msgs, opt.Embedding)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := rep.Vectors.embed(ctx, store); err != nil {
		return err
	}
	turnText := map[string]string{}
	full := 0
	for _, m := range msgs {
		turnText[m.ID] = m.Text()
		full += counter.Count(turnLine(m)) + 1
	}
	rep.FullTokens[conv.ID] = full
	var systems []System
	for _, v := range variants {
		c := compile.New(store, compilerOptions(v, opt.Embedding))
		systems = append(systems, TenureSystem{Label: v.Name, Compiler: c, Principal: evalPrincipal, Tokenizer: opt.Tokenizer,
			Vectors: rep.Vectors})
	}
	if opt.Extractor != nil {
		st, err := withState(ctx, open, "locomo-state-"+conv.ID, conv, msgs, opt.Extractor, rep.Extraction)
		if err != nil {
			return err
		}
		defer st.Close()
		rep.Extraction.ingestSeconds += ingest.Seconds()
		systems = append(systems, TenureSystem{Label: StateSystem, Compiler: compile.New(st, compile.Options{}),
			Principal: evalPrincipal, Tokenizer: opt.Tokenizer})
		for _, a := range StateAblations {
			systems = append(systems, TenureSystem{Label: a.Name, Compiler: compile.New(st, compile.Options{MemoryRanking: &a.Ranking}),
				Principal: evalPrincipal, Tokenizer: opt.Tokenizer})
		}
	}
	systems = append(systems, NewRecency(counter, msgs), NewBM25(counter, msgs))
	for _, qa := range conv.QA {
		cat := Categories[qa.Category]
		for _, b := range opt.Budgets {
			for _, sys := range systems {
				start := time.Now()
				text, err := sys.Context(ctx, qa.Question, b)
				elapsed := float64(time.Since(start).Microseconds()) / 1000
				if err != nil {
					return fmt.Errorf("%s at %d tokens, %q: %w", sys.Name(), b, qa.Question, err)
				}
				tokens := counter.Count(text)
				if tokens > b {
					return fmt.Errorf("%s produced %d tokens for a %d budget", sys.Name(), tokens, b)
				}
				evid, hasEvid := EvidenceRecall(text, qa.Evidence, turnText)
				var ans float64
				hasAns := false
				if qa.Category != 5 {
					ans, hasAns = AnswerTokenRecall(text, qa.Answer)
				}
				r := rep.Results[sys.Name()][b]
				r.Overall.add(evid, hasEvid, ans, hasAns, tokens)
				m := r.Categories[cat]
				if m == nil {
					m = &Metrics{}
					r.Categories[cat] = m
				}
				m.add(evid, hasEvid, ans, hasAns, tokens)
				r.latencies = append(r.latencies, elapsed)
			}
		}
	}
	return nil
}

func percentiles(xs []float64) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return math.Round(s[max(0, min(i, len(s)-1))]*1000) / 1000
	}
	return Percentiles{P50: at(0.50), P95: at(0.95), P99: at(0.99)}
}

// openConversation opens a fresh store and ingests msgs, timing the
// ingestion.
func openConversation(ctx context.Context, open Opener, name string, msgs []tenure.Message, m *semantic.Model) (*Store, time.Duration, error) {
	store, err := open(ctx, name, m)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	if _, err := store.AppendMessages(ctx, evalPrincipal, msgs); err != nil {
		store.Close()
		return nil, 0, fmt.Errorf("ingest: %w", err)
	}
	return store, time.Since(start), nil
}

// withState opens a second store, ingests msgs and runs state extraction
// over every thread, adding to stats.
func withState(ctx context.Context, open Opener, name string, conv Conversation, msgs []tenure.Message, x extract.Extractor, stats *ExtractionStats) (*Store, error) {
	start := time.Now()
	st, _, err := openConversation(ctx, open, name, msgs, nil)
	if err != nil {
		return nil, err
	}
	threads := map[string]bool{}
	for _, m := range msgs {
		if threads[m.ThreadID] {
			continue
		}
		threads[m.ThreadID] = true
		r, err := st.ExtractAll(ctx, evalPrincipal, m.ThreadID, x)
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("extract state of %s: %w", conv.ID, err)
		}
		stats.Items += r.ItemsInserted
		stats.Facts += r.FactsWritten
	}
	stats.Messages += len(msgs)
	stats.Seconds += time.Since(start).Seconds()
	return st, nil
}
