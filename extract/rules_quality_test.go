package extract_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// labelled is one line of testdata/labelled.jsonl: a message and what an
// annotator found in it.
type labelled struct {
	Message tenure.Message `json:"message"`
	Items   []struct {
		Type tenure.StateType `json:"type"`
		Text string           `json:"text"`
		// Owner and Due are an action's owner and due date, when the
		// message states them.
		Owner string `json:"owner"`
		Due   string `json:"due"`
	} `json:"items"`
	Facts []struct {
		Subject   string `json:"subject"`
		Attribute string `json:"attribute"`
		Value     string `json:"value"`
	} `json:"facts"`
}

func readLabelled(t testing.TB) []labelled {
	t.Helper()
	f, err := os.Open("testdata/labelled.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l labelled
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// batches groups the fixture's messages by thread, in file order.
func batches(ls []labelled) []extract.Batch {
	var out []extract.Batch
	for _, l := range ls {
		if len(out) == 0 || out[len(out)-1].ThreadID != l.Message.ThreadID {
			out = append(out, extract.Batch{ThreadID: l.Message.ThreadID})
		}
		out[len(out)-1].Messages = append(out[len(out)-1].Messages, l.Message)
	}
	return out
}

// matchStopwords are the function words the quality metric ignores. The
// list is the test's own, not the extractor's, so that the metric does not
// share the extractor's blind spots.
var matchStopwords = strings.Fields(`a an the and or but if then so of to in on at by for from with
	about into as is am are was were be been being do does did have has had will would shall should
	can could may might must it its this that these those i me my we us our you your he him his she
	her they them their there here what which who whom how why when where not no any some all just
	very too also only than s t ll ve re d m let's`)

// contentStems are the stemmed content words of s.
func contentStems(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if slices.Contains(matchStopwords, w) {
			continue
		}
		if st := english.Stem(w, false); !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out
}

// jaccard is the overlap of two texts' content words.
func jaccard(a, b string) float64 {
	x, y := contentStems(a), contentStems(b)
	if len(x) == 0 && len(y) == 0 {
		return boolFloat(strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)))
	}
	inter := 0
	for _, w := range x {
		if slices.Contains(y, w) {
			inter++
		}
	}
	return float64(inter) / float64(len(x)+len(y)-inter)
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// minOverlap is the content-word overlap at which a prediction matches a
// label.
const minOverlap = 0.5

// score counts matches of one kind of prediction.
type score struct{ tp, pred, gold int }

func (s score) precision() float64 { return ratio(s.tp, s.pred) }
func (s score) recall() float64    { return ratio(s.tp, s.gold) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s score) String() string {
	return fmt.Sprintf("precision %.2f (%d/%d)  recall %.2f (%d/%d)", s.precision(), s.tp, s.pred, s.recall(), s.tp, s.gold)
}

// The fixture's parts. Threads "t-*" are the development set, written and
// labelled before the rules and then used to tune them. Threads "h-*" were
// labelled after the first rules existed and are not tuned on. Threads
// "h2-*" (negative constraints, actions of third persons with due dates,
// named-person and organisation facts, decisions with alternatives) were
// written with the "t-team", "t-people" and "t-supp" development threads,
// before the rules that read them, and are never tuned on. Threads "h3-*"
// (a data-platform migration, a hiring loop, a family trip, a customer
// escalation) were written after h2 had been measured several times, before
// the third round of rules, and are never tuned on: their first numbers are
// the honest estimate. Threads "h4-*" (a kitchen renovation, a grant
// application) were written after the third round of rules was frozen and
// measured once: an estimate of the rules as they are, by an author who
// had not seen them fail on these words. Threads "h5-*" (a film shoot, care
// for a parent after surgery, a brewery's canning line, a school fair) were
// written before the fourth round of rules and measured untuned first: they
// are never tuned on. The development threads t-vet, t-garden, t-lease,
// t-agency, t-kitchen, t-lab, t-museum, t-knee and t-charity were written for the fourth round,
// after h5's first look. Threads "h6-*" (a logistics firm's dispatch team, a
// tenant and a landlord fixing repairs, a software team's release planning,
// a family planning a wedding) were written before the fifth round of rules
// and measured untuned first: they are never tuned on. The development
// threads t-bakery, t-choir, t-garage, t-conf, t-allot, t-hostel and
// t-podcast were written for the fifth round, after h6's first look.
// Threads "h7-*" (a sailing club's regatta committee, a vineyard's harvest,
// a founder preparing a seed round with an assistant) were written before
// the sixth round of rules, by an author who had not read them, and
// measured untuned first: they are never tuned on. Threads "h8-*" (a
// leisure centre reopening its pool, a local newsroom on a by-election
// week, a parent planning meals with an assistant, a mountain rescue
// team's winter preparation) were written before the seventh round of
// rules and measured untuned first; the eighth round tuned on them.
// Threads "h9-*" (a touring theatre company, an archaeological dig, an
// executor settling a parent's estate with an assistant, a community
// orchard) were written before the eighth round of rules and measured
// untuned first; the ninth round tuned on them. The development threads
// t-stack, t-gym, t-bikeshop and t-venue were written for the eighth
// round, after h9's first look, and t-boatyard, t-campsite and t-print
// for the ninth, after h10's. Threads "h10-*" (an astronomy society's
// star party, a dental practice moving premises, a school robotics team,
// a freelance illustrator with an assistant) were written before the
// ninth round of rules and measured untuned first: they are the unexposed
// part, never tuned on and never logged case by case.
var parts = []struct{ name, prefix string }{
	{"development (t-*)", "t-"}, {"held out, round 1 (h-*)", "h-"}, {"held out, round 2 (h2-*)", "h2-"},
	{"held out, round 3 (h3-*)", "h3-"}, {"held out, round 4 (h4-*)", "h4-"}, {"held out, round 5 (h5-*)", "h5-"},
	{"held out, round 6 (h6-*)", "h6-"}, {"held out, round 7 (h7-*)", "h7-"},
	{"held out, round 8 (h8-*)", "h8-"}, {"held out, round 9 (h9-*)", "h9-"},
	{"held out, round 10 (h10-*)", "h10-"},
}

// unexposed is the prefix of the held-out part written for the current
// round: its misses are never logged, so that no rule is fitted to them.
// Every other part's are, with -v.
const unexposed = "h10-"

// partOf is the index in parts of a thread's part.
func partOf(thread string) int {
	for i := len(parts) - 1; i >= 0; i-- {
		if strings.HasPrefix(thread, parts[i].prefix) {
			return i
		}
	}
	return 0
}

// Quality floors on the whole fixture: below the measured numbers, so that
// a real regression fails the test. Recall has floors too, or an extractor
// that found nothing would pass with a perfect precision.
const (
	minItemPrecision = 0.85
	minFactPrecision = 0.90
	minItemRecall    = 0.75
	minFactRecall    = 0.81 // 0.89 after the seventh round, 0.84 with h9 added, 0.85 after the eighth, 0.82 with h10 added
)

// The targets per type on the held-out part written with the second round
// (h2-*), and the floors the test holds it to: the measured numbers less a
// margin where they fall short of the targets, which the test reports.
const (
	targetPrecision = 0.90
	targetRecall    = 0.85
)

// heldOut is a held-out part's floors: per type (and "fact"), and the
// share of found actions stating an owner or due date that must have it
// right.
type heldOut struct {
	prefix       string
	types        map[string]struct{ precision, recall float64 }
	owners, dues float64
}

var heldOutFloors = []heldOut{
	// Facts raised after the seventh round (1.00 / 1.00).
	{prefix: "h2-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.90, 0.70}, "constraint": {0.85, 0.80}, "action": {0.75, 0.75}, "risk": {0.90, 0.70},
		"question": {0.90, 0.85}, "fact": {0.95, 0.95},
	}, owners: 1, dues: 1},
	// Measured once after the third round of rules (docs/benchmarks.md);
	// the floors are those numbers less about one item. Decision recall
	// and facts raised after the seventh round (0.82 / 0.82, 0.94 / 0.71),
	// actions after an agent's commitments were read (0.92 / 0.80).
	{prefix: "h3-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.80, 0.70}, "constraint": {0.90, 0.55}, "action": {0.85, 0.70}, "risk": {0.90, 0.50},
		"question": {0.65, 0.80}, "fact": {0.85, 0.65},
	}, owners: 1, dues: 1},
	// h4's action precision fell by one item in the fourth round (0.88 to
	// 0.78) and came back in the fifth, which also raised its decisions
	// (0.60 / 0.43 to 0.83 / 0.71; docs/benchmarks.md, rounds 4 and 5).
	// Fact recall raised after the seventh round (1.00 / 1.00).
	{prefix: "h4-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.80, 0.70}, "constraint": {0.90, 0.75}, "action": {0.85, 0.85}, "risk": {0.90, 0.45},
		"question": {0.90, 0.90}, "fact": {0.90, 0.85},
	}, owners: 1, dues: 1},
	// Measured untuned, then once after the fourth round of rules; risks
	// and facts raised after the seventh (1.00 / 1.00, 0.97 / 1.00),
	// decisions after the eighth (1.00 / 0.82), constraints after the
	// ninth (0.94 / 0.76).
	{prefix: "h5-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.90, 0.70}, "constraint": {0.85, 0.70}, "action": {0.85, 0.60}, "risk": {0.90, 0.70},
		"question": {0.85, 0.85}, "fact": {0.90, 0.95},
	}, owners: 1, dues: 1},
	// Measured untuned, then once after the fifth round of rules; two
	// found actions state a due date the rules read otherwise.
	// Decisions and facts raised after the seventh round (1.00 / 1.00,
	// 1.00 / 0.96), constraints after the ninth (1.00 / 1.00).
	{prefix: "h6-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.85, 0.85}, "constraint": {0.90, 0.90}, "action": {0.75, 0.65}, "risk": {0.70, 0.70},
		"question": {0.90, 0.65}, "fact": {0.90, 0.90},
	}, owners: 1, dues: 0.70},
	// Measured untuned, then once after the sixth round of rules, which
	// moved it little (docs/benchmarks.md, round 6). Its misses were read
	// in the seventh round, which raised decisions, risks and facts
	// (1.00 / 0.75, 1.00 / 1.00, 0.90 / 0.90): the floors are those
	// numbers less about one item. The ninth raised its constraints and
	// actions (1.00 / 0.89, 1.00 / 0.77).
	{prefix: "h7-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.80, 0.60}, "constraint": {0.85, 0.75}, "action": {0.85, 0.65}, "risk": {0.80, 0.80},
		"question": {0.85, 0.85}, "fact": {0.85, 0.85},
	}, owners: 1, dues: 0.85},
	// Measured untuned, then once after the seventh round of rules, which
	// moved only its risks and facts (docs/benchmarks.md, round 7): the
	// floors are the final numbers less about one item. Its misses were
	// read in the eighth round, which raised its decisions and facts
	// (1.00 / 0.73, 0.80 / 0.59), and the ninth its risks (1.00 / 1.00).
	{prefix: "h8-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.85, 0.60}, "constraint": {0.85, 0.60}, "action": {0.75, 0.60}, "risk": {0.80, 0.85},
		"question": {0.85, 0.85}, "fact": {0.75, 0.55},
	}, owners: 1, dues: 0.85},
	// Measured once untuned, before the eighth round of rules, and once
	// after it, which moved only its decisions (0.25 / 0.13 to 0.56 /
	// 0.33): the floors are the final numbers less about one item, all
	// far below the targets. Its misses were read in the ninth round,
	// which raised its risks and actions (1.00 / 0.50, 0.73 / 0.67).
	{prefix: "h9-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.40, 0.25}, "constraint": {0.70, 0.45}, "action": {0.60, 0.55}, "risk": {0.75, 0.35},
		"question": {0.65, 0.60}, "fact": {0.60, 0.25},
	}, owners: 0.75, dues: 0.75},
	// Measured once untuned, before the ninth round of rules, and once
	// after it, which moved none of its numbers: the floors are those
	// numbers less about one item.
	{prefix: "h10-", types: map[string]struct{ precision, recall float64 }{
		"decision": {0.70, 0.50}, "constraint": {0.30, 0.15}, "action": {0.70, 0.30}, "risk": {0.75, 0.35},
		"question": {0.50, 0.50}, "fact": {0.60, 0.30},
	}, owners: 0.80, dues: 0.80},
}

