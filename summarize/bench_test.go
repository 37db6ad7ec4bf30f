package summarize_test

import (
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/summarize"
)

// BenchmarkExtractiveRolling folds ten turns into a full summary, as the
// write path does every DefaultRollingEvery user turns.
func BenchmarkExtractiveRolling(b *testing.B) {
	msgs := loadMessages(b, "picnic.jsonl")
	e := summarize.NewExtractive(summarize.Options{})
	prev, _ := e.Rolling(ctx, "", msgs)
	for b.Loop() {
		if _, err := e.Rolling(ctx, prev, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractiveSession(b *testing.B) {
	msgs := loadMessages(b, "picnic.jsonl")
	e := summarize.NewExtractive(summarize.Options{})
	for b.Loop() {
		if _, err := e.Session(ctx, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractiveLarge summarizes a long session of 200 messages with
// many distinct names and questions.
func BenchmarkExtractiveLarge(b *testing.B) {
	var sb strings.Builder
	for i := range 200 {
		if i > 0 {
			sb.WriteByte('|')
		}
		for j := range 20 {
			sb.WriteString("Did Name")
			sb.WriteByte(byte('A' + (i+j)%26))
			sb.WriteByte(byte('a' + (i*j)%26))
			sb.WriteString(" say I'll meet Bob Smith on Monday at 3? ")
		}
	}
	msgs := fuzzMessages(sb.String())
	e := summarize.NewExtractive(summarize.Options{})
	for b.Loop() {
		if _, err := e.Session(ctx, msgs); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Rolling(ctx, "", msgs); err != nil {
			b.Fatal(err)
		}
	}
}
