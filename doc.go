// Package tenure holds the domain of Tenure, the engine that decides what an
// LLM agent gets to see: the Context Object and its tenure (scope, source,
// authority, confidence, permissions, valid and transaction time, relevance
// condition, supersession, conflict policy and retirement rule), the
// Principal that reads and writes, Scope, the bounded vocabularies, the one
// Error type with its codes, and the small interfaces stores implement.
//
// The package imports only the standard library. Stores live in sqlite/
// (embedded) and share their semantics through engine/; the context
// compiler lives in compile/.
package tenure
