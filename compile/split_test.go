package compile_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/compile"
)

// splitReference is the splitter as it was before it stopped copying
// words: the definition the in-place one must match unit for unit.
func splitReference(text string, max int) []string {
	var units []string
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				units = append(units, strings.Join(cur, " "))
				cur = nil
			}
		}
		var sents []string
		start := 0
		for i := 0; i < len(para); i++ {
			if (para[i] == '.' || para[i] == '!' || para[i] == '?' || para[i] == '\n') && (i+1 == len(para) || para[i+1] == ' ' || para[i+1] == '\n') {
				sents = append(sents, para[start:i+1])
				start = i + 1
			}
		}
		if start < len(para) {
			sents = append(sents, para[start:])
		}
		for _, sent := range sents {
			words := strings.Fields(sent)
			for len(words) > max {
				flush()
				units = append(units, strings.Join(words[:max], " "))
				words = words[max:]
			}
			if len(cur)+len(words) > max {
				flush()
			}
			cur = append(cur, words...)
		}
		flush()
	}
	if len(units) == 0 {
		units = []string{strings.TrimSpace(text)}
	}
	return units
}

func TestSplitUnitsMatchesReference(t *testing.T) {
	pieces := []string{"a", "bb", "word", "é", "日本", "\xff", ".", "!", "?", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\u00a0", "\u2003", "end.", "x! ", "? "}
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 20000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text, max := b.String(), 1+rng.IntN(6)
		if got, want := compile.SplitUnits(text, max), splitReference(text, max); !slices.Equal(got, want) {
			t.Fatalf("round %d: splitUnits(%q, %d)\n got %q\nwant %q", round, text, max, got, want)
		}
	}
	long := prose(200_000, 3)
	if got, want := compile.SplitUnits(long, 80), splitReference(long, 80); !slices.Equal(got, want) {
		t.Fatalf("prose: %d units, want %d", len(got), len(want))
	}
}

func FuzzSplitUnits(f *testing.F) {
	f.Add("One. Two!  Three?\n\nFour\r\nfive", 2)
	f.Add(strings.Repeat("w ", 200), 80)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 1 || max > 100 {
			return
		}
		if got, want := compile.SplitUnits(text, max), splitReference(text, max); !slices.Equal(got, want) {
			t.Fatalf("splitUnits(%q, %d)\n got %q\nwant %q", text, max, got, want)
		}
	})
}
