package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/tenure-dev/tenure/memory"
)

// startCurator runs the curator every c.curateEvery over every user and
// persona of s (none when --curate-every is 0), counting its runs on reg.
// The returned stop ends the schedule and waits for the run in flight.
func (c *serveCmd) startCurator(ctx context.Context, s memory.ScheduleStore, reg prometheus.Registerer, log *slog.Logger) (stop func()) {
	if c.curateEvery <= 0 {
		return func() {}
	}
	runs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tenure_curator_runs_total",
		Help: "Scheduled curator runs (one per tenant, user and persona) by result: ok or error."}, []string{"result"})
	folds := prometheus.NewCounter(prometheus.CounterOpts{Name: "tenure_curator_folds_total",
		Help: "Folds of near-duplicate memories by the scheduled curator."})
	archived := prometheus.NewCounter(prometheus.CounterOpts{Name: "tenure_curator_archived_total",
		Help: "Stale memories archived by the scheduled curator."})
	reg.MustRegister(runs, folds, archived)
	sched := memory.NewScheduler(s, memory.ScheduleOptions{Every: c.curateEvery, Logger: log,
		OnRun: func(_ memory.Target, rep memory.CurateReport, err error) {
			if err != nil {
				runs.WithLabelValues("error").Inc()
				return
			}
			runs.WithLabelValues("ok").Inc()
			folds.Add(float64(len(rep.Folds)))
			archived.Add(float64(len(rep.Archived)))
		}})
	sched.Start(ctx)
	log.Info("curator.scheduled", "every", c.curateEvery.String())
	return sched.Close
}

// serverRegistry is the registry of the server's metrics: the Go and
// process collectors, and what serve adds (the curator's).
func serverRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}
