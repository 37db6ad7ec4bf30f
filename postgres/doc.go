// Package postgres is Tenure's scale-out store: the engine (package engine)
// over PostgreSQL through a pgx connection pool, so that several tenure
// serve processes share one database.
//
// The schema is applied from embedded, numbered migrations when the store
// is opened (or by tenure migrate), under an advisory lock, so starters
// that race apply each migration once. Queries run as the role tenure_app,
// which owns nothing and does not bypass row-level security; every
// transaction names its tenant with set_config('tenure.tenant', …, true)
// and the policies show it that tenant's rows only (docs/postgres.md).
//
// Write transactions take one transaction-scoped advisory lock, so that
// writers are serialized across processes as SQLite's BEGIN IMMEDIATE
// serializes them: the engine's reconciliation reads what it decides on
// and writes in the same transaction, and sees every write committed
// before it. Reads take no lock and never wait for writers: each query is
// sent in one batch behind the statement that names its tenant. Full-text
// search ranks with BM25 over tsvector columns (search.go); vectors are
// stored as bytea and compared in Go, as the SQLite store does (no
// pgvector).
package postgres
