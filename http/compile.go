package http

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// compile handles POST /v1/compile?format=…&trace=…: the body is a
// compile.Request without a principal (the key's is used), the answer the
// rendered envelope, its trace id and, with trace=true, the trace. The
// trace is kept for TraceTTL either way.
func (s *Server) compile(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	q := newQuery(r)
	asked := q.str("format")
	format, ferr := compile.ParseFormat(asked)
	withTrace := q.bool("trace", false)
	if err := q.done(); err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	// Admitted before the body is read: a refused request costs nothing.
	release, err := s.opt.Compiles.Acquire(r.Context())
	if err != nil {
		return nil, err
	}
	defer release()
	req, err := decodeBody[compile.Request](s, r, "compile request")
	if err != nil {
		return nil, err
	}
	if !reflect.ValueOf(req.Principal).IsZero() {
		return nil, tenure.Errorf(tenure.CodeInvalid, "principal", "set by the API key: leave it out")
	}
	if s.compiler == nil {
		return nil, tenure.Errorf(tenure.CodeUnavailable, "", "this server has no compiler")
	}
	req.Principal = p
	var (
		env compile.Envelope
		tr  compile.Trace
	)
	start := time.Now()
	env, tr, err = s.compiler.Compile(r.Context(), req)
	s.RecordCompile(p, env, tr, time.Since(start), err)
	if err != nil {
		return nil, err
	}
	if format == compile.FormatText && !withTrace && wantsText(r, asked != "") {
		// The envelope as the model gets it; what the JSON answer carries
		// beside it goes in headers.
		w.Header().Set("X-Tenure-Trace-Id", tr.TraceID)
		w.Header().Set("X-Tenure-Tokens", strconv.Itoa(env.Tokens))
		w.Header().Set("X-Tenure-Cache-Key", env.CacheKey)
		return plainText(env.Render(format).(string)), nil
	}
	rendered, err := json.Marshal(env.Render(format))
	if err != nil {
		return nil, tenure.Internal("render envelope", err)
	}
	res := CompileResponse{TraceID: tr.TraceID, Format: format, Tokens: env.Tokens, Budget: env.Budget, CacheKey: env.CacheKey,
		Envelope: rendered}
	if withTrace {
		res.Trace = &tr
	}
	return res, nil
}

// RecordCompile records a compilation as p's, as POST /v1/compile records
// its own: counted in the metrics (the compile operation by result code;
// a successful one's duration, envelope tokens and omitted objects) and,
// when it succeeded, its trace kept for GET /v1/traces/{id} under the same
// access rules. Other surfaces that compile (the MCP tools mounted by
// tenure serve) call it so that every compilation is recorded alike.
func (s *Server) RecordCompile(p tenure.Principal, env compile.Envelope, tr compile.Trace, d time.Duration, err error) {
	s.metrics.opDone("compile", d, err)
	if err != nil {
		return
	}
	s.metrics.compiled(d, env, tr)
	if !s.opt.FullTraces {
		tr = tr.Compact(traceIDs)
	}
	s.traces.put(tr, p)
}

// traceIDs is how many omitted candidates of each reason a compact trace
// lists (ServerOptions.FullTraces).
const traceIDs = 10

// getTrace handles GET /v1/traces/{id}. A trace is readable by the
// principal that produced it (the same user with the same or a higher
// clearance) and by holders of trace:read in its tenant; to anyone else it
// is missing, exactly like an id never used. What the gates withheld is
// shown only to holders of trace:full.
func (s *Server) getTrace(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error) {
	if err := newQuery(r).done(); err != nil {
		return nil, err
	}
	return s.Trace(p, r.PathValue("id"))
}

// Trace returns the compile trace with the given id as p may read it,
// under GET /v1/traces/{id}'s rules (the web inspector reads traces
// through it). Errors: CodeNotFound (expired, never recorded, or not
// readable by p, alike).
func (s *Server) Trace(p tenure.Principal, id string) (compile.Trace, error) {
	ct, ok := s.traces.get(id)
	if !ok || !ct.readableBy(p) {
		return compile.Trace{}, tenure.Errorf(tenure.CodeNotFound, "id", "no trace %q (traces are kept for %s)", id, s.opt.TraceTTL)
	}
	return ct.forReader(p), nil
}

// Gatherer returns the registry of the server's metrics, for a summary
// of them (the web inspector's operations page shows it to holders of
// metrics:read).
func (s *Server) Gatherer() prometheus.Gatherer { return s.metrics.reg }

// wantsText reports whether a text envelope goes out as text/plain: when
// the client prefers it (Accept), or when format=text was asked for and the
// client does not insist on JSON. The JSON answer carries the same text in
// "envelope", with the trace id and counts beside it.
func wantsText(r *http.Request, asked bool) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		switch strings.TrimSpace(strings.SplitN(part, ";", 2)[0]) {
		case "text/plain":
			return true
		case "application/json":
			return false
		}
	}
	return asked
}
