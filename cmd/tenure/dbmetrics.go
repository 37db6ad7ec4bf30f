package main

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tenure-dev/tenure/postgres"
)

// metricsRegistry is the registry serve's metrics go to: the server's
// default (nil) for SQLite; for PostgreSQL, one that also reports the
// connection pool and the database's unavailability.
func metricsRegistry(st *dbStore) *prometheus.Registry {
	pg, ok := st.storeAdmin.(*postgres.Store)
	if !ok {
		return nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	gauge := func(name, help string, f func(postgres.Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return f(pg.Stats()) })
	}
	counter := func(name, help string, f func(postgres.Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return f(pg.Stats()) })
	}
	reg.MustRegister(
		gauge("tenure_db_pool_acquired_connections", "PostgreSQL connections in use.", func(s postgres.Stats) float64 { return float64(s.AcquiredConns) }),
		gauge("tenure_db_pool_idle_connections", "PostgreSQL connections idle in the pool.", func(s postgres.Stats) float64 { return float64(s.IdleConns) }),
		gauge("tenure_db_pool_max_connections", "The pool's size (--db-pool).", func(s postgres.Stats) float64 { return float64(s.MaxConns) }),
		counter("tenure_db_pool_acquires_total", "Connections handed out by the pool.", func(s postgres.Stats) float64 { return float64(s.AcquireCount) }),
		counter("tenure_db_pool_acquire_wait_seconds_total", "Time spent waiting for a connection of the pool.",
			func(s postgres.Stats) float64 { return s.AcquireDuration.Seconds() }),
		counter("tenure_db_unavailable_total", "Operations that failed because PostgreSQL could not be reached.",
			func(s postgres.Stats) float64 { return float64(s.Unavailable) }),
		counter("tenure_db_retries_total", "Transactions started again on a new connection after a broken one, and connection attempts repeated at start.",
			func(s postgres.Stats) float64 { return float64(s.Retries) }),
	)
	return reg
}
