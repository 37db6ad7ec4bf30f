package eval

import (
	"strings"
	"unicode"
)

// normalizeSpace collapses runs of whitespace, so that a turn counts as
// present whatever line wrapping the context used.
func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// EvidenceRecall is LoCoMo's retrieval metric for one question: the share
// of its evidence turns whose text appears verbatim in the context.
// Evidence ids with no known turn count as missed. It returns false when
// the question has no evidence.
func EvidenceRecall(context string, evidence []string, turnText map[string]string) (float64, bool) {
	if len(evidence) == 0 {
		return 0, false
	}
	ctx := normalizeSpace(context)
	hit := 0
	for _, id := range evidence {
		if t, ok := turnText[id]; ok && strings.Contains(ctx, normalizeSpace(t)) {
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
