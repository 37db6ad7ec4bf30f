package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
)

// snapshotView is a workflow's snapshot at a round, its rounds and the
// delta history of a path.
type snapshotView struct {
	Workflow string
	Round    string
	Path     string
	Snapshot *snapshot.Snapshot
	State    string // the snapshot's JSON, indented
	Rounds   []int
	History  *snapshot.PathHistory
	Err      *tenure.Error
}

// snapshots shows a workflow (?workflow=ID) at its latest or a past round
// (&round=N) and the deltas that touched a path (&path=$.bindings.x),
// read as the principal like GET /v1/workflows/{id} and its history.
func (h *Handler) snapshots(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	v := snapshotView{Workflow: strings.TrimSpace(q.Get("workflow")), Round: q.Get("round"), Path: q.Get("path")}
	if v.Workflow == "" {
		return h.render(w, r, c, http.StatusOK, "snapshots.html", "Snapshots", "snapshots", v)
	}
	fail := func(err error) error {
		if te := tenure.AsError(err); te.Code == tenure.CodeInvalid || te.Code == tenure.CodeNotFound {
			v.Err = te
			return h.render(w, r, c, tenure.HTTPStatus(te.Code), "snapshots.html", "Snapshots", "snapshots", v)
		}
		return err
	}
	var rd snapshot.Read
	if v.Round != "" {
		n, err := strconv.Atoi(v.Round)
		if err != nil || n < 0 {
			return fail(tenure.Errorf(tenure.CodeInvalid, "round", "not a round number"))
		}
		rd.Round = &n
	}
	s, err := h.store.Snapshot(r.Context(), c.p, v.Workflow, rd)
	if err != nil {
		return fail(err)
	}
	v.Snapshot = &s
	b, err := json.MarshalIndent(s.State, "", "  ")
	if err != nil {
		return tenure.Internal("snapshot state", err)
	}
	v.State = string(b)
	latest, err := h.store.Snapshot(r.Context(), c.p, v.Workflow, snapshot.Read{OmitDeltas: true})
	if err != nil {
		return fail(err)
	}
	for i := 0; i <= latest.Round; i++ {
		v.Rounds = append(v.Rounds, i)
	}
	if v.Path != "" {
		ph, err := h.store.PathHistory(r.Context(), c.p, v.Workflow, v.Path)
		if err != nil {
			return fail(err)
		}
		v.History = &ph
	}
	return h.render(w, r, c, http.StatusOK, "snapshots.html", "Snapshots", "snapshots", v)
}

// entities is the slot of the entity pages (entity cards, merge and split
// history), which come with package entity.
func (h *Handler) entities(w http.ResponseWriter, r *http.Request, c *call) error {
	return h.render(w, r, c, http.StatusOK, "entities.html", "Entities", "entities", nil)
}
