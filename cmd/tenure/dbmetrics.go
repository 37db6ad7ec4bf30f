package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenure-dev/tenure/postgres"
)

// registerDBMetrics adds to reg, for PostgreSQL, the connection pool and
// the database's unavailability (SQLite has neither).
func registerDBMetrics(reg prometheus.Registerer, st *dbStore) {
	pg, ok := st.storeAdmin.(*postgres.Store)
	if !ok {
		return
	}
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
}
