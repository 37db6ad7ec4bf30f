package reconcile_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/reconcile"
	"github.com/tenure-dev/tenure/slot"
)

// stateCase is one line of testdata/state_cases.jsonl: an existing item,
// a new item with the message it came from, and what reconciliation should
// do with the new item.
type stateCase struct {
	ID string `json:"id"`
	// Split is "dev" (tuned on), "held" (written with the rest before
	// the reconciler, never tuned on), "held3" (written from other
	// domains after "held" had been measured several times, before the
	// third round of the lexicon, never tuned on), "held4" (other
	// domains again, written after that round was frozen), "held5"
	// (other domains again, written before the fourth round and measured
	// once before it, as its first look, never tuned on), "held6"
	// (other domains again, written before the fifth round, likewise) or
	// "held7" (six other domains, written before the sixth round,
	// likewise), "held8" (six other domains, written before the
	// seventh round, likewise), "held9" (six other domains, written
	// before the eighth round, likewise) or "held10" (six other domains,
	// written before the ninth round, likewise).
	Split  string `json:"split"`
	Domain string `json:"domain"`
	// Kind is what the pair is: restatement, paraphrase, status,
	// changed_value, negation, reversal, refinement, neighbour,
	// unrelated, cross_type.
	Kind     string      `json:"kind"`
	Existing fixtureItem `json:"existing"`
	New      fixtureItem `json:"new"`
	Message  string      `json:"message"`
	Want     string      `json:"want"`
}

type fixtureItem struct {
	Type   tenure.StateType `json:"type"`
	Text   string           `json:"text"`
	Status string           `json:"status"`
	Owner  string           `json:"owner"`
}

// item is the fixture item as the rules extractor produces it: its
// subject and value are parsed from its text.
func (f fixtureItem) item() *tenure.StateItem {
	it := &tenure.StateItem{Type: f.Type, Text: f.Text, Status: f.Status, Owner: f.Owner,
		Confidence: tenure.ConfidenceHigh, Refs: []string{"m0"}}
	it.Subject, it.Value = slot.Parse(it.Type, it.Text)
	it.Coerce()
	return it
}

