package http

import (
	"net/http"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

// The entity registry (docs/entities.md). A registry the caller cannot
// read (another user's without scope:any_user, another tenant's) answers
// 404 exactly like a missing entity.

// EntityList is the body of GET /v1/entities.
type EntityList struct {
	Entities []entity.Entity `json:"entities"`
}

// ResolveRequest is the body of POST /v1/entities/resolve.
type ResolveRequest struct {
	Mention string `json:"mention"`
	UserID  string `json:"user_id,omitempty"`
}

// UndoRequest is the body of POST /v1/entities/undo.
type UndoRequest struct {
	OpID string `json:"op_id"`
}

func (s *Server) listEntities(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	eq := entity.Query{UserID: q.str("user_id"), Status: entity.Status(q.str("status")), Type: entity.Type(q.str("type")), Limit: q.int("limit")}
	if err := q.done(); err != nil {
		return nil, err
	}
	var out EntityList
	err := s.metrics.op("list_entities", func() (err error) { out.Entities, err = s.store.Entities(r.Context(), p, eq); return })
	if out.Entities == nil {
		out.Entities = []entity.Entity{}
	}
	return out, err
}

func (s *Server) getEntity(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	user := q.str("user_id")
	if err := q.done(); err != nil {
		return nil, err
	}
	var v entity.View
	err := s.metrics.op("entity", func() (err error) { v, err = s.store.Entity(r.Context(), p, r.PathValue("id"), user); return })
	return v, err
}

// entityPost handles the registry's POST routes: decode the body, run.
func entityPost[T any](s *Server, op string, run func(*http.Request, tenure.Principal, T) (any, error)) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
		if err := newQuery(r).done(); err != nil {
			return nil, err
		}
		in, err := decodeBody[T](s, r, op+" request")
		if err != nil {
			return nil, err
		}
		var out any
		err = s.metrics.op(op, func() (err error) { out, err = run(r, p, in); return })
		return out, err
	}
}

func (s *Server) entityRoutes(api func(string, apiFunc)) {
	api("GET /v1/entities", s.listEntities)
	api("GET /v1/entities/{id}", s.getEntity)
	api("POST /v1/entities/resolve", entityPost(s, "resolve_entity", func(r *http.Request, p tenure.Principal, in ResolveRequest) (any, error) {
		return s.store.ResolveMention(r.Context(), p, in.Mention, in.UserID)
	}))
	api("POST /v1/entities/merge", entityPost(s, "merge_entities", func(r *http.Request, p tenure.Principal, in entity.MergeRequest) (any, error) {
		return s.store.MergeEntities(r.Context(), p, in)
	}))
	api("POST /v1/entities/split", entityPost(s, "split_entity", func(r *http.Request, p tenure.Principal, in entity.SplitRequest) (any, error) {
		return s.store.SplitEntity(r.Context(), p, in)
	}))
	api("POST /v1/entities/settle", entityPost(s, "settle_entity", func(r *http.Request, p tenure.Principal, in entity.SettleRequest) (any, error) {
		return s.store.SettleEntity(r.Context(), p, in)
	}))
	api("POST /v1/entities/undo", entityPost(s, "undo_entity_op", func(r *http.Request, p tenure.Principal, in UndoRequest) (any, error) {
		return s.store.UndoEntityOp(r.Context(), p, in.OpID)
	}))
}
