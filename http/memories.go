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

// CurateRequest is the body of POST /v1/curate: a curator run over the
// memories of the scope the caller can read (see memory.Curate).
type CurateRequest struct {
	Scope tenure.Scope `json:"scope"`
	// Similarity is the word overlap (0–1) at which two memories of one
	// entity and fact type are near-duplicates (0: the default, 0.6).
	Similarity float64 `json:"similarity,omitempty"`
	// DryRun reports what would be folded and archived without doing it
	// (and records no run).
	DryRun bool `json:"dry_run,omitempty"`
}

// curate runs the curator as the caller and, unless it is a dry run,
// records the run in the session state of the scope's user and the
// caller's persona, like tenure curate on a local store and the
// scheduled curator.
func (s *Server) curate(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	body, err := decodeBody[CurateRequest](s, r, "curate request")
	if err != nil {
		return nil, err
	}
	if body.Similarity < 0 || body.Similarity > 1 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "similarity", "must be between 0 and 1")
	}
	rec, _ := s.store.(memory.RunRecorder)
	var rep memory.CurateReport
	err = s.metrics.op("curate", func() (err error) {
		rep, err = memory.CurateAndRecord(r.Context(), s.store, rec, p,
			memory.CurateOptions{Scope: body.Scope, Similarity: body.Similarity, DryRun: body.DryRun})
		return
	})
	return rep, err
}
