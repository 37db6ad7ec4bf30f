package eval

import (
	"strings"
	"unicode"
)

// normalizeText is what "present verbatim" compares: the text with
// invisible characters (controls other than whitespace, and format
// characters such as zero-width spaces and direction marks) dropped and
// every run of whitespace (line breaks, tabs, non-breaking spaces) turned
// into one space, so that a turn counts as present whatever line wrapping
// the context used and whatever invisible characters its renderer
// removed. Nothing else is folded: case, punctuation and escaping count.
func normalizeText(s string) string {
	clean := true
	for _, r := range s {
		if invisible(r) {
			clean = false
			break
		}
	}
	if !clean {
		s = strings.Map(func(r rune) rune {
			if invisible(r) {
				return -1
			}
			return r
		}, s)
	}
	return strings.Join(strings.Fields(s), " ")
}

func invisible(r rune) bool {
	return (unicode.IsControl(r) && !unicode.IsSpace(r)) || unicode.Is(unicode.Cf, r)
}

// EvidenceRecall is LoCoMo's retrieval metric for one question: the share
// of its evidence turns whose text appears verbatim in the context.
// Evidence ids with no known turn count as missed. It returns false when
// the question has no evidence.
func EvidenceRecall(context string, evidence []string, turnText map[string]string) (float64, bool) {
	if len(evidence) == 0 {
		return 0, false
	}
	ctx := normalizeText(context)
	hit := 0
	for _, id := range evidence {
		if t, ok := turnText[id]; ok && strings.Contains(ctx, normalizeText(t)) {
			hit++
		}
	}
	return float64(hit) / float64(len(evidence)), true
}

// AnswerTokenRecall is the share of the gold answer's normalized content
// tokens present among the context's tokens. It returns false for answers
// without content tokens.
func AnswerTokenRecall(context, answer string) (float64, bool) {
	want := contentTokens(answer)
	if len(want) == 0 {
		return 0, false
	}
	have := map[string]bool{}
	for _, t := range contentTokens(context) {
		have[t] = true
	}
	hit := 0
	for _, t := range want {
		if have[t] {
			hit++
		}
	}
	return float64(hit) / float64(len(want)), true
}

// contentTokens lowercases, strips punctuation and drops articles and
// common function words (SQuAD-style answer normalization), keeping
// numbers.
func contentTokens(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []string
	seen := map[string]bool{}
	for _, w := range f {
		if answerStopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

var answerStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on at for with by from is was were be been are it its
		that this these those as s t`) {
		m[w] = true
	}
	return m
}()
