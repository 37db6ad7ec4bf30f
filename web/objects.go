package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

func (h *Handler) home(w http.ResponseWriter, r *http.Request, c *call) error {
	http.Redirect(w, r, Prefix+"objects", http.StatusSeeOther)
	return nil
}

// objectSearch is the search form's state.
type objectSearch struct {
	Key, Layer, Type, Status, Scope, Author string
	ValidAt, TxFrom, TxUntil                string
	Layers, Types, Statuses, Scopes         []string
	Objects                                 []tenure.Object
	Next                                    string // the next page's URL
	First                                   bool   // the first page
}

// parseTime reads a time field: RFC 3339, or the browser's
// datetime-local form (UTC).
func parseTime(field, v string) (*time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, field, "not a time (want RFC 3339 or YYYY-MM-DDTHH:MM, UTC)")
}

func vocab[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// objects is the search page: filters, newest first, a page at a time.
func (h *Handler) objects(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	s := objectSearch{Key: q.Get("key"), Layer: q.Get("layer"), Type: q.Get("type"), Status: q.Get("status"), Scope: q.Get("scope"),
		Author: q.Get("author"), ValidAt: q.Get("valid_at"), TxFrom: q.Get("tx_from"), TxUntil: q.Get("tx_until"),
		Layers: vocab(tenure.Layers), Types: vocab(tenure.ObjectTypes), Statuses: vocab(tenure.Statuses), Scopes: vocab(tenure.ScopeKinds),
		First: q.Get("cursor") == ""}
	f := tenure.Filter{KeyPrefix: s.Key, Author: s.Author, Cursor: q.Get("cursor"), Limit: h.opt.PageSize, Newest: true}
	var err error
	check := func(e error) {
		if err == nil {
			err = e
		}
	}
	if s.Layer != "" {
		f.Layer, err = tenure.ParseVocab("layer", s.Layer, tenure.Layers)
	}
	if s.Type != "" && err == nil {
		f.ObjectType, err = tenure.ParseVocab("type", s.Type, tenure.ObjectTypes)
	}
	if s.Status != "" && err == nil {
		f.Status, err = tenure.ParseVocab("status", s.Status, tenure.Statuses)
	}
	if s.Scope != "" && err == nil {
		f.ScopeKind, err = tenure.ParseVocab("scope", s.Scope, tenure.ScopeKinds)
	}
	var e error
	f.ValidAt, e = parseTime("valid_at", s.ValidAt)
	check(e)
	f.TxFrom, e = parseTime("tx_from", s.TxFrom)
	check(e)
	f.TxUntil, e = parseTime("tx_until", s.TxUntil)
	check(e)
	var pg tenure.Page
	if err == nil {
		pg, err = h.store.ListPage(r.Context(), c.p, f)
	}
	if err != nil {
		if tenure.ErrorCode(err) != tenure.CodeInvalid {
			return err
		}
		return h.render(w, r, c, http.StatusBadRequest, "objects.html", "Objects", "objects", struct {
			objectSearch
			Err *tenure.Error
		}{s, tenure.AsError(err)})
	}
	s.Objects = pg.Objects
	if pg.Next != "" {
		nq := url.Values{}
		for k, v := range q {
			if k != "cursor" && len(v) > 0 && v[0] != "" {
				nq.Set(k, v[0])
			}
		}
		nq.Set("cursor", pg.Next)
		s.Next = Prefix + "objects?" + nq.Encode()
	}
	return h.render(w, r, c, http.StatusOK, "objects.html", "Objects", "objects", struct {
		objectSearch
		Err *tenure.Error
	}{s, nil})
}

// objectView is the object page.
type objectView struct {
	Object     tenure.Object
	History    tenure.History
	Timeline   *timeline
	AsOfTx     string
	AsOfValid  string
	ReadNote   string
	DependsOn  []tenure.Object
	Dependants []tenure.Object
	Hidden     int // dependency links to objects the reader cannot see
}

// object shows one object at a read point, its key's supersession chain,
// the bitemporal timeline and its dependencies.
func (h *Handler) object(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	v := objectView{AsOfTx: q.Get("as_of_tx"), AsOfValid: q.Get("as_of_valid")}
	var rd tenure.Read
	var err error
	if rd.AsOfTx, err = parseTime("as_of_tx", v.AsOfTx); err != nil {
		return err
	}
	if rd.AsOfValid, err = parseTime("as_of_valid", v.AsOfValid); err != nil {
		return err
	}
	id := r.PathValue("id")
	o, err := h.store.Get(r.Context(), c.p, id, rd)
	if err != nil {
		return err
	}
	v.Object = o
	switch {
	case rd.AsOfTx != nil && rd.AsOfValid != nil:
		v.ReadNote = "as believed at " + fmtTime(*rd.AsOfTx) + ", true at " + fmtTime(*rd.AsOfValid)
	case rd.AsOfTx != nil:
		v.ReadNote = "as believed at " + fmtTime(*rd.AsOfTx)
	case rd.AsOfValid != nil:
		v.ReadNote = "true at " + fmtTime(*rd.AsOfValid) + " by the latest belief"
	}
	hist, err := h.store.History(r.Context(), c.p, o.Key, tenure.Scope{})
	if err != nil && tenure.ErrorCode(err) != tenure.CodeNotFound {
		return err
	}
	v.History = hist
	v.Timeline = newTimeline(hist.Versions, o.ObjectID, h.opt.Now(), rd.AsOfTx, rd.AsOfValid)
	// What it depends on is shown only when the reader can get it.
	for _, dep := range o.DependsOn {
		d, err := h.store.CurrentValue(r.Context(), c.p, dep, tenure.Read{})
		if tenure.ErrorCode(err) == tenure.CodeNotFound {
			d, err = h.store.Get(r.Context(), c.p, dep, tenure.Read{})
		}
		switch {
		case tenure.ErrorCode(err) == tenure.CodeNotFound:
			v.Hidden++
		case err != nil:
			return err
		default:
			v.DependsOn = append(v.DependsOn, d)
		}
	}
	if v.Dependants, err = h.store.Dependants(r.Context(), c.p, o.ObjectID); err != nil {
		return err
	}
	return h.render(w, r, c, http.StatusOK, "object.html", o.Key, "objects", v)
}
