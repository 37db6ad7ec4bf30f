package web

import (
	"net/http"
	"slices"

	"github.com/tenure-dev/tenure"
)

// conflictView is a resolution request with its claims side by side.
type conflictView struct {
	Resolution tenure.Resolution
	Claims     []tenure.Object
	Hidden     int // claims the reader cannot see
}

// conflicts lists the open resolution requests (or all of them, with
// all=1) the principal can see, each with its claims.
func (h *Handler) conflicts(w http.ResponseWriter, r *http.Request, c *call) error {
	all := r.URL.Query().Get("all") == "1"
	rs, err := h.store.Resolutions(r.Context(), c.p, !all)
	if err != nil {
		return err
	}
	var out []conflictView
	for _, res := range rs {
		cv := conflictView{Resolution: res}
		for _, id := range res.ObjectIDs {
			o, err := h.store.Get(r.Context(), c.p, id, tenure.Read{})
			switch {
			case tenure.ErrorCode(err) == tenure.CodeNotFound:
				cv.Hidden++
			case err != nil:
				return err
			default:
				cv.Claims = append(cv.Claims, o)
			}
		}
		out = append(out, cv)
	}
	return h.render(w, r, c, http.StatusOK, "conflicts.html", "Conflicts", "conflicts", struct {
		All       bool
		Conflicts []conflictView
		Flash     string
	}{all, out, r.URL.Query().Get("resolved")})
}

// resolve settles a conflict by keeping one claim: a new claim with its
// value that explicitly supersedes the key, written as the principal
// through the same Put as POST /v1/objects (which refuses what the
// principal may not displace).
func (h *Handler) resolve(w http.ResponseWriter, r *http.Request, c *call) error {
	rs, err := h.store.Resolutions(r.Context(), c.p, true)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(rs, func(x tenure.Resolution) bool { return x.ID == r.PathValue("id") })
	if i < 0 {
		return tenure.Errorf(tenure.CodeNotFound, "id", "no open resolution request %q", r.PathValue("id"))
	}
	res := rs[i]
	keep := r.PostFormValue("keep")
	if !slices.Contains(res.ObjectIDs, keep) {
		return tenure.Errorf(tenure.CodeInvalid, "keep", "name one of the request's claims")
	}
	o, err := h.store.Get(r.Context(), c.p, keep, tenure.Read{})
	if err != nil {
		return err
	}
	claim := tenure.Object{Key: o.Key, Value: o.Value, Content: o.Content, ObjectType: o.ObjectType, Layer: o.Layer,
		MemoryType: o.MemoryType, UserID: o.UserID, ProjectID: o.ProjectID, SessionID: o.SessionID, TaskID: o.TaskID,
		Scope: o.Scope, ScopeID: o.ScopeID, SecurityClassification: o.SecurityClassification, PermissionScope: o.PermissionScope,
		ValidFrom: o.ValidFrom, ValidUntil: o.ValidUntil,
		WhyItMatters: o.WhyItMatters, Supersedes: o.Key}
	wr, err := h.store.Put(r.Context(), c.p, claim)
	if err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"conflicts?resolved="+wr.Object.ObjectID, http.StatusSeeOther)
	return nil
}
