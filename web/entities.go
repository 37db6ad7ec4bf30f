package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/memory"
)

// entityList is the entities page: filters, one page of entities and the
// links to the neighbouring pages.
type entityList struct {
	Type, Status, User string
	Types              []entity.Type
	Statuses           []entity.Status
	Entities           []entity.Entity
	From, Limit        int
	Prev, Next         string // the neighbouring pages' URLs
	Capped             bool   // the registry holds more than a listing reaches
}

// entities lists the entities of the registries the principal reads,
// filtered by type and status, a page at a time (?from=N&limit=M), read
// like GET /v1/entities.
func (h *Handler) entities(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	v := entityList{Type: q.Get("type"), Status: q.Get("status"), User: strings.TrimSpace(q.Get("user")),
		Types: entity.Types, Statuses: []entity.Status{entity.StatusActive, entity.StatusPending, entity.StatusMerged}, Limit: h.opt.PageSize}
	var err error
	if s := q.Get("limit"); s != "" {
		if v.Limit, err = strconv.Atoi(s); err != nil || v.Limit < 1 || v.Limit > entity.MaxList {
			return tenure.Errorf(tenure.CodeInvalid, "limit", "must be between 1 and %d", entity.MaxList)
		}
	}
	if s := q.Get("from"); s != "" {
		if v.From, err = strconv.Atoi(s); err != nil || v.From < 0 || v.From >= entity.MaxList {
			return tenure.Errorf(tenure.CodeInvalid, "from", "must be between 0 and %d", entity.MaxList-1)
		}
	}
	// The registry lists from the start: ask for this page and one more
	// entity, within the listing's bound.
	want := min(v.From+v.Limit+1, entity.MaxList)
	es, err := h.store.Entities(r.Context(), c.p, entity.Query{UserID: v.User, Type: entity.Type(v.Type), Status: entity.Status(v.Status), Limit: want})
	if err != nil {
		return err
	}
	page := func(from int) string {
		u := url.Values{}
		for k, s := range map[string]string{"type": v.Type, "status": v.Status, "user": v.User} {
			if s != "" {
				u.Set(k, s)
			}
		}
		u.Set("from", strconv.Itoa(from))
		u.Set("limit", strconv.Itoa(v.Limit))
		return Prefix + "entities?" + u.Encode()
	}
	if v.From < len(es) {
		v.Entities = es[v.From:min(len(es), v.From+v.Limit)]
	}
	switch {
	case len(es) > v.From+v.Limit:
		v.Next = page(v.From + v.Limit)
	case len(es) == entity.MaxList && want == entity.MaxList:
		v.Capped = true
	}
	if v.From > 0 {
		v.Prev = page(max(0, v.From-v.Limit))
	}
	return h.render(w, r, c, http.StatusOK, "entities.html", "Entities", "entities", v)
}

// entityPage is an entity with its history, memories and card.
type entityPage struct {
	View     entity.View
	User     string // the registry's user, for links ("": own and shared)
	Memories []tenure.Object
	Card     []tenure.Object
	CardText string // the card as the compiler renders it
	Curate   bool   // whether the curating forms are shown (the engine decides)
	Done     string // the operation just done
	Undoable map[string]bool
}

// entityPage shows an entity (?user= names another user's registry, as
// GET /v1/entities/{id}), its versions and operations, the memories about
// it and its card; to those who may curate its registry, the forms to
// merge, split, settle and undo.
func (h *Handler) entityPage(w http.ResponseWriter, r *http.Request, c *call) error {
	user := strings.TrimSpace(r.URL.Query().Get("user"))
	v, err := h.store.Entity(r.Context(), c.p, r.PathValue("id"), user)
	if err != nil {
		return err
	}
	pg := entityPage{View: v, User: user, Done: r.URL.Query().Get("done"), Curate: mayCurate(c.p, v.Entity.UserID), Undoable: map[string]bool{}}
	for _, op := range v.Ops {
		pg.Undoable[op.ID] = op.UndoneAt == nil
	}
	if pg.Memories, err = h.entityMemories(r, c, v.Entity); err != nil {
		return err
	}
	pg.Card = memory.CardFacts(pg.Memories)
	if len(pg.Card) > 0 {
		texts := make([]string, len(pg.Card))
		for i, o := range pg.Card {
			texts[i] = strings.TrimRight(strings.Join(strings.Fields(o.Content), " "), ";")
		}
		pg.CardText = "[" + v.Entity.ID + "]: " + strings.Join(texts, "; ")
	}
	return h.render(w, r, c, http.StatusOK, "entity.html", v.Entity.Label, "entities", pg)
}

