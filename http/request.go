package http

import (
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/jsonx"
)

// decodeBody strictly decodes the request body, one JSON object, into a T
// (what names T in messages). Nothing is written before the body decodes:
// unknown fields, wrong types and malformed JSON are 400 invalid naming
// the field; a body over the size limit is 413 too_large.
func decodeBody[T any](s *Server, r *http.Request, what string) (T, error) {
	var v T
	// Bodies are always parsed as JSON. Besides JSON types, curl's default
	// for -d (application/x-www-form-urlencoded) is let through, so that
	// "curl -d '{...}'" works; anything else is refused.
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "application/x-www-form-urlencoded") {
			return v, tenure.Errorf(tenure.CodeInvalid, "Content-Type", "want application/json, got %q", ct)
		}
	}
	if r.ContentLength > s.opt.MaxBodyBytes {
		return v, tenure.Errorf(tenure.CodeTooLarge, "", "request body is larger than %d bytes", s.opt.MaxBodyBytes)
	}
	data, err := jsonx.ReadAll(r.Body, s.opt.MaxBodyBytes)
	if err != nil {
		if tenure.ErrorCode(err) == tenure.CodeTooLarge {
			return v, tenure.Errorf(tenure.CodeTooLarge, "", "request body is larger than %d bytes", s.opt.MaxBodyBytes)
		}
		return v, err
	}
	return jsonx.Parse[T](data, what)
}

// query reads URL query parameters strictly: each at most once, of the
// right type, and no parameter the route does not take.
type query struct {
	v    url.Values
	used map[string]bool
	err  error
}

func newQuery(r *http.Request) *query {
	return &query{v: r.URL.Query(), used: map[string]bool{}}
}

func (q *query) fail(err error) {
	if q.err == nil {
		q.err = err
	}
}

// str returns the parameter's value ("" when absent).
func (q *query) str(name string) string {
	q.used[name] = true
	vs := q.v[name]
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	q.fail(tenure.Errorf(tenure.CodeInvalid, name, "given more than once"))
	return ""
}

func (q *query) int(name string) int {
	s := q.str(name)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.fail(tenure.Errorf(tenure.CodeInvalid, name, "want an integer, got %q", s))
	}
	return n
}

func (q *query) bool(name string, def bool) bool {
	s := q.str(name)
	if s == "" {
		return def
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		q.fail(tenure.Errorf(tenure.CodeInvalid, name, "want true or false, got %q", s))
	}
	return b
}

func (q *query) time(name string) *time.Time {
	s := q.str(name)
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		q.fail(tenure.Errorf(tenure.CodeInvalid, name, "want an RFC 3339 time (2025-01-31T09:00:00Z), got %q", s))
		return nil
	}
	return &t
}

// scope reads the scope parameters.
func (q *query) scope() tenure.Scope {
	return tenure.Scope{ProjectID: q.str("project_id"), UserID: q.str("user_id"), SessionID: q.str("session_id"),
		TaskID: q.str("task_id"), ScopeID: q.str("scope_id")}
}

// read reads the scope and the as-of parameters.
func (q *query) read() tenure.Read {
	return tenure.Read{Scope: q.scope(), AsOfTx: q.time("as_of_tx"), AsOfValid: q.time("as_of_valid")}
}

// done returns the first error, or an error naming a parameter the route
// does not take.
func (q *query) done() error {
	if q.err != nil {
		return q.err
	}
	var unknown []string
	for name := range q.v {
		if !q.used[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		known := make([]string, 0, len(q.used))
		for name := range q.used {
			known = append(known, name)
		}
		slices.Sort(known)
		allowed := strings.Join(known, ", ")
		if allowed == "" {
			allowed = "none"
		}
		return tenure.Errorf(tenure.CodeInvalid, unknown[0], "unknown query parameter (allowed: %s)", allowed)
	}
	return nil
}
