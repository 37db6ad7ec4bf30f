package web

import (
	"net/http"
	"sort"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
)

// maxThreadMessages caps the messages a thread page shows.
const maxThreadMessages = 2000

func (h *Handler) threads(w http.ResponseWriter, r *http.Request, c *call) error {
	ts, err := h.store.Threads(r.Context(), c.p, tenure.ThreadFilter{Limit: 500})
	if err != nil {
		return err
	}
	return h.render(w, r, c, http.StatusOK, "threads.html", "Conversations", "threads", ts)
}

// sessionGroup is a session's messages, in order.
type sessionGroup struct {
	ID       string
	Messages []messageView
}

type messageView struct {
	tenure.Message
	Highlight bool
}

// summaryView is a summary with its versions, newest first.
type summaryView struct {
	Key      string
	Current  tenure.Object
	Versions []tenure.Object
}

type threadView struct {
	ThreadID  string
	Sessions  []sessionGroup
	Truncated bool
	Items     []tenure.Object
	Expanded  *tenure.Expansion
	Summaries []summaryView
}

// thread shows a thread's messages by session, its structured state items
// and its summaries with their versions; ?expand=UID expands a state item
// to the messages it came from, highlighted in place.
func (h *Handler) thread(w http.ResponseWriter, r *http.Request, c *call) error {
	id := r.PathValue("id")
	v := threadView{ThreadID: id}
	msgs, err := h.store.Messages(r.Context(), c.p, tenure.MessageFilter{ThreadID: id, Limit: maxThreadMessages})
	if err != nil {
		return err
	}
	v.Truncated = len(msgs) == maxThreadMessages
	highlight := map[string]bool{}
	if uid := r.URL.Query().Get("expand"); uid != "" {
		x, err := h.store.Expand(r.Context(), c.p, tenure.ExpandRequest{UID: uid, ThreadID: id})
		if err != nil {
			return err
		}
		v.Expanded = &x
		for _, m := range x.Messages {
			highlight[m.ID] = true
		}
	}
	for _, m := range msgs {
		if n := len(v.Sessions); n == 0 || v.Sessions[n-1].ID != m.SessionID {
			v.Sessions = append(v.Sessions, sessionGroup{ID: m.SessionID})
		}
		g := &v.Sessions[len(v.Sessions)-1]
		g.Messages = append(g.Messages, messageView{Message: m, Highlight: highlight[m.ID]})
	}
	if len(msgs) == 0 {
		// A thread with no message the reader can see is not shown at
		// all, like a missing one.
		return tenure.Errorf(tenure.CodeNotFound, "thread_id", "no thread %q", id)
	}
	items, err := h.store.List(r.Context(), c.p, tenure.Filter{KeyPrefix: engine.StateKey(id, ""), Limit: 10000})
	if err != nil {
		return err
	}
	for _, o := range items {
		if o.StateItem != nil && o.Current() {
			v.Items = append(v.Items, o)
		}
	}
	sort.Slice(v.Items, func(i, j int) bool {
		a, b := v.Items[i].StateItem, v.Items[j].StateItem
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.CreatedAt.Before(b.CreatedAt)
	})
	sums, err := h.store.List(r.Context(), c.p, tenure.Filter{KeyPrefix: "summary/" + id + "/", Limit: 1000})
	if err != nil {
		return err
	}
	for _, o := range sums {
		if o.Key != engine.RollingKey(id) && !strings.HasPrefix(o.Key, engine.SessionSummaryKey(id, "")) {
			continue
		}
		sv := summaryView{Key: o.Key, Current: o}
		if hist, err := h.store.History(r.Context(), c.p, o.Key, tenure.Scope{}); err == nil {
			sv.Versions = hist.Versions
			sort.SliceStable(sv.Versions, func(i, j int) bool { return sv.Versions[i].TxStart.After(sv.Versions[j].TxStart) })
		} else if tenure.ErrorCode(err) != tenure.CodeNotFound {
			return err
		}
		v.Summaries = append(v.Summaries, sv)
	}
	sort.Slice(v.Summaries, func(i, j int) bool { return v.Summaries[i].Key < v.Summaries[j].Key })
	return h.render(w, r, c, http.StatusOK, "thread.html", "Thread "+id, "threads", v)
}
