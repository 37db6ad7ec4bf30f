package summarize

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tenure-dev/tenure"
)

// Extractive summarizes without a model, by picking salient sentences. It
// is deterministic, needs no I/O and never blocks; it ignores ctx, so that
// it still answers when a model used up the caller's deadline. The zero
// value is ready to use (default Options). It is safe for concurrent use.
//
// A sentence's salience is its content-word centrality (the stems it
// shares with the other sentences, normalized for length), plus bonuses
// for names, numbers, dates, decisions and commitments; sentences of
// assistant messages weigh less than the user's, and those of the previous
// rolling summary less than new ones. New sentences of little salience
// (fewer than four content words and nothing of note) are never picked,
// even when there is room for them.
type Extractive struct {
	opt Options
}

var _ Summarizer = (*Extractive)(nil)

// NewExtractive returns an extractive summarizer. It does no I/O.
func NewExtractive(opt Options) *Extractive {
	return &Extractive{opt: opt.withDefaults()}
}

// Name returns "extractive".
func (e *Extractive) Name() string { return "extractive" }

// Salience weights.
const (
	bonusEntity    = 0.6
	bonusNumber    = 0.6
	bonusDate      = 0.6
	bonusDecision  = 1.0
	assistantScale = 0.8
	previousScale  = 0.9
	// minSalience is the least unscaled salience of a new sentence worth
	// picking: four distinct content words, or three and a name.
	minSalience = 2.0
	// duplicate is the share of content words two sentences have in
	// common above which only the more salient one is kept.
	duplicate = 0.7
)

// unit is a sentence of a message or of the previous summary.
type unit struct {
	// line is the sentence as rendered: "Speaker: text".
	line string
	// text is the sentence without the speaker.
	text  string
	lower string
	toks  []token
	terms []string
	// msg is the index of the message, -1 for the previous summary; key
	// tells speakers apart (the speaker, else the role); pos orders units.
	msg       int
	key, role string
	pos       int

	question, commit, decision, entity, number, date bool
	// base is the salience before scaling for role and age; score after.
	base, score float64
}

// Rolling implements Summarizer. The result has one sentence per line,
// each prefixed with its speaker ("Caroline: I'll call the agency on
// Monday."), in the order they were said. When the new sentences and the
// previous ones do not all fit, the least salient are dropped, old or new.
// It returns no errors.
func (e *Extractive) Rolling(_ context.Context, prev string, msgs []tenure.Message) (string, error) {
	o := e.opt.withDefaults()
	prev = strings.ToValidUTF8(prev, "\uFFFD")
	if !hasText(msgs) && o.fits(prev) {
		return prev, nil
	}
	limit := min(MaxItemChars, o.MaxChars)
	old := previousUnits(prev, limit)
	us := append(old, messageUnits(msgs, limit, len(old))...)
	score(us, speakers(msgs))

	order := make([]*unit, 0, len(us))
	for i := range us {
		if eligible(&us[i]) {
			order = append(order, &us[i])
		}
	}
	slices.SortStableFunc(order, bySalience)
	var chosen []*unit
	chars := 0
	for _, u := range order {
		if duplicates(u, chosen) {
			continue
		}
		n := utf8.RuneCountInString(u.line) + boolInt(len(chosen) > 0)
		if chars+n > o.MaxChars {
			continue
		}
		if o.MaxTokens > 0 && !o.fits(render(append(slices.Clone(chosen), u))) {
			continue
		}
		chosen = append(chosen, u)
		chars += n
	}
	return render(chosen), nil
}

// Session implements Summarizer. The one-liner is the most central
// statement; what_mattered the most salient other statements; open_loops
// the questions nobody answered within the next four messages (by sharing
// a content word, a yes or no to a yes/no question, a number or date to a
// "when" or "how many" question, a name to a "who" question); commitments
// the first-person statements about the future; people the speakers, then
// the capitalized names mentioned, unless only at the start of sentences
// or where places go ("in Lisbon"); tone the balance of a small lexicon of
// positive and negative words (positive, negative, mixed or neutral). List
// entries are in the order they were said, each prefixed with its speaker.
// Errors: tenure.CodeInvalid when no message has text.
func (e *Extractive) Session(_ context.Context, msgs []tenure.Message) (SessionSummary, error) {
	us := messageUnits(msgs, MaxItemChars, 0)
	if len(us) == 0 {
		return SessionSummary{}, tenure.Errorf(tenure.CodeInvalid, "messages", "no message text to summarize")
	}
	names := speakers(msgs)
	score(us, names)

	var s SessionSummary
	one := oneLiner(us)
	s.OneLiner = clampText(one.line, MaxOneLinerChars)
	open := openLoops(us)
	var commits, mattered []*unit
	for i := range us {
		u := &us[i]
		switch {
		case u.commit:
			commits = append(commits, u)
		case u != one && !u.question && eligible(u):
			mattered = append(mattered, u)
		}
	}
	s.WhatMattered = lines(top(mattered, MaxItems))
	s.OpenLoops = lines(top(open, MaxItems))
	s.Commitments = lines(top(commits, MaxItems))
	s.People = people(us, names)
	s.Tone = tone(us)
	s.Clamp()
	return s, nil
}

