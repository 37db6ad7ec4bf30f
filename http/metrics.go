package http

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// metrics are the server's Prometheus metrics, on its own registry.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	reqDuration *prometheus.HistogramVec
	ops         *prometheus.CounterVec
	opDuration  *prometheus.HistogramVec
	compileDur  prometheus.Histogram
	tokens      prometheus.Histogram
	omitted     *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry, traces *traceCache) *metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	latency := prometheus.ExponentialBuckets(0.0005, 2, 16) // 0.5ms … 16s
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_http_requests_total",
			Help: "HTTP requests by route pattern and status code."}, []string{"route", "code"}),
		reqDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tenure_http_request_duration_seconds",
			Help: "HTTP request latency by route pattern.", Buckets: latency}, []string{"route"}),
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_store_operations_total",
			Help: "Store, compile and key operations by operation and result code (ok or a tenure error code)."}, []string{"op", "code"}),
		opDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tenure_store_operation_duration_seconds",
			Help: "Store, compile and key operation latency by operation.", Buckets: latency}, []string{"op"}),
		compileDur: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tenure_compile_duration_seconds",
			Help: "Latency of successful context compilations.", Buckets: latency}),
		tokens: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tenure_envelope_tokens",
			Help: "Tokens of compiled envelopes.", Buckets: prometheus.ExponentialBuckets(64, 2, 14)}), // 64 … 524288
		omitted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_compile_omitted_objects_total",
			Help: "Candidates left out of compiled envelopes, by reason (withheld ones included)."}, []string{"reason"}),
	}
	reg.MustRegister(m.requests, m.reqDuration, m.ops, m.opDuration, m.compileDur, m.tokens, m.omitted,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tenure_traces_cached", Help: "Compile traces held for GET /v1/traces/{id}."},
			func() float64 { return float64(traces.len()) }))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// request counts one HTTP request.
func (m *metrics) request(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.reqDuration.WithLabelValues(route).Observe(d.Seconds())
}

// op runs fn and counts it as operation name with its result code.
func (m *metrics) op(name string, fn func() error) error {
	start := time.Now()
	err := fn()
	code := "ok"
	if err != nil {
		code = string(tenure.ErrorCode(err))
	}
	m.ops.WithLabelValues(name, code).Inc()
	m.opDuration.WithLabelValues(name).Observe(time.Since(start).Seconds())
	return err
}

// compiled records a successful compilation.
func (m *metrics) compiled(d time.Duration, env compile.Envelope, tr compile.Trace) {
	m.compileDur.Observe(d.Seconds())
	m.tokens.Observe(float64(env.Tokens))
	for _, o := range tr.Omitted {
		m.omitted.WithLabelValues(string(o.Reason)).Inc()
	}
	for reason, n := range tr.Withheld {
		m.omitted.WithLabelValues(string(reason)).Add(float64(n))
	}
}
