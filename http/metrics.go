package http

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
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
	extractions *prometheus.CounterVec
	items       *prometheus.CounterVec
	digestDur   *prometheus.HistogramVec
	digestReqs  *prometheus.CounterVec
}

// newMetrics registers the server's metrics on reg, the concurrency caps
// by the operation they cap.
func newMetrics(reg *prometheus.Registry, traces *traceCache, digests *digester, caps map[string]*admit.Limiter) *metrics {
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
			Help: "Latency of successful context compilations: POST /v1/compile's and those recorded with RecordCompile (MCP's on tenure serve).", Buckets: latency}),
		tokens: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tenure_envelope_tokens",
			Help: "Tokens of compiled envelopes.", Buckets: prometheus.ExponentialBuckets(64, 2, 14)}), // 64 … 524288
		omitted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_compile_omitted_objects_total",
			Help: "Candidates left out of compiled envelopes, by reason (withheld ones for principals with trace:full)."}, []string{"reason"}),
		extractions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_extraction_runs_total",
			Help: "Digest channel runs by channel (state, summary, vectors), trigger (request: POST /v1/extract; append: the background digest) " +
				"and outcome (ok, skipped or error) with its reason (the skip reason or the error code)."},
			[]string{"channel", "trigger", "outcome", "reason"}),
		items: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_extraction_items_total",
			Help: "State items by reconciliation action: inserted, merged, superseded, conflicted, dropped."}, []string{"action"}),
		digestDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tenure_digest_duration_seconds",
			Help: "Latency of digests (state extraction and summaries) by trigger.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 18)}, // 1ms … 131s
			[]string{"trigger"}),
		digestReqs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_digest_requests_total",
			Help: "Background digest requests after appends by result: queued, coalesced (into a waiting or running digest of the thread), " +
				"dropped_queue_full, dropped_shutdown."}, []string{"result"}),
	}
	reg.MustRegister(m.requests, m.reqDuration, m.ops, m.opDuration, m.compileDur, m.tokens, m.omitted,
		m.extractions, m.items, m.digestDur, m.digestReqs,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tenure_traces_cached", Help: "Compile traces held for GET /v1/traces/{id}."},
			func() float64 { return float64(traces.len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tenure_digests_running", Help: "Background digests running."},
			func() float64 { n, _ := digests.stats(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tenure_digests_queued", Help: "Threads waiting for a background digest."},
			func() float64 { _, n := digests.stats(); return float64(n) }))
	for _, action := range []string{"inserted", "merged", "superseded", "conflicted", "dropped"} {
		m.items.WithLabelValues(action)
	}
	for op, l := range caps {
		labels := prometheus.Labels{"operation": op}
		reg.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tenure_concurrency_rejections_total", ConstLabels: labels,
				Help: "Calls refused with 503 unavailable because the operation's concurrency cap was reached (compile counts MCP's too)."},
				func() float64 { return float64(l.Rejected()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tenure_concurrency_in_flight", ConstLabels: labels,
				Help: "Operations running under their concurrency cap."}, func() float64 { return float64(l.InUse()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tenure_concurrency_limit", ConstLabels: labels,
				Help: "The most operations of the kind that run at once."}, func() float64 { return float64(l.Capacity()) }))
	}
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
	m.opDone(name, time.Since(start), err)
	return err
}

// opDone counts an operation that took d and ended with err.
func (m *metrics) opDone(name string, d time.Duration, err error) {
	code := "ok"
	if err != nil {
		code = string(tenure.ErrorCode(err))
	}
	m.ops.WithLabelValues(name, code).Inc()
	m.opDuration.WithLabelValues(name).Observe(d.Seconds())
}

// compiled records a successful compilation.
func (m *metrics) compiled(d time.Duration, env compile.Envelope, tr compile.Trace) {
	m.compileDur.Observe(d.Seconds())
	m.tokens.Observe(float64(env.Tokens))
	// Withheld objects are counted here too: trace.Withheld only adds
	// up the ones listed.
	for _, o := range tr.Omitted {
		m.omitted.WithLabelValues(string(o.Reason)).Inc()
	}
}

// digested records one digest: its duration, each channel's outcome and
// the state items by action. The summary channel counts only when it ran.
func (m *metrics) digested(trigger string, summaries bool, res engine.DigestResult, d time.Duration) {
	m.digestDur.WithLabelValues(trigger).Observe(d.Seconds())
	outcome, reason := "ok", ""
	switch {
	case res.StateError != nil:
		outcome, reason = "error", errorCode(res.StateError)
	case res.State.SkippedReason != "":
		outcome, reason = "skipped", res.State.SkippedReason
	}
	m.extractions.WithLabelValues("state", trigger, outcome, reason).Inc()
	if summaries {
		outcome, reason = "ok", ""
		switch {
		case res.SummaryError != nil:
			outcome, reason = "error", errorCode(res.SummaryError)
		case res.Summary == nil || res.Summary.Rolling == nil && len(res.Summary.Sessions) == 0:
			outcome, reason = "skipped", "nothing_due"
		}
		m.extractions.WithLabelValues("summary", trigger, outcome, reason).Inc()
	}
	if res.Vectors != nil {
		outcome, reason = "ok", ""
		switch {
		case res.VectorsError != nil:
			outcome, reason = "error", errorCode(res.VectorsError)
		case res.Vectors.Embedded+res.Vectors.Refused+res.Vectors.KeptLocal == 0:
			outcome, reason = "skipped", "nothing_pending"
		}
		m.extractions.WithLabelValues("vectors", trigger, outcome, reason).Inc()
	}
	s := res.State
	for action, n := range map[string]int{"inserted": s.ItemsInserted, "merged": s.ItemsMerged, "superseded": s.ItemsSuperseded,
		"conflicted": s.ItemsConflicted, "dropped": s.ItemsDropped} {
		if n > 0 {
			m.items.WithLabelValues(action).Add(float64(n))
		}
	}
}

// digestRequest counts one background digest request by its result.
func (m *metrics) digestRequest(result string) { m.digestReqs.WithLabelValues(result).Inc() }

func errorCode(e *tenure.Error) string {
	if e.Code == "" {
		return string(tenure.CodeInternal)
	}
	return string(e.Code)
}
