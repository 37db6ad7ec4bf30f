package http

import (
	"net/http"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
	"github.com/tenure-dev/tenure/snapshot"
)

// Workflow snapshots (docs/snapshots.md). A workflow another principal
// cannot see answers 404 exactly like a missing one; a delta's agent is
// the key's principal.

// SubmitRequest is the body of POST /v1/workflows/{id}/deltas: deltas for
// the open round, stored all or nothing.
type SubmitRequest struct {
	Deltas []snapshot.Delta `json:"deltas"`
}

func (s *Server) startWorkflow(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	wf, err := decodeBody[snapshot.Workflow](s, r, "workflow")
	if err != nil {
		return nil, err
	}
	var snap snapshot.Snapshot
	err = s.metrics.op("start_workflow", func() (err error) { snap, err = s.store.StartWorkflow(r.Context(), p, wf); return })
	return snap, err
}

func (s *Server) getSnapshot(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	var rd snapshot.Read
	if q.str("round") != "" {
		n := q.int("round")
		rd.Round = &n
	}
	rd.AsOf = q.time("as_of")
	rd.OmitDeltas = !q.bool("deltas", true)
	if err := q.done(); err != nil {
		return nil, err
	}
	var snap snapshot.Snapshot
	err := s.metrics.op("snapshot", func() (err error) { snap, err = s.store.Snapshot(r.Context(), p, r.PathValue("id"), rd); return })
	return snap, err
}

func (s *Server) submitDeltas(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	req, err := decodeBody[SubmitRequest](s, r, "submit request")
	if err != nil {
		return nil, err
	}
	if req.Deltas == nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "deltas", "required")
	}
	var res snapshot.SubmitResult
	err = s.metrics.op("submit_deltas", func() (err error) {
		res, err = s.store.SubmitDeltas(r.Context(), p, r.PathValue("id"), req.Deltas)
		return
	})
	if err != nil && tenure.ErrorField(err) != "workflowId" {
		return nil, jsonx.Under("deltas", err)
	}
	return res, err
}

func (s *Server) closeRound(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	round := q.int("round")
	if err := q.done(); err != nil {
		return nil, err
	}
	var snap snapshot.Snapshot
	err := s.metrics.op("close_round", func() (err error) {
		snap, err = s.store.CloseRound(r.Context(), p, r.PathValue("id"), round)
		return
	})
	return snap, err
}

func (s *Server) pathHistory(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	path := q.str("path")
	if err := q.done(); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "path", "required: a JSONPath such as $.bindings.customer")
	}
	var h snapshot.PathHistory
	err := s.metrics.op("path_history", func() (err error) { h, err = s.store.PathHistory(r.Context(), p, r.PathValue("id"), path); return })
	return h, err
}

func (s *Server) binding(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	var b snapshot.Binding
	err := s.metrics.op("binding", func() (err error) {
		b, err = s.store.Binding(r.Context(), p, r.PathValue("id"), r.PathValue("term"))
		return
	})
	return b, err
}
