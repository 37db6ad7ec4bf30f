package engine

import (
	"context"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
)

// DigestResult reports both channels of a digest: each may fail without
// the other.
type DigestResult struct {
	State        tenure.ExtractionResult `json:"state"`
	StateError   *tenure.Error           `json:"state_error,omitempty"`
	Summary      *SummaryResult          `json:"summary,omitempty"`
	SummaryError *tenure.Error           `json:"summary_error,omitempty"`
}

// Err returns the first channel error, or nil.
func (d DigestResult) Err() error {
	switch {
	case d.StateError != nil:
		return d.StateError
	case d.SummaryError != nil:
		return d.SummaryError
	}
	return nil
}

// Digest brings a thread's structured state (with x) and narrative
// summaries (with s; nil skips them) up to date. The channels run one
// after the other and fail apart: an extractor that fails or times out
// never keeps the summaries from being written, nor the other way round.
func (e *Engine) Digest(ctx context.Context, p tenure.Principal, thread string, x extract.Extractor, s Summarizer, opt SummaryOptions) DigestResult {
	var d DigestResult
	var err error
	if d.State, err = e.ExtractAll(ctx, p, thread, x); err != nil {
		d.StateError = tenure.AsError(err)
	}
	if s != nil {
		sum, err := e.Summarize(ctx, p, thread, s, opt)
		d.Summary = &sum
		if err != nil {
			d.SummaryError = tenure.AsError(err)
		}
	}
	return d
}
