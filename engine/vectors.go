package engine

import (
	"context"
	"fmt"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/semantic"
)

// Embedding returns the model that embeds messages (nil: none).
func (e *Engine) Embedding() *semantic.Model { return e.opt.Embedding }

// EmbedMessages gives the messages that have no vector of the engine's
// model one (see semantic.Model.Index): every tenant's when tenant is
// empty, a tenant's, or one thread of a tenant's. Progress, when not nil,
// is told how many of the pending messages are done. What was embedded
// stays when the endpoint fails: the report counts what was left.
// Errors: CodeInvalid when the engine has no model; the endpoint's
// (CodeUnavailable, CodeTimeout, CodeUnauthenticated).
func (e *Engine) EmbedMessages(ctx context.Context, tenant, thread string, progress func(done, total int)) (semantic.Report, error) {
	return e.embed(ctx, semantic.Backlog{Tenant: tenant, Thread: thread}, progress)
}

// embed embeds the backlog b selects.
func (e *Engine) embed(ctx context.Context, b semantic.Backlog, progress func(done, total int)) (semantic.Report, error) {
	tenant, thread := b.Tenant, b.Thread
	m := e.opt.Embedding
	if m == nil {
		return semantic.Report{}, fmt.Errorf("embed messages: %w", tenure.Errorf(tenure.CodeInvalid, "embedder", "no embedding model is configured"))
	}
	if thread != "" && tenant == "" {
		return semantic.Report{Model: m.Name()}, fmt.Errorf("embed messages: %w", tenure.Errorf(tenure.CodeInvalid, "tenant_id", "required with a thread"))
	}
	rep, err := m.Index(ctx, e.b, b, progress)
	return rep, wrapIf("embed messages", err)
}

// nearest adds to msgs, the full-text candidates of q, the messages
// nearest in meaning to q.Vector and their neighbours, and sets the
// similarity of every candidate that has a vector.
func (e *Engine) nearest(ctx context.Context, tenant string, s tenure.Scope, q tenure.MessageQuery,
	msgs []tenure.ScoredMessage) ([]tenure.ScoredMessage, error) {
	near, sims, err := e.b.NearestMessages(ctx, tenant, NearestFilter{Model: q.Model, Vector: q.Vector, Limit: q.VectorLimit,
		Neighbors: q.Neighbors, WideMatches: q.WideMatches, UserID: s.UserID, PersonaID: q.Principal.PersonaID, ProjectID: s.ProjectID, Before: q.Before, Threads: q.Threads})
	if err != nil {
		return nil, err
	}
	at := make(map[int64]int, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		at[m.Seq] = i
		m.Similarity, m.Embedded = sims[m.Seq]
	}
	for _, n := range near {
		if i, ok := at[n.Seq]; ok {
			msgs[i].Near = n.Near
			continue
		}
		msgs = append(msgs, n)
	}
	return msgs, nil
}
