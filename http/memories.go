package http

import (
	"net/http"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

// MemoryList is the body of GET /v1/memories.
type MemoryList struct {
	Memories []tenure.Object `json:"memories"`
}

// ImportanceRequest is the body of PUT /v1/memories/{id}/importance.
type ImportanceRequest struct {
	// Importance is 0 (trivial) … 3 (core identity).
	Importance *int `json:"importance"`
}

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	mq := memory.Query{Scope: q.scope(), Kind: tenure.MemoryKind(q.str("type")), Entity: q.str("entity"),
		Archived: q.bool("archived", false), Limit: q.int("limit")}
	if err := q.done(); err != nil {
		return nil, err
	}
	var objs []tenure.Object
	err := s.metrics.op("list_memories", func() (err error) { objs, err = memory.List(r.Context(), s.store, p, mq); return })
	if objs == nil {
		objs = []tenure.Object{}
	}
	return MemoryList{Memories: objs}, err
}

func (s *Server) pinMemory(pinned bool) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
		if err := newQuery(r).done(); err != nil {
			return nil, err
		}
		var res tenure.WriteResult
		err := s.metrics.op("pin_memory", func() (err error) {
			res, err = memory.SetPinned(r.Context(), s.store, p, r.PathValue("id"), pinned)
			return
		})
		return res, err
	}
}

func (s *Server) setImportance(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	body, err := decodeBody[ImportanceRequest](s, r, "importance request")
	if err != nil {
		return nil, err
	}
	if body.Importance == nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "importance", "required: 0, 1, 2 or 3")
	}
	var res tenure.WriteResult
	err = s.metrics.op("set_importance", func() (err error) {
		res, err = memory.SetImportance(r.Context(), s.store, p, r.PathValue("id"), *body.Importance)
		return
	})
	return res, err
}
