// Package engine implements Tenure's write and read semantics (versioning,
// reconciliation, dependency repair, layers, scopes, permissions,
// retirement) once, over a small transactional Backend that each store
// (sqlite, postgres) provides. Stores wrap an Engine and expose it as a
// tenure.Store.
package engine