// entityMemories returns the active memories the principal reads about
// an entity: those naming its id or one of its aliases, of its registry's
// user (none for the shared registry), in card order.
func (h *Handler) entityMemories(r *http.Request, c *call, e entity.Entity) ([]tenure.Object, error) {
	keys := map[string]bool{e.ID: true}
	for _, a := range e.Aliases {
		keys[tenure.NormalizeEntityRef(a)] = true
	}
	all, err := memory.List(r.Context(), h.store, c.p, memory.Query{Limit: 10000})
	if err != nil {
		return nil, err
	}
	var out []tenure.Object
	for _, o := range all {
		if o.UserID == e.UserID && slices.ContainsFunc(o.Memory.EntityRefs, func(ref string) bool { return keys[ref] }) {
			out = append(out, o)
		}
	}
	return out, nil
}

// mayCurate says whether to show the curating forms: the rule of the
// engine (docs/entities.md, governance), which decides each request
// anyway.
func mayCurate(p tenure.Principal, registry string) bool {
	if registry == "" {
		return p.HasPermission(tenure.PermEntitiesWrite) || p.HasPermission(tenure.PermRulesWrite)
	}
	return registry == p.UserID || p.HasPermission(tenure.PermAnyUser)
}

// entityURL is an entity's page, in the registry of user.
func entityURL(id, user, done string) string {
	u := Prefix + "entities/" + url.PathEscape(id)
	q := url.Values{}
	if user != "" {
		q.Set("user", user)
	}
	if done != "" {
		q.Set("done", done)
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// mergeEntities merges the entity from into into, as the principal
// (POST /v1/entities/merge).
func (h *Handler) mergeEntities(w http.ResponseWriter, r *http.Request, c *call) error {
	req := entity.MergeRequest{From: strings.TrimSpace(r.PostFormValue("from")), Into: strings.TrimSpace(r.PostFormValue("into")),
		UserID: r.PostFormValue("user"), Reason: r.PostFormValue("reason")}
	ch, err := h.store.MergeEntities(r.Context(), c.p, req)
	if err != nil {
		return err
	}
	http.Redirect(w, r, entityURL(req.Into, req.UserID, ch.Op.ID), http.StatusSeeOther)
	return nil
}

// settleEntity links a pending entity to a candidate (into) or keeps it
// (keep=1), as the principal (POST /v1/entities/settle).
func (h *Handler) settleEntity(w http.ResponseWriter, r *http.Request, c *call) error {
	req := entity.SettleRequest{ID: r.PathValue("id"), Into: strings.TrimSpace(r.PostFormValue("into")), Keep: r.PostFormValue("keep") == "1",
		UserID: r.PostFormValue("user"), Reason: r.PostFormValue("reason")}
	if req.Keep {
		req.Into = ""
	} else if req.Into == "" {
		return tenure.Errorf(tenure.CodeInvalid, "into", "choose the entity to link to, or keep it")
	}
	ch, err := h.store.SettleEntity(r.Context(), c.p, req)
	if err != nil {
		return err
	}
	http.Redirect(w, r, entityURL(req.ID, req.UserID, ch.Op.ID), http.StatusSeeOther)
	return nil
}

// splitEntity moves the chosen aliases to a new entity, as the principal
// (POST /v1/entities/split).
func (h *Handler) splitEntity(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := r.ParseForm(); err != nil {
		return tenure.Errorf(tenure.CodeInvalid, "", "unreadable form")
	}
	req := entity.SplitRequest{ID: r.PathValue("id"), Aliases: r.PostForm["alias"], Label: strings.TrimSpace(r.PostFormValue("label")),
		UserID: r.PostFormValue("user"), Reason: r.PostFormValue("reason")}
	if len(req.Aliases) == 0 {
		return tenure.Errorf(tenure.CodeInvalid, "alias", "choose the aliases to split off")
	}
	ch, err := h.store.SplitEntity(r.Context(), c.p, req)
	if err != nil {
		return err
	}
	http.Redirect(w, r, entityURL(req.ID, req.UserID, ch.Op.ID), http.StatusSeeOther)
	return nil
}

// undoEntityOp undoes an operation, as the principal (POST
// /v1/entities/undo), and returns to the entity the form was on.
func (h *Handler) undoEntityOp(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := h.store.UndoEntityOp(r.Context(), c.p, r.PathValue("op"))
	if err != nil {
		return err
	}
	back := r.PostFormValue("back")
	if back == "" {
		back = ch.Op.From
	}
	http.Redirect(w, r, entityURL(back, r.PostFormValue("user"), ch.Op.ID), http.StatusSeeOther)
	return nil
}
