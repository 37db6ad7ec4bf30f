package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/tokenizer"
)

// LMEOptions configures a LongMemEval run.
type LMEOptions struct {
	// Budgets in tokens (default 1,000, 2,000, 4,000 and 8,000).
	Budgets []int
	// Tokenizer counts budgets and context sizes (default cl100k_base).
	Tokenizer string
	// Variants are extra Tenure configurations (see Ablations).
	Variants []Variant
	// TempDir holds the per-question stores (default os.TempDir()).
	TempDir string
	// Progress, when set, is called after each question.
	Progress func(done, total int)
	// Embedding, when set, embeds every haystack and has the Tenure
	// systems find turns by meaning too; LexicalSystem runs beside them
	// without.
	Embedding *semantic.Model
	// Open opens the stores (default: SQLite files in TempDir).
	Open Opener
}

// LMEReport holds a LongMemEval run's results.
type LMEReport struct {
	Questions int       `json:"questions"`
	Loaded    LoadStats `json:"loaded"`
	Tokenizer string    `json:"tokenizer"`
	Budgets   []int     `json:"budgets"`
	Systems   []string  `json:"systems"`
	// Types counts the questions of each type.
	Types map[string]int `json:"types"`
	// Haystack is the size of the questions' histories, rendered as the
	// baselines render them.
	Haystack HaystackSize `json:"haystack"`
	Ingest   IngestStats  `json:"ingest"`
	// Results is indexed by system, then budget.
	Results map[string]map[int]*LMEResult `json:"results"`
	// Vectors is set when the run had an embedding model.
	Vectors *VectorStats `json:"vectors,omitempty"`
}

// HaystackSize describes the histories of a run's questions.
type HaystackSize struct {
	Sessions   float64 `json:"mean_sessions"`
	Messages   float64 `json:"mean_messages"`
	MinTokens  int     `json:"min_tokens"`
	MaxTokens  int     `json:"max_tokens"`
	MeanTokens int     `json:"mean_tokens"`
	// Sums over the questions, for the means.
	sumTok, sumS, sumM int
}

// IngestStats times the ingestion of the haystacks into Tenure's store:
// the full write path, then the full-text index brought up to date
// (searchable), per question.
type IngestStats struct {
	Messages          int         `json:"messages"`
	Seconds           float64     `json:"seconds"`
	MessagesPerSecond float64     `json:"messages_per_second"`
	PerQuestionMS     Percentiles `json:"per_question_ms"`
	perQuestion       []float64
}

// LMEResult aggregates one system at one budget.
type LMEResult struct {
	Overall   LMEMetrics             `json:"overall"`
	Types     map[string]*LMEMetrics `json:"types"`
	LatencyMS Percentiles            `json:"latency_ms"`
	latencies []float64
}

// LMEMetrics are means over questions (abstention questions excluded).
type LMEMetrics struct {
	Questions int `json:"questions"`
	// EvidenceRecall is the share of a question's evidence turns
	// (has_answer) present in the context; RecallAll is 1 when all are.
	EvidenceRecall float64 `json:"evidence_recall"`
	RecallAll      float64 `json:"recall_all"`
	// SessionRecall is the share of answer sessions with a turn present.
	SessionRecall float64 `json:"session_recall"`
	// Sessions ranked as units: every answer session in the top 5 or 10,
	// and NDCG@5 with binary relevance.
	SessionRecallAll5  float64 `json:"session_recall_all@5"`
	SessionRecallAll10 float64 `json:"session_recall_all@10"`
	SessionNDCG5       float64 `json:"session_ndcg@5"`
	Tokens             float64 `json:"mean_tokens"`
	sum                [7]float64
}

func (m *LMEMetrics) add(s lmeScore) {
	m.Questions++
	for i, v := range []float64{s.evidence, b2f(s.all), s.sessions, b2f(s.all5), b2f(s.all10), s.ndcg5, float64(s.tokens)} {
		m.sum[i] += v
	}
}