func readStateCases(t *testing.T) []stateCase {
	t.Helper()
	f, err := os.Open("testdata/state_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var out []stateCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c stateCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// decideCase reconciles a case's new item against its existing one, as
// the engine does with the rules extractor and no embedder: a user states
// the new item in the case's message.
func decideCase(c stateCase) reconcile.StateDecision {
	ctx := c.Message
	if ctx == "" {
		ctx = c.New.Text
	}
	return reconcile.DecideState(reconcile.StateThresholds{},
		reconcile.StateCandidate{Item: c.New.item(), UserRef: "m1", Context: ctx},
		[]reconcile.StateMatch{{Item: c.Existing.item()}})
}

// actionScores counts, per action, predictions, gold labels and matches.
type actionScores map[string]*struct{ tp, pred, gold int }

func (s actionScores) add(got, want string) {
	for _, a := range []string{got, want} {
		if s[a] == nil {
			s[a] = &struct{ tp, pred, gold int }{}
		}
	}
	s[got].pred++
	s[want].gold++
	if got == want {
		s[got].tp++
	}
}

func (s actionScores) precision(a string) float64 {
	if s[a] == nil {
		return 1
	}
	return frac(s[a].tp, s[a].pred)
}

func (s actionScores) recall(a string) float64 {
	if s[a] == nil {
		return 1
	}
	return frac(s[a].tp, s[a].gold)
}

func (s actionScores) line(a string) string {
	if s[a] == nil {
		return fmt.Sprintf("%-9s (none)", a)
	}
	return fmt.Sprintf("%-9s precision %.2f (%d/%d)  recall %.2f (%d/%d)", a, s.precision(a), s[a].tp, s[a].pred,
		s.recall(a), s[a].tp, s[a].gold)
}

func frac(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// changesValue reports whether a case's new item changes the existing
// item's value, so that merging it would lose the change.
func changesValue(kind string) bool {
	return kind == "changed_value" || kind == "reversal" || kind == "negation" || kind == "antonym"
}

// target is the target for merge and supersede, precision and
// recall, on a held-out part. Merge recall falls short of it without an
// embedder: paraphrases that change more than a word ("Chat support hours
// are 9 am to 5 pm") need a similarity signal or a model's subjects to be
// recognised, and are inserted instead (a duplicate, never a lost value).
// The test holds each part to floors below its measured numbers, so that a
// regression fails, and reports the gaps.
const target = 0.95

// heldFloors are the floors of each held-out part: the targets where they
// are met, the measured numbers less a margin where they are not.
var heldFloors = map[string]struct {
	supersedePrecision, supersedeRecall, mergePrecision, mergeRecall float64
}{
	// Measured after the seventh round (docs/benchmarks.md, "Round 7"),
	// unchanged by the eighth; the floors are those numbers less about
	// one case. The ninth raised held3's merge recall to 0.82.
	"held":  {0.95, 0.95, 0.95, 0.92},
	"held3": {0.92, 0.92, 0.95, 0.79},
	"held4": {0.95, 0.90, 0.95, 0.85},
	// First look, before the fourth round: merge 0.95/0.61, supersede
	// 0.85/0.96, one changed value merged; after the fourth: merge
	// 1.00/0.82, supersede 0.96/1.00, none merged; after the sixth: merge
	// 1.00/0.85, supersede 1.00/1.00; after the seventh: merge 1.00/0.94.
	"held5": {0.95, 0.95, 0.95, 0.90},
	// First look, before the fifth round: merge 1.00/0.57, supersede
	// 0.82/1.00, none merged; after the fifth: merge 1.00/0.63, supersede
	// 0.86/1.00; after the sixth: merge 1.00/0.80, supersede 1.00/1.00;
	// after the seventh: merge 1.00/0.87; after the ninth: merge
	// 1.00/0.90.
	"held6": {0.95, 0.95, 0.95, 0.86},
	// First look, before the sixth round: merge 0.95/0.59, supersede
	// 0.90/0.90, none merged; after it: merge 0.95/0.66, supersede
	// 0.90/0.90, none merged; after the seventh: merge 1.00/0.88,
	// supersede 0.91/1.00.
	"held7": {0.86, 0.95, 0.95, 0.84},
	// First look, before the seventh round: merge 0.93/0.69, supersede
	// 0.73/0.80, one changed value merged; after it: merge 0.90/0.78,
	// supersede 0.73/0.80, the same one merged. Then exposed, and tuned
	// on (numbers that label a noun, "every hour"): merge 0.94/0.86,
	// supersede 0.94/0.85, none merged; after the eighth (prices): merge
	// 0.94/0.86, supersede 0.95/1.00.
	"held8": {0.90, 0.95, 0.90, 0.83},
	// First look, before the eighth round: merge 0.96/0.61 (23/24,
	// 23/38), supersede 0.70/0.70 (14/20, 14/20), none merged; after it:
	// merge 0.96/0.61, supersede 0.73/0.80 (16/22, 16/20), none merged.
	// Then exposed, and tuned on in the ninth: merge 1.00/0.76 (29/29,
	// 29/38), supersede 0.89/0.85 (17/19, 17/20).
	"held9": {0.85, 0.80, 0.96, 0.73},
	// First look, before the ninth round: merge 0.96/0.62 (25/26,
	// 25/40), supersede 1.00/0.85 (17/17, 17/20), one changed value
	// merged; after it: merge 0.96/0.65 (26/27, 26/40), supersede
	// 1.00/0.85, the same one merged.
	"held10": {0.94, 0.80, 0.92, 0.62},
}

// changesMergedCeiling is how many changed values a part may merge when
// it merged them at its first look, before it could be read; every other
// part merges none.
var changesMergedCeiling = map[string]int{"held10": 1}

// unexposed is the held-out part written for the current round: its
// totals are reported, its cases are never logged, so that no rule is
// tuned on it. The next round exposes it.
const unexposed = "held10"

// TestStateFixture measures DecideState against testdata/state_cases.jsonl
// and reports precision and recall per action on each part. The targets
// hold on the held-out part, and no changed value is merged in either.
// Mistakes are logged for every part but the unexposed one, which is not
// looked at case by case, so that nothing is tuned on it.
func TestStateFixture(t *testing.T) {
	cases := readStateCases(t)
	held := 0
	for _, c := range cases {
		if c.Split != "dev" {
			held++
		}
	}
	if len(cases) < 200 || float64(held) < 0.3*float64(len(cases)) {
		t.Fatalf("fixture has %d cases, %d held out; want at least 200, 30%% held out", len(cases), held)
	}
	splits := []string{"dev", "held", "held3", "held4", "held5", "held6", "held7", "held8", "held9", "held10"}
	scores := map[string]actionScores{}
	for _, s := range splits {
		scores[s] = actionScores{}
	}
	mergedChanges := map[string]int{}
	for _, c := range cases {
		if scores[c.Split] == nil {
			t.Fatalf("%s: unknown split %q", c.ID, c.Split)
		}
		d := decideCase(c)
		got := string(d.Action)
		scores[c.Split].add(got, c.Want)
		if changesValue(c.Kind) && d.Action == reconcile.StateMerge {
			mergedChanges[c.Split]++
		}
		if got != c.Want && c.Split != unexposed {
			t.Logf("%s %s %s: got %s (%s), want %s\n    old %q\n    new %q\n    msg %q", c.ID, c.Kind, c.Existing.Type,
				got, d.Reason, c.Want, c.Existing.Text, c.New.Text, c.Message)
		}
	}
	for _, split := range splits {
		t.Logf("%s: changed values merged: %d", split, mergedChanges[split])
		for _, a := range []string{"merge", "supersede", "insert", "conflict"} {
			t.Logf("  %s", scores[split].line(a))
		}
	}
	for split, n := range mergedChanges {
		if n > changesMergedCeiling[split] {
			t.Errorf("%s: %d changed values merged, want at most %d", split, n, changesMergedCeiling[split])
		}
	}
	for _, split := range splits[1:] {
		h, f := scores[split], heldFloors[split]
		for _, x := range []struct {
			what string
			got  float64
		}{{"merge recall", h.recall("merge")}, {"supersede precision", h.precision("supersede")}, {"supersede recall", h.recall("supersede")}} {
			if x.got < target {
				t.Logf("%s: %s %.2f, below the %.2f target", split, x.what, x.got, target)
			}
		}
		for _, x := range []struct {
			what       string
			got, floor float64
		}{
			{"supersede precision", h.precision("supersede"), f.supersedePrecision},
			{"supersede recall", h.recall("supersede"), f.supersedeRecall},
			{"merge precision", h.precision("merge"), f.mergePrecision},
			{"merge recall", h.recall("merge"), f.mergeRecall},
		} {
			if x.got < x.floor {
				t.Errorf("%s: %s %.2f, want at least %.2f", split, x.what, x.got, x.floor)
			}
		}
	}
}
