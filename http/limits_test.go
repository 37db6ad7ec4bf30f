package http_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	tenurehttp "github.com/tenure-dev/tenure/http"
)

// hold holds every call until it is opened, and says when calls arrive.
type hold struct {
	entered chan struct{}
	open    chan struct{}
}

func newHold() *hold { return &hold{entered: make(chan struct{}, 16), open: make(chan struct{})} }

func (g *hold) wait() {
	g.entered <- struct{}{}
	<-g.open
}

// Past the concurrency cap, /v1/compile and /v1/extract answer 503
// unavailable with Retry-After at once; once a call ends its slot is free
// again; the refusals are counted in /metrics.
func TestConcurrencyCaps(t *testing.T) {
	compiles, extracts := newHold(), newHold()
	e := newEnv(t, func(o *tenurehttp.ServerOptions) {
		o.Compiles, o.Extractions = admit.New("compilations", 2), admit.New("extractions", 1)
		o.Compiler = compilerFunc(func(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
			compiles.wait()
			return compile.Envelope{Budget: req.Budget, Sections: []compile.Section{}}, compile.Trace{TraceID: "tr-x"}, nil
		})
		o.Digester = tenurehttp.DigestFunc(func(ctx context.Context, p tenure.Principal, thread string, summaries bool) engine.DigestResult {
			extracts.wait()
			return engine.DigestResult{}
		})
	})
	cases := []struct {
		name, path, body string
		capacity         int
		g                *hold
		op               string
	}{
		{"Compile", "/v1/compile", `{"query":"q","budget":100}`, 2, compiles, "compile"},
		{"Extract", "/v1/extract", `{"thread_id":"t1","summaries":false}`, 1, extracts, "extract"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var wg sync.WaitGroup
			statuses := make(chan int, tc.capacity)
			for range tc.capacity {
				wg.Add(1)
				go func() { defer wg.Done(); statuses <- e.call("POST", tc.path, e.alice, tc.body).status }()
			}
			for range tc.capacity {
				<-tc.g.entered
			}
			r := e.call("POST", tc.path, e.alice, tc.body)
			if r.status != 503 || r.header.Get("Retry-After") != "1" {
				t.Errorf("past the cap: %d, Retry-After %q, want 503 and 1", r.status, r.header.Get("Retry-After"))
			}
			if b := r.errBody(t); b.Code != tenure.CodeUnavailable || !strings.Contains(b.Message, "at once") {
				t.Errorf("past the cap: %+v", b)
			}
			close(tc.g.open)
			wg.Wait()
			close(statuses)
			for s := range statuses {
				if s != 200 {
					t.Errorf("admitted call: %d, want 200", s)
				}
			}
			if r := e.call("POST", tc.path, e.alice, tc.body); r.status != 200 {
				t.Errorf("after the slots were released: %d %s", r.status, r.body)
			}
			metrics := e.call("GET", "/metrics", e.monitor, "").body
			for _, want := range []string{`tenure_concurrency_rejections_total{operation="` + tc.op + `"} 1`,
				`tenure_concurrency_in_flight{operation="` + tc.op + `"} 0`} {
				if !strings.Contains(metrics, want) {
					t.Errorf("metrics lack %q", want)
				}
			}
		})
	}
}

type compilerFunc func(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error)

func (f compilerFunc) Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
	return f(ctx, req)
}

// /metrics counts every tenant's requests: it needs a key holding
// metrics:read, unless the operator serves it on a listener of its own,
// and then it is not on the API's listener at all. Health stays public.
func TestMetricsAccess(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name, key string
		status    int
	}{{"ErrNoKey", "", 401}, {"ErrNoPermission", e.admin, 403}, {"OK", e.monitor, 200}} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("GET", "/metrics", tc.key, "")
			if r.status != tc.status {
				t.Errorf("GET /metrics: %d, want %d", r.status, tc.status)
			}
			if tc.status == 200 && !strings.Contains(r.body, "tenure_http_requests_total") {
				t.Errorf("GET /metrics: no metrics in %.200q", r.body)
			}
		})
	}
	t.Run("OKSeparate", func(t *testing.T) {
		sep := newEnv(t, func(o *tenurehttp.ServerOptions) { o.SeparateMetrics = true })
		if r := sep.call("GET", "/metrics", sep.monitor, ""); r.status != 404 {
			t.Errorf("GET /metrics on the API listener with separate metrics: %d, want 404", r.status)
		}
		for _, path := range []string{"/healthz", "/readyz"} {
			if r := sep.call("GET", path, "", ""); r.status != 200 {
				t.Errorf("GET %s: %d, want 200", path, r.status)
			}
		}
		for _, route := range sep.srv.Routes() {
			if route == "GET /metrics" {
				t.Error("GET /metrics listed among the routes")
			}
		}
		rec := httptest.NewRecorder()
		sep.srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "tenure_http_requests_total") {
			t.Errorf("MetricsHandler without a key: %d", rec.Code)
		}
	})
}