func (m *LMEMetrics) finish() {
	if m.Questions == 0 {
		return
	}
	n := float64(m.Questions)
	m.EvidenceRecall, m.RecallAll, m.SessionRecall = m.sum[0]/n, m.sum[1]/n, m.sum[2]/n
	m.SessionRecallAll5, m.SessionRecallAll10, m.SessionNDCG5, m.Tokens = m.sum[3]/n, m.sum[4]/n, m.sum[5]/n, m.sum[6]/n
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// lmeSystem builds a question's context and ranks its sessions.
type lmeSystem interface {
	Name() string
	// Retrieve returns the context within budget and the sessions in the
	// order the system ranks them (best first; unranked sessions left
	// out).
	Retrieve(ctx context.Context, q string, budget int) (string, []string, error)
}

// Baseline names.
const (
	SystemRecency      = "recency"
	SystemBM25Turns    = "bm25-turns"
	SystemBM25Sessions = "bm25-sessions"
)

// RunLongMemEval evaluates every question: a fresh store per question
// holds its haystack, and each system builds a context for the question
// at every budget.
func RunLongMemEval(ctx context.Context, qs []Question, opt LMEOptions) (*LMEReport, error) {
	counter, variants, err := setUp(&opt.Budgets, []int{1000, 2000, 4000, 8000}, &opt.Tokenizer, opt.Variants)
	if err != nil {
		return nil, err
	}
	variants = withLexical(variants, opt.Embedding)
	rep := &LMEReport{Tokenizer: opt.Tokenizer, Budgets: opt.Budgets, Types: map[string]int{},
		Results: map[string]map[int]*LMEResult{}, Vectors: newVectorStats(opt.Embedding)}
	for _, v := range variants {
		rep.Systems = append(rep.Systems, v.Name)
	}
	rep.Systems = append(rep.Systems, SystemBM25Turns, SystemBM25Sessions, SystemRecency)
	for _, name := range rep.Systems {
		rep.Results[name] = map[int]*LMEResult{}
		for _, b := range opt.Budgets {
			rep.Results[name][b] = &LMEResult{Types: map[string]*LMEMetrics{}}
		}
	}
	for i, q := range qs {
		if err := runQuestion(ctx, q, opt, variants, counter, rep); err != nil {
			return nil, fmt.Errorf("question %s: %w", q.ID, err)
		}
		rep.Questions++
		rep.Types[q.Type]++
		if opt.Progress != nil {
			opt.Progress(i+1, len(qs))
		}
	}
	if n := rep.Questions; n > 0 {
		h := &rep.Haystack
		h.Sessions, h.Messages, h.MeanTokens = float64(h.sumS)/float64(n), float64(h.sumM)/float64(n), h.sumTok/n
	}
	if in := &rep.Ingest; in.Seconds > 0 {
		in.MessagesPerSecond = float64(in.Messages) / in.Seconds
		in.PerQuestionMS = percentiles(in.perQuestion)
	}
	for _, bySys := range rep.Results {
		for _, r := range bySys {
			r.Overall.finish()
			for _, m := range r.Types {
				m.finish()
			}
			r.LatencyMS = percentiles(r.latencies)
		}
	}
	return rep, nil
}

// lmePrincipal is the user every haystack belongs to.
var lmePrincipal = tenure.Principal{UserID: "user", TenantID: "longmemeval", Authority: "policy", Clearance: tenure.HighlyRestricted}

func runQuestion(ctx context.Context, q Question, opt LMEOptions, variants []Variant, counter *tokenizer.Tokenizer, rep *LMEReport) error {
	dir, err := os.MkdirTemp(opt.TempDir, "longmemeval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := opener(opt.Open, dir)(ctx, "longmemeval-"+q.ID, opt.Embedding)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	if _, err := store.ImportMessages(ctx, lmePrincipal, q.Messages, nil); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if err := store.IndexMessages(ctx); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	took := time.Since(start)
	if err := rep.Vectors.embed(ctx, store); err != nil {
		return err
	}
	rep.Ingest.Messages += len(q.Messages)
	rep.Ingest.Seconds += took.Seconds()
	rep.Ingest.perQuestion = append(rep.Ingest.perQuestion, ms(took))

	gold := newLMEGold(q)
	var systems []lmeSystem
	for _, v := range variants {
		copt := compilerOptions(v, opt.Embedding)
		copt.Now = func() time.Time { return q.Date }
		systems = append(systems, &lmeTenure{label: v.Name, c: compile.New(store, copt), thread: q.ID, tokenizer: opt.Tokenizer,
			session: gold.sessionOf, vectors: rep.Vectors})
	}
	systems = append(systems, newLMEBM25Turns(counter, q.Messages), newBM25Sessions(counter, q.Messages), newLMERecency(counter, q.Messages))

	h := &rep.Haystack
	full := 0
	for _, m := range q.Messages {
		full += counter.Count(turnLine(m)) + 1
	}
	if h.MinTokens == 0 || full < h.MinTokens {
		h.MinTokens = full
	}
	h.MaxTokens = max(h.MaxTokens, full)
	h.sumTok += full
	h.sumS += len(gold.sessions)
	h.sumM += len(q.Messages)

	for _, b := range opt.Budgets {
		for _, sys := range systems {
			t0 := time.Now()
			text, ranked, err := sys.Retrieve(ctx, q.Question, b)
			elapsed := ms(time.Since(t0))
			if err != nil {
				return fmt.Errorf("%s at %d tokens: %w", sys.Name(), b, err)
			}
			tokens := counter.Count(text)
			if tokens > b {
				return fmt.Errorf("%s produced %d tokens for a %d budget", sys.Name(), tokens, b)
			}
			s := gold.score(text, ranked)
			s.tokens = tokens
			r := rep.Results[sys.Name()][b]
			r.Overall.add(s)
			m := r.Types[q.Type]
			if m == nil {
				m = &LMEMetrics{}
				r.Types[q.Type] = m
			}
			m.add(s)
			r.latencies = append(r.latencies, elapsed)
		}
	}
	return nil
}

// lmeGold holds what scores a question: its evidence turns and answer
// sessions, and each session's distinctive turns.
type lmeGold struct {
	evidence []string // normalized texts
	answers  []string // answer session ids
	// distinctive are, per session, the normalized texts of its turns
	// that identify it: no other turn of the haystack has the same text,
	// and the text is at least minDistinctive bytes long ("Thanks!" in a
	// context says nothing about which session it came from).
	distinctive map[string][]string
	sessions    map[string]bool
	sessionOf   map[string]string // message id → session id
}

const minDistinctive = 20

func newLMEGold(q Question) *lmeGold {
	g := &lmeGold{answers: q.AnswerSessions, distinctive: map[string][]string{}, sessions: map[string]bool{},
		sessionOf: map[string]string{}}
	text := map[string]string{}
	count := map[string]int{}
	for _, m := range q.Messages {
		t := normalizeText(m.Content)
		text[m.ID] = t
		count[t]++
		g.sessions[m.SessionID] = true
		g.sessionOf[m.ID] = m.SessionID
	}
	for _, m := range q.Messages {
		if t := text[m.ID]; count[t] == 1 && len(t) >= minDistinctive {
			g.distinctive[m.SessionID] = append(g.distinctive[m.SessionID], t)
		}
	}
	for _, id := range q.Evidence {
		g.evidence = append(g.evidence, text[id])
	}
	return g
}

// lmeScore is one context's score.
type lmeScore struct {
	evidence, sessions, ndcg5 float64
	all, all5, all10          bool
	tokens                    int
}

// score scores a context and a session ranking. A turn is present when
// its text, normalized (see normalizeText), is a substring of the
// context, normalized alike.
func (g *lmeGold) score(context string, ranked []string) lmeScore {
	ctx := normalizeText(context)
	var s lmeScore
	hit := 0
	for _, t := range g.evidence {
		if strings.Contains(ctx, t) {
			hit++
		}
	}
	s.evidence = float64(hit) / float64(len(g.evidence))
	s.all = hit == len(g.evidence)
	if len(g.answers) > 0 {
		found := 0
		for _, sid := range g.answers {
			for _, t := range g.distinctive[sid] {
				if strings.Contains(ctx, t) {
					found++
					break
				}
			}
		}
		s.sessions = float64(found) / float64(len(g.answers))
	}
	s.all5, s.all10, s.ndcg5 = rankedRecallAll(ranked, g.answers, 5), rankedRecallAll(ranked, g.answers, 10), ndcg(ranked, g.answers, 5)
	return s
}

// rankedRecallAll reports whether every relevant id is among the first k
// ranked.
func rankedRecallAll(ranked, relevant []string, k int) bool {
	top := ranked[:min(k, len(ranked))]
	for _, id := range relevant {
		found := false
		for _, r := range top {
			if r == id {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ndcg is the normalized discounted cumulative gain of the first k ranked
// with binary relevance.
func ndcg(ranked, relevant []string, k int) float64 {
	rel := map[string]bool{}
	for _, id := range relevant {
		rel[id] = true
	}
	dcg, ideal := 0.0, 0.0
	for i := 0; i < k; i++ {
		if i < len(ranked) && rel[ranked[i]] {
			dcg += 1 / math.Log2(float64(i+2))
		}
		if i < len(rel) {
			ideal += 1 / math.Log2(float64(i+2))
		}
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// lmeTenure is a Tenure compiler over a question's store.
type lmeTenure struct {
	label     string
	c         *compile.Compiler
	thread    string
	tokenizer string
	session   map[string]string
	vectors   *VectorStats
}

func (s *lmeTenure) Name() string { return s.label }

// Retrieve implements lmeSystem. Sessions are ranked by the best score of
// their turns in the envelope.
func (s *lmeTenure) Retrieve(ctx context.Context, q string, budget int) (string, []string, error) {
	env, tr, err := s.c.Compile(ctx, compile.Request{Principal: lmePrincipal, Query: q, Budget: budget, ThreadID: s.thread,
		Tokenizer: s.tokenizer, TaskType: tenure.TaskQuestionAnswering})
	if err != nil {
		return "", nil, err
	}
	s.vectors.count(tr)
	compiled := append([]compile.CompiledObject(nil), tr.Compiled...)
	sort.SliceStable(compiled, func(i, j int) bool { return compiled[i].Score > compiled[j].Score })
	prefix := "msg:" + s.thread + ":"
	var ranked []string
	seen := map[string]bool{}
	for _, o := range compiled {
		if o.Section != compile.SectionHistory || !strings.HasPrefix(o.ObjectID, prefix) {
			continue
		}
		if sid, ok := s.session[strings.TrimPrefix(o.ObjectID, prefix)]; ok && !seen[sid] {
			seen[sid] = true
			ranked = append(ranked, sid)
		}
	}
	return env.Text(), ranked, nil
}

// lmeRecency is the recency baseline; its sessions rank newest first.
type lmeRecency struct {
	*RecencySystem
	sessions []string
}

func newLMERecency(c Counter, msgs []tenure.Message) *lmeRecency {
	s := &lmeRecency{RecencySystem: NewRecency(c, msgs)}
	first := map[string]time.Time{}
	for _, m := range msgs {
		if t, ok := first[m.SessionID]; !ok || m.CreatedAt.Before(t) {
			first[m.SessionID] = m.CreatedAt
		}
	}
	s.sessions = sessionsOf(msgs)
	sort.SliceStable(s.sessions, func(i, j int) bool { return first[s.sessions[i]].After(first[s.sessions[j]]) })
	return s
}

func (s *lmeRecency) Retrieve(ctx context.Context, q string, budget int) (string, []string, error) {
	text, err := s.Context(ctx, q, budget)
	return text, s.sessions, err
}

// sessionsOf lists the sessions of msgs in order of their first message.
func sessionsOf(msgs []tenure.Message) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m.SessionID] {
			seen[m.SessionID] = true
			out = append(out, m.SessionID)
		}
	}
	return out
}

// lmeBM25Turns is the bm25-turns baseline; its sessions rank by their
// best turn.
type lmeBM25Turns struct {
	*BM25System
	session []string
}

func newLMEBM25Turns(c Counter, msgs []tenure.Message) *lmeBM25Turns {
	s := &lmeBM25Turns{BM25System: NewBM25(c, msgs)}
	for _, m := range msgs {
		s.session = append(s.session, m.SessionID)
	}
	return s
}

func (s *lmeBM25Turns) Retrieve(ctx context.Context, q string, budget int) (string, []string, error) {
	text, err := s.Context(ctx, q, budget)
	if err != nil {
		return "", nil, err
	}
	scores := s.index.Scores(retrieve.Terms(q))
	var ranked []string
	seen := map[string]bool{}
	for _, i := range byScore(scores) {
		if scores[i] > 0 && !seen[s.session[i]] {
			seen[s.session[i]] = true
			ranked = append(ranked, s.session[i])
		}
	}
	return text, ranked, nil
}

// BM25Sessions ranks whole sessions with plain BM25 (a session's text is
// all its turns, both roles) and packs their turns best session first, in
// order, each turn that still fits.
type BM25Sessions struct {
	lines    []string
	tokens   []int
	sessions []string
	turns    [][]int // per session, its lines
	index    *retrieve.BM25
}

func newBM25Sessions(c Counter, msgs []tenure.Message) *BM25Sessions {
	s := &BM25Sessions{}
	at := map[string]int{}
	var docs [][]string
	for i, m := range msgs {
		s.lines = append(s.lines, turnLine(m))
		k, ok := at[m.SessionID]
		if !ok {
			k = len(s.sessions)
			at[m.SessionID] = k
			s.sessions = append(s.sessions, m.SessionID)
			s.turns = append(s.turns, nil)
			docs = append(docs, nil)
		}
		s.turns[k] = append(s.turns[k], i)
		docs[k] = retrieve.AppendTerms(docs[k], m.Text())
	}
	s.tokens = countLines(c, s.lines)
	s.index = retrieve.NewBM25(docs)
	return s
}

// Name implements System.
func (s *BM25Sessions) Name() string { return SystemBM25Sessions }

// Retrieve implements lmeSystem.
func (s *BM25Sessions) Retrieve(_ context.Context, q string, budget int) (string, []string, error) {
	scores := s.index.Scores(retrieve.Terms(q))
	var ranked []string
	var lines []int
	for _, k := range byScore(scores) {
		if scores[k] <= 0 {
			break
		}
		ranked = append(ranked, s.sessions[k])
		lines = append(lines, s.turns[k]...)
	}
	return pack(s.lines, s.tokens, lines, budget), ranked, nil
}
