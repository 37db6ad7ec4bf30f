package entity_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tenure-dev/tenure/entity"
)

var showPairs = flag.Bool("pairs", false, "log every fixture pair's decision")

// pair is a labelled pair of mentions: whether a denotes the entity b
// names.
type pair struct {
	A    string `json:"a"`
	B    string `json:"b"`
	Same bool   `json:"same"`
	Note string `json:"note"`
}

func readPairs(t *testing.T, name string) []pair {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []pair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// metrics are the outcomes of resolving a fixture's pairs.
type metrics struct {
	pairs, same, linked, truePos, review, reviewSame int
}

func (m metrics) precision() float64 {
	if m.linked == 0 {
		return 1
	}
	return float64(m.truePos) / float64(m.linked)
}

func (m metrics) recall() float64 { return float64(m.truePos) / float64(m.same) }

func (m metrics) String() string {
	return fmt.Sprintf("pairs %d (same %d): auto-linked %d, correct %d: precision %.3f, recall %.3f; pending review %d (%d same)",
		m.pairs, m.same, m.linked, m.truePos, m.precision(), m.recall(), m.review, m.reviewSame)
}

// evaluate resolves each pair's a against a registry holding b alone.
func evaluate(t *testing.T, pairs []pair) metrics {
	t.Helper()
	var m metrics
	for _, p := range pairs {
		a, err := entity.ParseMention("a", p.A)
		if err != nil {
			t.Fatal(err)
		}
		b, err := entity.ParseMention("b", p.B)
		if err != nil {
			t.Fatal(err)
		}
		d := entity.Resolve(a, []entity.Entity{entity.NewEntity(b, b.Key, "t", "", nil)})
		m.pairs++
		if p.Same {
			m.same++
		}
		switch d.Action {
		case entity.Link:
			m.linked++
			if p.Same {
				m.truePos++
			}
		case entity.Review:
			m.review++
			if p.Same {
				m.reviewSame++
			}
		}
		if *showPairs {
			t.Logf("%-28q %-28q same=%-5v %-6s %.3f", p.A, p.B, p.Same, d.Action, d.Score)
		}
	}
	return m
}

// TestFixturePrecision measures auto-linking on the labelled mention
// pairs: the development part (the scorer was tuned on it) and the
// held-out part (it was not). docs/benchmarks.md reports both.
func TestFixturePrecision(t *testing.T) {
	for _, name := range []string{"pairs_dev.jsonl", "pairs_heldout.jsonl"} {
		t.Run(name, func(t *testing.T) {
			m := evaluate(t, readPairs(t, name))
			t.Log(m)
			if m.precision() < entity.AutoLinkScore {
				t.Errorf("auto-link precision %.3f, want at least %.2f", m.precision(), entity.AutoLinkScore)
			}
			if m.truePos == 0 {
				t.Errorf("nothing auto-linked correctly: %v", m)
			}
		})
	}
}
