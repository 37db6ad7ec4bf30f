package http

import (
	"net/http"
	"slices"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// Every handler runs as the principal of the caller's API key: tenant,
// user, authority, clearance and permissions come from the key, never from
// the request. A body naming another tenant is refused by the store
// (403 forbidden), and objects of other tenants, or ones the principal may
// not read, answer 404 exactly like missing ones.

func (s *Server) whoami(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	k, _ := r.Context().Value(apiKeyCtx{}).(tenure.APIKey)
	return k, nil
}

func (s *Server) putObject(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	o, err := decodeBody[tenure.Object](s, r, "Context Object")
	if err != nil {
		return nil, err
	}
	var res tenure.WriteResult
	err = s.metrics.op("put", func() (err error) { res, err = s.store.Put(r.Context(), p, o); return })
	return res, err
}

func (s *Server) putBatch(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	req, err := decodeBody[BatchRequest](s, r, "batch request")
	if err != nil {
		return nil, err
	}
	if req.Objects == nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "objects", "required")
	}
	var res []tenure.WriteResult
	err = s.metrics.op("put_batch", func() (err error) { res, err = s.store.PutBatch(r.Context(), p, req.Objects); return })
	if err != nil {
		return nil, jsonx.Under("objects", err)
	}
	return BatchResponse{Results: res}, nil
}

func (s *Server) getObject(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	rd := q.read()
	if err := q.done(); err != nil {
		return nil, err
	}
	var o tenure.Object
	err := s.metrics.op("get", func() (err error) { o, err = s.store.Get(r.Context(), p, r.PathValue("id"), rd); return })
	return o, err
}

// currentValue answers the object holding a key's value or, with
// only=value, the value alone (an object with content and no value: its
// content as a JSON string), the object's id in a header.
func (s *Server) currentValue(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	rd := q.read()
	only := q.str("only")
	if err := q.done(); err != nil {
		return nil, err
	}
	if only != "" {
		if _, err := tenure.ParseVocab("only", only, []string{"value"}); err != nil {
			return nil, err
		}
	}
	var o tenure.Object
	err := s.metrics.op("current_value", func() (err error) {
		o, err = s.store.CurrentValue(r.Context(), p, r.PathValue("key"), rd)
		return
	})
	if err != nil || only == "" {
		return o, err
	}
	w.Header().Set("X-Tenure-Object-Id", o.ObjectID)
	if len(o.Value) > 0 {
		return o.Value, nil
	}
	return o.Content, nil
}

func (s *Server) history(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	rd := q.read()
	if err := q.done(); err != nil {
		return nil, err
	}
	var h tenure.History
	err := s.metrics.op("history", func() (err error) { h, err = s.store.History(r.Context(), p, r.PathValue("key"), rd.Scope); return })
	return h.AsOf(rd), err
}

func (s *Server) listObjects(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	f := tenure.Filter{Scope: q.scope(), KeyPrefix: q.str("key_prefix"), Limit: q.int("limit")}
	var err error
	vocab := []struct {
		name string
		set  func(string) error
	}{
		{"layer", func(v string) (err error) { f.Layer, err = tenure.ParseVocab("layer", v, tenure.Layers); return }},
		{"scope_kind", func(v string) (err error) {
			f.ScopeKind, err = tenure.ParseVocab("scope_kind", v, tenure.ScopeKinds)
			return
		}},
		{"status", func(v string) (err error) { f.Status, err = tenure.ParseVocab("status", v, tenure.Statuses); return }},
		{"object_type", func(v string) (err error) {
			f.ObjectType, err = tenure.ParseVocab("object_type", v, tenure.ObjectTypes)
			return
		}},
	}
	for _, v := range vocab {
		if val := q.str(v.name); val != "" && err == nil {
			err = v.set(val)
		}
	}
	if qerr := q.done(); qerr != nil {
		return nil, qerr
	}
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var objs []tenure.Object
	err = s.metrics.op("list", func() (err error) { objs, err = s.store.List(r.Context(), p, f); return })
	if objs == nil {
		objs = []tenure.Object{}
	}
	return ObjectList{Objects: objs}, err
}

func (s *Server) retire(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	opt, err := decodeBody[tenure.RetireOptions](s, r, "retire options")
	if err != nil {
		return nil, err
	}
	var rep tenure.RetireReport
	err = s.metrics.op("retire", func() (err error) { rep, err = s.store.Retire(r.Context(), p, opt); return })
	return rep, err
}

func (s *Server) resolutions(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	open := q.bool("open", true)
	if err := q.done(); err != nil {
		return nil, err
	}
	var rs []tenure.Resolution
	err := s.metrics.op("resolutions", func() (err error) { rs, err = s.store.Resolutions(r.Context(), p, open); return })
	if rs == nil {
		rs = []tenure.Resolution{}
	}
	return ResolutionList{Resolutions: rs}, err
}