// TestRulesQuality measures the extractor against testdata/labelled.jsonl
// and logs the scores of each part, per type.
func TestRulesQuality(t *testing.T) {
	ls := readLabelled(t)
	if len(ls) < 60 {
		t.Fatalf("fixture has %d messages, want at least 60", len(ls))
	}
	r := extract.NewRules(extract.RulesOptions{})
	tls := scoreExtractor(t, r, ls)
	all := newTally()
	for _, tl := range tls {
		all.merge(tl)
	}
	logTally(t, "all", all)
	for i, tl := range tls {
		logTally(t, parts[i].name, tl)
	}
	if p := all.items.precision(); p < minItemPrecision {
		t.Errorf("item precision %.2f, want at least %.2f", p, minItemPrecision)
	}
	if p := all.facts.precision(); p < minFactPrecision {
		t.Errorf("fact precision %.2f, want at least %.2f", p, minFactPrecision)
	}
	if r := all.items.recall(); r < minItemRecall {
		t.Errorf("item recall %.2f, want at least %.2f", r, minItemRecall)
	}
	if r := all.facts.recall(); r < minFactRecall {
		t.Errorf("fact recall %.2f, want at least %.2f", r, minFactRecall)
	}
	for _, h := range heldOutFloors {
		checkHeldOut(t, h, tls[partOf(h.prefix)])
	}
}