// previousUnits parses a previous rolling summary into units, taking a
// leading "Speaker: " of a sentence for its speaker.
func previousUnits(prev string, limit int) []unit {
	var us []unit
	for _, s := range splitSentences(prev) {
		line := clampText(s, limit)
		text := line
		if i := strings.Index(line, ": "); i > 0 && i <= 40 && isSpeakerLabel(line[:i]) {
			text = line[i+2:]
		}
		us = append(us, newUnit(line, text, -1, "", "", len(us)))
	}
	return us
}

func isSpeakerLabel(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) && len(strings.Fields(s)) <= 4 && !strings.ContainsAny(s, ".!?:")
}

// messageUnits splits the user and assistant messages into units; pos
// numbering starts at base.
func messageUnits(msgs []tenure.Message, limit, base int) []unit {
	sentences := make([][]string, len(msgs))
	n := 0
	for i := range msgs {
		if m := &msgs[i]; m.Role == "user" || m.Role == "assistant" {
			sentences[i] = splitSentences(m.Text())
			n += len(sentences[i])
		}
	}
	us := make([]unit, 0, n)
	for i := range msgs {
		m := &msgs[i]
		if len(sentences[i]) == 0 {
			continue
		}
		who := displayName(m)
		key := m.Speaker
		if key == "" {
			key = m.Role
		}
		for _, s := range sentences[i] {
			line := clampText(who+": "+s, limit)
			text := strings.TrimPrefix(line, who+": ")
			if text == line { // the limit cut into the speaker
				text = clampText(s, limit)
			}
			us = append(us, newUnit(line, text, i, key, m.Role, base+len(us)))
		}
	}
	return us
}

// hasText reports whether a user or assistant message has text.
func hasText(msgs []tenure.Message) bool {
	return slices.ContainsFunc(msgs, func(m tenure.Message) bool {
		return (m.Role == "user" || m.Role == "assistant") && strings.TrimSpace(m.Text()) != ""
	})
}

func displayName(m *tenure.Message) string {
	if s := strings.Join(strings.Fields(strings.ToValidUTF8(m.Speaker, "\uFFFD")), " "); s != "" {
		return s
	}
	if m.Role == "assistant" {
		return "Assistant"
	}
	return "User"
}

func newUnit(line, text string, msg int, key, role string, pos int) unit {
	toks := tokenize(text)
	return unit{line: line, text: text, lower: straighten(text), toks: toks, terms: terms(toks),
		msg: msg, key: key, role: role, pos: pos}
}

// speakers returns the names of the messages' speakers in order of
// appearance.
func speakers(msgs []tenure.Message) []string {
	var out []string
	for i := range msgs {
		m := &msgs[i]
		if m.Role != "user" && m.Role != "assistant" || strings.TrimSpace(m.Speaker) == "" {
			continue
		}
		n := displayName(m)
		if !slices.Contains(out, n) && !slices.Contains(tenure.MessageRoles, strings.ToLower(n)) {
			out = append(out, n)
		}
	}
	return out
}

// score sets the features and salience of every unit.
func score(us []unit, names []string) {
	df := map[string]int{}
	for _, u := range us {
		for _, t := range u.terms {
			df[t]++
		}
	}
	known := map[string]bool{}
	for _, n := range names {
		known[strings.ToLower(n)] = true
	}
	for i := range us {
		u := &us[i]
		u.question = strings.HasSuffix(strings.TrimRight(u.text, `"')]”’ `), "?")
		u.commit = commitment(u.lower)
		u.decision = u.commit || phrase(u.lower, decisionPhrases)
		for k, t := range u.toks {
			switch {
			case strings.IndexFunc(t.text, unicode.IsDigit) >= 0:
				u.number = true
			case dateWords[t.lower] || k > 0 && (t.text == "May" || t.text == "March"):
				u.date = true
			}
			if k > 0 && capitalized(t) || known[t.lower] {
				u.entity = true
			}
		}
		c := 0.0
		for _, t := range u.terms {
			c += math.Log2(1 + float64(df[t]))
		}
		if len(u.terms) > 0 {
			c /= math.Sqrt(float64(len(u.terms)))
		}
		c += bonus(u)
		u.base = c
		if u.role == "assistant" {
			c *= assistantScale
		}
		if u.msg < 0 {
			c *= previousScale
		}
		u.score = c
	}
}