func (s *Server) endSession(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	var n int
	err := s.metrics.op("end_session", func() (err error) { n, err = s.store.EndSession(r.Context(), p, id); return })
	return EndSessionResult{SessionID: id, Cleared: n}, err
}

func (s *Server) appendMessages(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	req, err := decodeBody[AppendRequest](s, r, "append request")
	if err != nil {
		return nil, err
	}
	if req.Messages == nil {
		return nil, tenure.Errorf(tenure.CodeInvalid, "messages", "required")
	}
	var res tenure.AppendResult
	err = s.metrics.op("append_messages", func() (err error) { res, err = s.store.AppendMessages(r.Context(), p, req.Messages); return })
	if err != nil {
		return nil, jsonx.Under("messages", err)
	}
	if res.Appended > 0 {
		s.scheduleDigests(r, p, req.Messages)
	}
	return res, nil
}

// scheduleDigests asks for a background digest of each thread the
// messages belong to, unless the background digest is off. It never
// blocks on a digest.
func (s *Server) scheduleDigests(r *http.Request, p tenure.Principal, msgs []tenure.Message) {
	s.ScheduleDigests(p, msgs, info(r.Context()).id)
}

// ScheduleDigests asks for a background digest, as p, of each thread the
// appended msgs belong to — what POST /v1/messages does — unless the
// background digest is off; requestID labels the logs. It never blocks on
// a digest. Other surfaces that append (the MCP remember tool mounted by
// tenure serve) call it so that state follows every append alike.
func (s *Server) ScheduleDigests(p tenure.Principal, msgs []tenure.Message, requestID string) {
	if s.opt.Digester == nil || s.opt.ManualDigest {
		return
	}
	var threads []string
	for _, m := range msgs {
		if !slices.Contains(threads, m.ThreadID) {
			threads = append(threads, m.ThreadID)
		}
	}
	s.digests.schedule(p, threads, requestID)
}

// extract digests a thread now, after any digest of it already running.
// A request that is bad as a whole (body, thread_id, principal) is its
// error's status; so is a digest whose every channel failed. When one
// channel ran and the other failed, the answer is 200 with the failure
// in state_error or summary_error.
func (s *Server) extract(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	release, err := s.opt.Extractions.Acquire(r.Context())
	if err != nil {
		return nil, err
	}
	defer release()
	req, err := decodeBody[ExtractRequest](s, r, "extract request")
	if err != nil {
		return nil, err
	}
	if req.ThreadID == "" {
		return nil, tenure.Errorf(tenure.CodeInvalid, "thread_id", "required")
	}
	if s.opt.Digester == nil {
		return nil, tenure.Errorf(tenure.CodeUnavailable, "", "state extraction is not configured on this server")
	}
	summaries := req.Summaries == nil || *req.Summaries
	res, err := s.digests.run(r.Context(), p, req.ThreadID, summaries, info(r.Context()).id)
	if err != nil {
		return nil, err
	}
	if res.StateError != nil && (!summaries || res.SummaryError != nil) {
		return nil, res.StateError
	}
	res.StateError = publicError(r, res.StateError)
	res.SummaryError = publicError(r, res.SummaryError)
	res.VectorsError = publicError(r, res.VectorsError)
	return res, nil
}

// publicError is err as answered in a body: an internal error's cause is
// logged by the request's log line and left out, another's is appended
// to its message, as writeError does.
func publicError(r *http.Request, err *tenure.Error) *tenure.Error {
	if err == nil {
		return nil
	}
	out := &tenure.Error{Code: err.Code, Message: err.Message, Field: err.Field}
	ri := info(r.Context())
	switch {
	case out.Code == "" || out.Code == tenure.CodeInternal:
		out.Code, out.Message = tenure.CodeInternal, "internal error (request "+ri.id+")"
		if ri.err == nil {
			ri.err = err
		}
	case err.Err != nil:
		out.Message += ": " + err.Err.Error()
	}
	return out
}

func (s *Server) listMessages(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	f := tenure.MessageFilter{Scope: q.scope(), ThreadID: q.str("thread_id"), AfterTime: q.time("after_time"),
		AfterID: q.str("after_id"), Limit: q.int("limit")}
	if err := q.done(); err != nil {
		return nil, err
	}
	var msgs []tenure.Message
	err := s.metrics.op("messages", func() (err error) { msgs, err = s.store.Messages(r.Context(), p, f); return })
	if msgs == nil {
		msgs = []tenure.Message{}
	}
	return MessageList{Messages: msgs}, err
}

func (s *Server) expand(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	req, err := decodeBody[tenure.ExpandRequest](s, r, "expand request")
	if err != nil {
		return nil, err
	}
	var x tenure.Expansion
	err = s.metrics.op("expand", func() (err error) { x, err = s.store.Expand(r.Context(), p, req); return })
	return x, err
}
