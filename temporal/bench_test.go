package temporal_test

import (
	"testing"

	"github.com/tenure-dev/tenure/temporal"
)

func BenchmarkResolve(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		// 200 bytes with no trigger word: the common case, prefilter only.
		{"None", "I finally finished the quarterly report and sent it over to Maria for review. " +
			"She thinks the charts need more work, so we will sit down together and go over " +
			"the numbers once the data team is ready."},
		// 200 bytes whose only trigger ("this") resolves to nothing: the
		// prefilter passes and the full scan runs.
		{"TriggerNoMatch", "I finally finished the quarterly report and sent this over to Maria for review. " +
			"She thinks the charts need more work, so we will sit down together and go over " +
			"the numbers once the data team is ready."},
		{"Expressions", "Yesterday I went hiking, and last Saturday we had a picnic by the lake. " +
			"A couple of weeks ago I started a new job; next month I move, and last May " +
			"we visited Lisbon on Friday of that week."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := temporal.New()
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				r.Resolve(bc.text, monday)
			}
		})
	}
}