func bonus(u *unit) float64 {
	b := 0.0
	if u.entity {
		b += bonusEntity
	}
	if u.number {
		b += bonusNumber
	}
	if u.date {
		b += bonusDate
	}
	if u.decision {
		b += bonusDecision
	}
	return b
}

// eligible reports whether a unit says enough to be picked: two content
// words, or one and something of note, and, unless it comes from the
// previous summary, a salience of at least minSalience.
func eligible(u *unit) bool {
	if len(u.terms) < 2 && (len(u.terms) == 0 || bonus(u) == 0) {
		return false
	}
	return u.msg < 0 || u.base >= minSalience
}

// bySalience orders units by descending score, then newest first.
func bySalience(a, b *unit) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(b.pos, a.pos)
}

// duplicates reports whether u repeats a chosen unit: the same text, or
// mostly the same content words.
func duplicates(u *unit, chosen []*unit) bool {
	for _, c := range chosen {
		if strings.EqualFold(c.text, u.text) || overlap(c.terms, u.terms) > duplicate {
			return true
		}
	}
	return false
}

// overlap is the Jaccard index of two term sets.
func overlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	common := 0
	for _, t := range a {
		if slices.Contains(b, t) {
			common++
		}
	}
	return float64(common) / float64(len(a)+len(b)-common)
}

// render joins units in the order they were said, one per line.
func render(us []*unit) string {
	us = slices.Clone(us)
	slices.SortFunc(us, func(a, b *unit) int { return cmp.Compare(a.pos, b.pos) })
	return strings.Join(lines(us), "\n")
}

func lines(us []*unit) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.line
	}
	return out
}

// top returns the n most salient distinct units in the order they were
// said.
func top(us []*unit, n int) []*unit {
	order := slices.Clone(us)
	slices.SortStableFunc(order, bySalience)
	var out []*unit
	for _, u := range order {
		if len(out) == n {
			break
		}
		if !duplicates(u, out) {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b *unit) int { return cmp.Compare(a.pos, b.pos) })
	return out
}

// oneLiner picks the most central statement: the best eligible
// non-question by centrality and names, else the first unit.
func oneLiner(us []unit) *unit {
	var best *unit
	bestScore := 0.0
	for i := range us {
		u := &us[i]
		if u.question || !eligible(u) {
			continue
		}
		s := u.score - bonus(u)
		if u.entity {
			s += bonusEntity
		}
		if best == nil || s > bestScore {
			best, bestScore = u, s
		}
	}
	if best == nil {
		return &us[0]
	}
	return best
}

// openLoops returns the questions with content that nobody answered.
func openLoops(us []unit) []*unit {
	// next[i] is the index of the first unit of the message after unit i's.
	next := make([]int, len(us))
	for i := len(us) - 1; i >= 0; i-- {
		switch {
		case i == len(us)-1:
			next[i] = len(us)
		case us[i+1].msg != us[i].msg:
			next[i] = i + 1
		default:
			next[i] = next[i+1]
		}
	}
	var out []*unit
	for i := range us {
		q := &us[i]
		if !q.question || len(q.terms) == 0 {
			continue
		}
		later := us[next[i]:]
		if len(later) > answerUnits {
			later = later[:answerUnits]
		}
		if !answered(q, later) {
			out = append(out, q)
		}
	}
	return out
}

const (
	// answerWindow is how many later messages may answer a question.
	answerWindow = 4
	// answerUnits bounds the sentences looked at for an answer, so that
	// finding open loops takes linear time.
	answerUnits = 200
)

// answered reports whether a later unit of another speaker, within
// answerWindow messages, answers question q.
func answered(q *unit, later []unit) bool {
	first := ""
	if len(q.toks) > 0 {
		first = q.toks[0].lower
	}
	polar := polarStarts[first]
	wantsNumber := first == "when" || phrase(q.lower, []string{"what time", "what date", "how many", "how much", "how long", "how old", "how far"})
	wantsName := first == "who" || first == "whom" || first == "whose" || phrase(q.lower, []string{"what's the name", "what is the name", "what's her name", "what's his name", "what's their name"})
	lastMsg, seenMsgs, firstOfMsg := q.msg, 0, false
	for i := range later {
		r := &later[i]
		if r.msg != lastMsg {
			lastMsg, firstOfMsg = r.msg, true
			if seenMsgs++; seenMsgs > answerWindow {
				return false
			}
		} else {
			firstOfMsg = false
		}
		if r.key == q.key || r.question {
			continue
		}
		switch {
		case overlap(q.terms, r.terms) > 0:
			return true
		case polar && firstOfMsg && len(r.toks) > 0 && yesNo[r.toks[0].lower]:
			return true
		case wantsNumber && (r.number || r.date):
			return true
		case wantsName && (r.entity || len(r.toks) > 0 && capitalized(r.toks[0])):
			return true
		}
	}
	return false
}

