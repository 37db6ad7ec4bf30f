package extract_test

import (
	"context"
	"testing"

	"github.com/tenure-dev/tenure/extract"
)

// custom is an extractor without a Name method.
type custom struct{}

func (custom) Extract(context.Context, extract.Batch) (extract.Result, error) {
	return extract.Result{}, nil
}

func TestName(t *testing.T) {
	for _, tc := range []struct {
		x    extract.Extractor
		want string
	}{
		{extract.NewRules(extract.RulesOptions{}), "rules"},
		{extract.NewLLM(nil, extract.LLMOptions{}), "llm"},
		{custom{}, "custom"},
	} {
		if got := extract.Name(tc.x); got != tc.want {
			t.Errorf("Name(%T) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
