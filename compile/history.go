package compile

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/temporal"
)

// MessageSource supplies past conversation messages. When the Source given
// to New also implements it, past messages are candidates of every
// compilation, in the history section.
type MessageSource interface {
	MessageCandidates(ctx context.Context, q tenure.MessageQuery) ([]tenure.ScoredMessage, error)
}

// HistoryOptions tunes how past messages are retrieved and shown. The zero
// value enables every mechanism; the Disable fields exist for ablations.
type HistoryOptions struct {
	// Limit caps full-text matches (default: a tenth of the budget in
	// tokens, at least 50 — about three times the turns that fit);
	// Neighbors is how many turns around each match are considered too
	// (default 1; the ten best matches bring one more on each side).
	Limit     int
	Neighbors int
	// DisableSpeaker turns off the boost for turns by a speaker the query
	// names.
	DisableSpeaker bool
	// DisableFocus turns off speaker focus: a named speaker's own turns
	// that share no other word with the query ranked by how much they say.
	DisableFocus bool
	// DisableTemporal turns off resolved dates: the search boost, the
	// boost for turns written in (or about) a period the query names, as a
	// date ("in July 2022", "on 3 June, 2023") or relative to the time of
	// the compilation ("two weeks ago", "last month"), and the "yesterday
	// = 7 May 2023" annotations.
	DisableTemporal bool
	// DisableRoles weighs the assistant's turns like the user's even
	// when the query is not about what the assistant said.
	DisableRoles bool
	// DisableSessions turns off session-level routing.
	DisableSessions bool
	// DisableNeighbors turns off neighbouring-turn rescue.
	DisableNeighbors bool
	// Recent is how many of the latest messages fill what budget the
	// matches leave (default: a twentieth of the budget in tokens, at least
	// 20); DisableBackfill turns that off.
	Recent          int
	DisableBackfill bool
	// DisableCompact renders every turn with its full date instead of
	// grouping turns under one date line per session.
	DisableCompact bool
	// DisableVectors ranks past messages lexically even when the
	// compiler has a MessageEmbedder.
	DisableVectors bool
	// Fusion combines vector and lexical relevance (default FusionOr);
	// VectorLimit caps the nearest messages added (default: as many as
	// Limit's full-text matches).
	Fusion      Fusion
	VectorLimit int
}

// history weights.
const (
	speakerBoost  = 1.25
	temporalBonus = 0.15
	periodBonus   = 0.3  // written in, or about, a day or month the query names
	sessionFloor  = 0.75 // a turn in the least relevant session keeps this share
	// A turn scores this share of the match right before it (a reply:
	// often the answer) or right after it (often the question asked);
	// half that two turns away.
	replyShare      = 0.6
	promptShare     = 0.4
	sessionTopTurns = 3
)

// addHistory fetches past messages (step 1).
func (r *run) addHistory(ctx context.Context) error {
	ms, ok := r.c.src.(MessageSource)
	if !ok {
		return nil
	}
	h := r.c.opt.History
	limit, neighbors := h.Limit, h.Neighbors
	if limit <= 0 {
		limit = max(50, r.req.Budget/10)
	}
	if neighbors <= 0 {
		neighbors = 1
	}
	wide := wideMatches
	if h.DisableNeighbors {
		neighbors, wide = 0, 0
	}
	recent := h.Recent
	if recent <= 0 {
		recent = max(20, r.req.Budget/20)
	}
	if h.DisableBackfill {
		recent = 0
	}
	q := tenure.MessageQuery{Principal: r.p, Scope: r.scope, Text: r.search,
		Limit: min(limit, 10_000), Neighbors: min(neighbors, 10), WideMatches: wide, Recent: min(recent, 10_000),
		RecentUnlessTokens: backfillUnless * r.req.Budget, Before: r.req.AsOf, Threads: r.threads}
	r.embedQuery(ctx, &q)
	msgs, err := ms.MessageCandidates(ctx, q)
	if err != nil {
		return err
	}
	r.countVectors(msgs)
	inTail := map[string]bool{}
	for _, m := range r.req.Tail {
		inTail[m.ID] = true
	}
	// One allocation for all the items: a compilation holds hundreds.
	pool, objs := make([]item, len(msgs)), make([]tenure.Object, len(msgs))
	for i := range msgs {
		sm := &msgs[i]
		if sm.TenantID != r.p.TenantID || inTail[sm.ID] {
			continue
		}
		o := &objs[i]
		*o = r.inputObject("msg:"+sm.ThreadID+":"+sm.ID, sm.Text(), tenure.TypeFact, messageLevel(sm.Role), "message://"+sm.ThreadID+"/"+sm.ID)
		o.ValidFrom, o.LastConfirmed, o.SessionID = sm.CreatedAt, sm.CreatedAt, sm.SessionID
		pool[i] = item{obj: newObject(o), origin: fromMessage, section: SectionHistory, hist: sm}
		r.items = append(r.items, &pool[i])
	}
	return nil
}