// people lists the speakers, then the names mentioned, most mentioned
// first. A name counts when it appears somewhere other than at the start
// of a sentence (a run of capitalized words at the start also counts
// without its first word: "Ask Marta"), not only where a place would be
// ("in Lisbon", "moved to Lisbon"), and, for one word, never in lower
// case. A one-word name
// that is part of a longer one ("Tom", "Tom Baker") is counted as the
// longer one.
func people(us []unit, names []string) []string {
	type mention struct {
		name                 string
		count, first         int
		confirmed, placeOnly bool
	}
	byName := map[string]*mention{}
	var order []*mention
	lower := map[string]bool{}
	add := func(toks []token, initial, place bool, pos int) {
		parts := make([]string, len(toks))
		for i, t := range toks {
			parts[i] = t.text
		}
		name := strings.TrimSuffix(strings.Join(parts, " "), "'s")
		m := byName[name]
		if m == nil {
			m = &mention{name: name, first: pos, placeOnly: true}
			byName[name] = m
			order = append(order, m)
		}
		m.count++
		if !initial {
			m.confirmed = true
			m.placeOnly = m.placeOnly && place
		}
	}
	for _, u := range us {
		for k := 0; k < len(u.toks); k++ {
			t := u.toks[k]
			if t.text == t.lower {
				lower[t.lower] = true
			}
			if !capitalized(t) {
				continue
			}
			end := k + 1
			for end < len(u.toks) && u.toks[end].joined && capitalized(u.toks[end]) && !strings.HasSuffix(u.toks[end-1].text, "'s") {
				end++
			}
			switch {
			case k > 0:
				add(u.toks[k:end], false, placeContext(u.toks, k), u.pos)
			case end > 1:
				add(u.toks[:end], true, false, u.pos)
				add(u.toks[1:end], false, placeContext(u.toks, 1), u.pos)
			default:
				add(u.toks[:1], true, false, u.pos)
			}
			k = end - 1
		}
	}
	kept := func(m *mention) bool {
		single := !strings.Contains(m.name, " ")
		return m.confirmed && !m.placeOnly && !(single && lower[strings.ToLower(m.name)])
	}
	// Fold one-word names, confirmed or not, into the speakers and the
	// longer names they are part of.
	speaker := map[string]bool{}
	for _, n := range names {
		speaker[strings.ToLower(n)] = true
		for _, w := range strings.Fields(n) {
			speaker[strings.ToLower(w)] = true
		}
	}
	longer := map[string]*mention{}
	for _, m := range order {
		if strings.Contains(m.name, " ") && kept(m) {
			for _, w := range strings.Fields(m.name) {
				if longer[w] == nil {
					longer[w] = m
				}
			}
		}
	}
	var out []*mention
	for _, m := range order {
		single := !strings.Contains(m.name, " ")
		switch {
		case speaker[strings.ToLower(m.name)]:
		case single && longer[m.name] != nil:
			longer[m.name].count += m.count
		case kept(m):
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b *mention) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	res := slices.Clone(names)
	for _, m := range out {
		res = append(res, m.name)
	}
	return res
}

// placeContext reports whether the words before toks[k] suggest a place:
// "in", "at" ..., or "to" or "from" up to four words after a word of
// motion ("moved to", "flew back to Porto from"). A possessive is never a
// place ("went to Priya's party").
func placeContext(toks []token, k int) bool {
	if k == 0 || strings.HasSuffix(toks[k].lower, "'s") {
		return false
	}
	prev := toks[k-1].lower
	if placePrepositions[prev] {
		return true
	}
	if prev != "to" && prev != "from" {
		return false
	}
	for _, t := range toks[max(0, k-5) : k-1] {
		if motionWords[t.lower] {
			return true
		}
	}
	return false
}

// tone weighs positive against negative words (a negator up to two words
// before flips a word): positive or negative when one side clearly wins,
// mixed when both are present and close, neutral when neither is. User
// messages count; assistant ones only when there are no others.
func tone(us []unit) string {
	users := slices.ContainsFunc(us, func(u unit) bool { return u.role != "assistant" })
	pos, neg := 0, 0
	for _, u := range us {
		if users && u.role == "assistant" {
			continue
		}
		for k, t := range u.toks {
			p, n := positiveWords[t.lower], negativeWords[t.lower]
			if !p && !n {
				continue
			}
			if k > 0 && negators[u.toks[k-1].lower] || k > 1 && negators[u.toks[k-2].lower] {
				p, n = n, p
			}
			pos += boolInt(p)
			neg += boolInt(n)
		}
	}
	switch {
	case pos+neg == 0:
		return "neutral"
	case pos > 0 && neg > 0 && math.Abs(float64(pos-neg)) < float64(pos+neg)/3:
		return "mixed"
	case pos > neg:
		return "positive"
	default:
		return "negative"
	}
}