// checkHeldOut holds a held-out part's tally to its floors and reports
// where it falls short of the targets.
func checkHeldOut(t *testing.T, h heldOut, tl *tally) {
	t.Helper()
	name := parts[partOf(h.prefix)].name
	for typ, floor := range h.types {
		s := tl.facts
		if typ != "fact" {
			s = *tl.perType[tenure.StateType(typ)]
		}
		for _, x := range []struct {
			what          string
			got, min, aim float64
		}{{"precision", s.precision(), floor.precision, targetPrecision}, {"recall", s.recall(), floor.recall, targetRecall}} {
			switch {
			case x.got < x.min:
				t.Errorf("%s: %s %s %.2f, want at least %.2f", name, typ, x.what, x.got, x.min)
			case x.got < x.aim:
				t.Logf("%s: %s %s %.2f, below the %.2f target", name, typ, x.what, x.got, x.aim)
			}
		}
	}
	if o := tl.owners; ratio(o.right, o.stated) < h.owners {
		t.Errorf("%s: owners right for %d of %d found actions that state one", name, o.right, o.stated)
	}
	if d := tl.dues; ratio(d.right, d.stated) < h.dues {
		t.Errorf("%s: due dates right for %d of %d found actions that state one", name, d.right, d.stated)
	}
}