func messageLevel(role string) int {
	switch role {
	case "assistant":
		return tenure.LevelInferred
	case "tool":
		return tenure.LevelRetrieved
	}
	return tenure.LevelUser
}

// rankHistory scores past messages (step 5): full-text relevance, a boost
// for the speaker the query names and for dated turns when the query asks
// about time, session-level routing, and neighbours that share their
// match's relevance.
func (r *run) rankHistory() {
	items := r.live(SectionHistory)
	if len(items) == 0 {
		return
	}
	h := r.c.opt.History
	top := 0.0
	for _, it := range items {
		top = math.Max(top, it.hist.Score)
	}
	qwords := map[string]bool{}
	for _, w := range retrieve.Words(r.search) {
		qwords[w] = true
	}
	temporalQ := !h.DisableTemporal && isTemporalQuery(r.req.Query)
	var periods []span
	if !h.DisableTemporal {
		periods = queryPeriods(r.req.Query, r.at)
	}
	for _, it := range items {
		if top > 0 {
			it.lex = it.hist.Score / top
		}
	}
	if v := r.trace.Retrieval.HistoryVectors; v != nil && v.Fused {
		fuse(items, h.Fusion)
	}
	for _, it := range items {
		s := it.lex
		if !h.DisableSpeaker && it.hist.Speaker != "" && namedIn(it.hist.Speaker, qwords) {
			s *= speakerBoost
		}
		if temporalQ && len(it.hist.Dates) > 0 && s > 0 {
			s += temporalBonus
		}
		if len(periods) > 0 && inPeriods(it.hist, periods) {
			s += periodBonus
		}
		it.score = s
	}
	if !h.DisableFocus {
		focusSpeakers(items, r.req.Query, qwords)
	}
	if !h.DisableNeighbors {
		shareWithNeighbors(items)
	}
	if !h.DisableSessions {
		routeSessions(items)
	}
	if !h.DisableRoles {
		weighRoles(items, r.req.Query)
	}
	max := 0.0
	for _, it := range items {
		max = math.Max(max, it.score)
	}
	for _, it := range items {
		if max > 0 {
			it.score /= max
		}
		it.rec = 1
	}
	if !h.DisableBackfill {
		backfill(items)
	}
}

// wideMatches is how many of the best matches bring the turns two away
// too, which shareWithNeighbors gives a share: a question often follows a
// strong match, and its answer comes after it. Around every match that
// would cost a quarter more candidate rows for little.
const wideMatches = 10

// backfillUnless: the latest turns are not fetched for the backfill when
// the matches and their neighbours already hold this many budgets' worth of
// tokens. Backfill ranks below all of them, so the budget would be gone
// before it came up; the query it saves is a fifth of the candidate rows.
const backfillUnless = 2

// backfillScore is the most a message that matched nothing scores: below
// every match, so that it only takes budget the matches left.
const backfillScore = 0.01

// backfill scores the messages that matched nothing by recency, the latest
// highest: with budget to spare, the recent conversation is the best
// context left.
func backfill(items []*item) {
	var rest []*item
	for _, it := range items {
		if it.score <= 0 {
			rest = append(rest, it)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].hist.Seq < rest[j].hist.Seq })
	for i, it := range rest {
		it.score = backfillScore * float64(i+1) / float64(len(rest))
	}
}

// namedIn reports whether any word of a speaker's name is a query word.
func namedIn(speaker string, qwords map[string]bool) bool {
	for _, w := range retrieve.Words(speaker) {
		if qwords[w] {
			return true
		}
	}
	return false
}

// isTemporalQuery reports whether a query asks about time.
func isTemporalQuery(q string) bool {
	l := strings.ToLower(q)
	for _, cue := range []string{"when ", "what date", "which date", "what year", "which year", "what month", "which month",
		"how long ago", "what day", "which day", "what time", "how many years", "how many months", "how many weeks", "how many days"} {
		if strings.Contains(l, cue) {
			return true
		}
	}
	return strings.HasPrefix(l, "when")
}

