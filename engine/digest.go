package engine

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/semantic"
)

// DigestResult reports both channels of a digest: each may fail without
// the other.
type DigestResult struct {
	State        tenure.ExtractionResult `json:"state"`
	StateError   *tenure.Error           `json:"state_error,omitempty"`
	Summary      *SummaryResult          `json:"summary,omitempty"`
	SummaryError *tenure.Error           `json:"summary_error,omitempty"`
	// Vectors reports the embedding of the thread's messages that had no
	// vector yet, when the engine has an embedding model.
	Vectors      *semantic.Report `json:"vectors,omitempty"`
	VectorsError *tenure.Error    `json:"vectors_error,omitempty"`
}

// Err returns the first channel error, or nil.
func (d DigestResult) Err() error {
	switch {
	case d.StateError != nil:
		return d.StateError
	case d.SummaryError != nil:
		return d.SummaryError
	case d.VectorsError != nil:
		return d.VectorsError
	}
	return nil
}

// Digest brings a thread's structured state (with x), narrative summaries
// (with s; nil skips them) and, when the engine has an embedding model,
// the vectors of its messages up to date. The channels run one after the
// other and fail apart: an extractor that fails or times out never keeps
// the summaries from being written or the messages from being embedded,
// nor the other way round.
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
	if e.opt.Embedding != nil {
		rep, err := e.embedThread(ctx, p, thread)
		d.Vectors = &rep
		if err != nil {
			d.VectorsError = tenure.AsError(err)
		}
	}
	return d
}

// embedThread embeds the thread's messages p can read that have no vector
// (its own and the shared ones: the report must not count the others').
func (e *Engine) embedThread(ctx context.Context, p tenure.Principal, thread string) (semantic.Report, error) {
	p, err := e.principal(p)
	if err != nil {
		return semantic.Report{Model: e.opt.Embedding.Name()}, fmt.Errorf("embed messages: %w", err)
	}
	return e.embed(ctx, semantic.Backlog{Tenant: p.TenantID, Thread: thread, Reader: &p.UserID, ReaderPersona: p.PersonaID}, nil)
}