// scoreExtractor runs x over the fixture's threads and returns the tally
// of each part.
func scoreExtractor(t *testing.T, x extract.Extractor, ls []labelled) []*tally {
	t.Helper()
	tls := make([]*tally, len(parts))
	for i := range tls {
		tls[i] = newTally()
	}
	for _, b := range batches(ls) {
		res, err := x.Extract(context.Background(), b)
		if err != nil {
			t.Fatalf("thread %s: %v", b.ThreadID, err)
		}
		part := partOf(b.ThreadID)
		tls[part].add(t, b, ls, res, parts[part].prefix != unexposed)
	}
	return tls
}

func logTally(t *testing.T, name string, tl *tally) {
	t.Helper()
	t.Logf("%s:", name)
	t.Logf("  items: %v", tl.items)
	for _, st := range tenure.StateTypes {
		t.Logf("    %-10s %v", st, *tl.perType[st])
	}
	t.Logf("  facts: %v", tl.facts)
	t.Logf("  action owners %d/%d, due dates %d/%d (of the found actions that state one)",
		tl.owners.right, tl.owners.stated, tl.dues.right, tl.dues.stated)
}

// tally is the scores of some batches.
type tally struct {
	items, facts score
	perType      map[tenure.StateType]*score
	// owners and dues count the found actions whose label states an
	// owner or due date, and how many of them the prediction has right.
	owners, dues struct{ stated, right int }
}

func newTally() *tally {
	tl := &tally{perType: map[tenure.StateType]*score{}}
	for _, st := range tenure.StateTypes {
		tl.perType[st] = &score{}
	}
	return tl
}

func (tl *tally) merge(o *tally) {
	tl.items = tl.items.plus(o.items)
	tl.facts = tl.facts.plus(o.facts)
	for st, s := range o.perType {
		*tl.perType[st] = tl.perType[st].plus(*s)
	}
	tl.owners.stated += o.owners.stated
	tl.owners.right += o.owners.right
	tl.dues.stated += o.dues.stated
	tl.dues.right += o.dues.right
}

