package http

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
)

// requestIDHeader carries the request id: honored when the client sends a
// sane one, generated otherwise, and echoed on every response.
const requestIDHeader = "X-Request-Id"

// reqInfo is what the layers of one request tell each other: the outer
// layer logs and counts what the inner ones found out.
type reqInfo struct {
	id     string
	keyID  string
	tenant string
	err    error // the error answered, for the log
}

type reqInfoKey struct{}

func info(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(reqInfoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// outer wraps the router: request id, panic recovery, one log line and
// the request metrics per request.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{id: requestID(r.Header.Get(requestIDHeader))}
		w.Header().Set(requestIDHeader, ri.id)
		r = r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, ri))
		rec := &recorder{ResponseWriter: w}
		func() {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					s.opt.Logger.Error("panic", "request_id", ri.id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
					if rec.status == 0 {
						writeError(rec, r, tenure.Internal("panic", fmt.Errorf("%v", v)))
					}
				}
			}()
			next.ServeHTTP(rec, r)
		}()
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		route := r.Pattern
		if route == "" || route == "/" {
			route = "unmatched"
		}
		elapsed := time.Since(start)
		s.metrics.request(route, rec.status, elapsed)
		level := slog.LevelInfo
		if rec.status >= 500 {
			level = slog.LevelError
		}
		attrs := []slog.Attr{slog.String("request_id", ri.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("route", route), slog.Int("status", rec.status), slog.Int64("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1e3)}
		if ri.tenant != "" {
			attrs = append(attrs, slog.String("tenant", ri.tenant), slog.String("key_id", ri.keyID))
		}
		if ri.err != nil {
			attrs = append(attrs, slog.String("err", ri.err.Error()))
		}
		s.opt.Logger.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// requestID returns the client's id when it is 1 to 128 characters of
// letters, digits and ._:-, else a fresh random one.
func requestID(given string) string {
	if len(given) > 0 && len(given) <= 128 && strings.Trim(given,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-") == "" {
		return given
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flushing for
// streaming mounts, deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush implements http.Flusher for streaming mounted handlers.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		if r.status == 0 {
			r.status = http.StatusOK
		}
		f.Flush()
	}
}

// authenticated runs next as the principal of the request's API key
// (Authorization: Bearer tk_…), refusing missing, unknown and revoked keys
// with 401 unauthenticated.
func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, err := s.authenticate(r)
		if err != nil {
			if tenure.ErrorCode(err) == tenure.CodeUnauthenticated {
				w.Header().Set("WWW-Authenticate", `Bearer realm="tenure"`)
			}
			writeError(w, r, err)
			return
		}
		p, err := k.Principal.WithPersona(r.Header.Get(PersonaHeader))
		if err != nil {
			writeError(w, r, err)
			return
		}
		ri := info(r.Context())
		ri.keyID, ri.tenant = k.ID, k.Principal.TenantID
		ctx := tenure.ContextWithPrincipal(r.Context(), p)
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, apiKeyCtx{}, k)))
	})
}

type apiKeyCtx struct{}

func (s *Server) authenticate(r *http.Request) (tenure.APIKey, error) {
	h := r.Header.Get("Authorization")
	scheme, secret, _ := strings.Cut(h, " ")
	if h == "" {
		return tenure.APIKey{}, tenure.Errorf(tenure.CodeUnauthenticated, "Authorization", "missing API key: send Authorization: Bearer %s…", tenure.APIKeyPrefix)
	}
	if !strings.EqualFold(scheme, "Bearer") {
		return tenure.APIKey{}, tenure.Errorf(tenure.CodeUnauthenticated, "Authorization", "want the Bearer scheme")
	}
	secret = strings.TrimSpace(secret)
	if err := tenure.CheckAPIKeySecret(secret); err != nil {
		return tenure.APIKey{}, tenure.Errorf(tenure.CodeUnauthenticated, "Authorization", "%s", tenure.AsError(err).Message)
	}
	var k tenure.APIKey
	err := s.metrics.op("key_lookup", func() (err error) {
		k, err = s.keys.KeyByHash(r.Context(), tenure.HashAPIKey(secret))
		return err
	})
	switch {
	case tenure.ErrorCode(err) == tenure.CodeNotFound:
		return k, tenure.Errorf(tenure.CodeUnauthenticated, "Authorization", "invalid API key")
	case err != nil:
		return k, fmt.Errorf("authenticate: %w", err)
	case k.Revoked():
		return k, tenure.Errorf(tenure.CodeUnauthenticated, "Authorization", "revoked API key")
	}
	return k, nil
}

// apiFunc handles an authenticated API call as p and returns the value to
// send as JSON with status 200.
type apiFunc func(w http.ResponseWriter, r *http.Request, p tenure.Principal) (any, error)

// api adapts an apiFunc: it bounds the call's time and body size and
// writes its result or error.
func (s *Server) api(fn apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := tenure.PrincipalFromContext(r.Context())
		ctx, cancel := context.WithTimeout(r.Context(), s.opt.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		v, err := fn(w, r, p)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if t, ok := v.(plainText); ok {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, string(t)) // a failed write means the client is gone
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// plainText is a handler result sent as text/plain instead of JSON.
type plainText string

// writeJSON writes v as a JSON response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // a failed write means the client is gone
}

// writeError writes err as an ErrorBody with the status of its code.
// Internal errors are logged with their cause and answered without it.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	te := tenure.AsError(err)
	body := ErrorBody{Code: te.Code, Message: te.Message, Field: te.Field}
	if te.Code == "" {
		body.Code = tenure.CodeInternal
	}
	ri := info(r.Context())
	ri.err = err
	switch {
	case body.Code == tenure.CodeInternal:
		body.Message = "internal error (request " + ri.id + ")"
	case te.Err != nil:
		body.Message += ": " + te.Err.Error()
	}
	if d, ok := admit.Refused(err); ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	}
	writeJSON(w, tenure.HTTPStatus(body.Code), body)
}