// shareWithNeighbors adds to each turn a share of every match next to it:
// the turn before an answer is often its question, and a reply to a match
// more often holds what was asked for than the turn that led to it. The
// shares add up, so a turn inside an exchange that matches on both sides
// (a reply between the question it answers and the follow-up that names
// the topic again) outranks a turn next to one match only. A turn that is
// a weak match itself keeps its own score too, so that a larger candidate
// limit (which turns more neighbours into weak matches) never ranks it
// lower.
func shareWithNeighbors(items []*item) {
	type key struct {
		thread string
		pos    int64
	}
	at := make(map[key]int, len(items))
	own := make([]float64, len(items))
	for i, it := range items {
		at[key{it.hist.ThreadID, it.hist.Pos}] = i
		own[i] = it.score
	}
	for _, it := range items {
		for _, d := range []int64{-2, -1, 1, 2} {
			if j, ok := at[key{it.hist.ThreadID, it.hist.Pos + d}]; ok && items[j].lex > 0 {
				it.score += neighborShare(d) * own[j]
			}
		}
	}
}

// neighborShare is the share of a match d positions away (d < 0: the
// match came before).
func neighborShare(d int64) float64 {
	w := promptShare
	if d < 0 {
		w = replyShare
	}
	if d == -2 || d == 2 {
		w /= 2
	}
	return w
}

// routeSessions scales turns by the relevance of their session (the sum of
// its best turns), so that a session that is about the query as a whole
// wins over a stray match elsewhere.
func routeSessions(items []*item) {
	scores := map[string][]float64{}
	for _, it := range items {
		k := it.hist.ThreadID + "\x00" + it.hist.SessionID
		scores[k] = append(scores[k], it.score)
	}
	sessionScore := map[string]float64{}
	best := 0.0
	for k, s := range scores {
		sort.Sort(sort.Reverse(sort.Float64Slice(s)))
		sum := 0.0
		for i := 0; i < len(s) && i < sessionTopTurns; i++ {
			sum += s[i]
		}
		sessionScore[k] = sum
		best = math.Max(best, sum)
	}
	if best == 0 {
		return
	}
	for _, it := range items {
		k := it.hist.ThreadID + "\x00" + it.hist.SessionID
		it.score *= sessionFloor + (1-sessionFloor)*sessionScore[k]/best
	}
}

// renderHistory renders a past message as one line: compactly its speaker
// and text (the date goes on the session's header line), with the dates
// its temporal expressions resolve to. Ids stay in the trace: in the
// prompt they would cost a tenth of every turn and tell the model nothing.
func (r *run) renderHistory(it *item) string {
	m := it.hist
	var b strings.Builder
	if r.c.opt.History.DisableCompact {
		fmt.Fprintf(&b, "[%s] %s: ", m.CreatedAt.Format("3:04 pm on 2 January 2006"), speakerOf(m))
	} else {
		fmt.Fprintf(&b, "%s: ", speakerOf(m))
	}
	if m.Role == "tool" {
		// Tool output is data, never a turn anyone said.
		b.WriteString(wrapInline(m.ID, "message://"+m.ThreadID+"/"+m.ID, m.Text()))
	} else {
		b.WriteString(inlineText(m.Text()))
	}
	if !r.c.opt.History.DisableTemporal && len(m.Dates) > 0 {
		b.WriteString(" (")
		for i, d := range m.Dates {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(inlineText(d.Expr))
			b.WriteString(" = ")
			b.WriteString(temporal.Format(d))
		}
		b.WriteString(")")
	}
	b.WriteString(r.replacementNote(m))
	return b.String()
}

// speakerOf names who said a past message: the speaker's name (quoted
// when it reads as structure) or the role.
func speakerOf(m *tenure.ScoredMessage) string {
	if m.Speaker != "" {
		return speakerLabel(m.Speaker)
	}
	return m.Role
}

// historyGroup returns the session a history line is shown under and the
// session's header line: its date, which every turn of it shares. The
// session id is left out, as it tells the model nothing.
func (r *run) historyGroup(it *item) (string, string) {
	m := it.hist
	if r.c.opt.History.DisableCompact {
		return "", ""
	}
	return m.ThreadID + "\x00" + m.SessionID, "[" + m.CreatedAt.Format("2 January 2006") + "]"
}

// historyOrder sorts history lines chronologically for display.
func historyOrder(it *item) (time.Time, int64) { return it.hist.CreatedAt, it.hist.Seq }