func (s score) plus(o score) score { return score{s.tp + o.tp, s.pred + o.pred, s.gold + o.gold} }

// add scores one batch's result against the labels of its messages,
// matching each label to at most one prediction, and logs the misses and
// the spurious predictions when verbose is set. The unexposed part is
// scored without it, so that it is not looked at case by case.
func (tl *tally) add(t *testing.T, b extract.Batch, ls []labelled, res extract.Result, verbose bool) {
	t.Helper()
	logf := func(format string, args ...any) {
		if verbose {
			t.Logf(format, args...)
		}
	}
	usedItem := make([]bool, len(res.Items))
	usedFact := make([]bool, len(res.Facts))
	for _, l := range ls {
		if l.Message.ThreadID != b.ThreadID {
			continue
		}
		id := l.Message.ID
		for _, want := range l.Items {
			tl.items.gold++
			tl.perType[want.Type].gold++
			k := bestItem(res.Items, usedItem, id, want.Type, want.Text)
			if k < 0 {
				logf("missed item %s %s: %q", id, want.Type, want.Text)
				continue
			}
			usedItem[k] = true
			tl.items.tp++
			tl.perType[want.Type].tp++
			got := res.Items[k].Item
			if want.Owner != "" {
				tl.owners.stated++
				if sameOwner(got.Owner, want.Owner) {
					tl.owners.right++
				} else {
					logf("wrong owner %s: %q, want %q", id, got.Owner, want.Owner)
				}
			}
			if want.Due != "" {
				tl.dues.stated++
				if got.Due == want.Due {
					tl.dues.right++
				} else {
					logf("wrong due date %s: %q, want %q", id, got.Due, want.Due)
				}
			}
		}
		for _, want := range l.Facts {
			tl.facts.gold++
			if k := bestFact(res.Facts, usedFact, id, want.Subject, want.Attribute, want.Value); k >= 0 {
				usedFact[k] = true
				tl.facts.tp++
			} else {
				logf("missed fact %s: %s %s %q", id, want.Subject, want.Attribute, want.Value)
			}
		}
	}
	for k, c := range res.Items {
		tl.items.pred++
		tl.perType[c.Item.Type].pred++
		if !usedItem[k] {
			logf("spurious item %v %s: %q", c.Item.Refs, c.Item.Type, c.Item.Text)
		}
	}
	for k, f := range res.Facts {
		tl.facts.pred++
		if !usedFact[k] {
			logf("spurious fact %v: %s %s %q", f.Refs, f.Subject, f.Attribute, f.Value)
		}
	}
}

// sameOwner reports whether a predicted owner names the labelled one: the
// same name, or its first word ("Tom" for "Tom Reyes").
func sameOwner(got, want string) bool {
	if strings.EqualFold(got, want) {
		return true
	}
	g, w := strings.Fields(got), strings.Fields(want)
	return len(g) > 0 && len(w) > 0 && strings.EqualFold(g[0], w[0]) && (len(g) == 1 || len(w) == 1)
}

// bestItem is the unused prediction of type typ citing message id that
// overlaps text most, at least minOverlap, or -1.
func bestItem(cs []extract.Candidate, used []bool, id string, typ tenure.StateType, text string) int {
	best, bestJ := -1, minOverlap
	for k, c := range cs {
		if used[k] || c.Item.Type != typ || !slices.Contains(c.Item.Refs, id) {
			continue
		}
		if j := jaccard(c.Item.Text, text); j >= bestJ {
			best, bestJ = k, j
		}
	}
	return best
}

// bestFact is the unused fact citing message id with the same subject and
// attribute whose value overlaps value most, at least minOverlap, or -1.
func bestFact(fs []extract.Fact, used []bool, id, subject, attr, value string) int {
	best, bestJ := -1, minOverlap
	for k, f := range fs {
		if used[k] || !slices.Contains(f.Refs, id) || !strings.EqualFold(f.Subject, subject) || f.Attribute != attr {
			continue
		}
		if j := jaccard(f.Value, value); j >= bestJ {
			best, bestJ = k, j
		}
	}
	return best
}
