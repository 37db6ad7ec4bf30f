// Package http serves Tenure over HTTP/JSON and calls it back: a Server
// that puts the store, the context compiler and state expansion behind a
// versioned API, and a Client that implements the same interfaces as the
// embedded library (tenure.Store, tenure.MessageStore, Store, Compiler),
// so that the same code runs against a local file or a remote server.
//
// # Authentication
//
// Every /v1 call except GET /v1/openapi.json needs an API key, sent as
// "Authorization: Bearer tk_…". Keys are random secrets mapped to a
// principal (tenant, user, roles, authority, clearance, permissions);
// stores keep only their SHA-256 (tenure.HashAPIKey). A call runs as its
// key's principal whatever the body says: a body naming another tenant is
// refused, and an object of another tenant, or one the principal may not
// read, is 404 exactly like a missing one. A missing, unknown or revoked
// key is 401.
//
// # Routes
//
//	GET  /healthz                 liveness
//	GET  /readyz                  readiness (503 while shutting down)
//	GET  /metrics                 Prometheus metrics (a key with metrics:read)
//	GET  /v1/openapi.json         this API as OpenAPI 3.1
//	GET  /v1/whoami               the caller's key and principal
//	POST /v1/objects              write one object (tenure.Object → tenure.WriteResult);
//	                              a correction is a write with "supersedes"
//	POST /v1/objects/batch        write objects all or nothing ({"objects": [...]})
//	GET  /v1/objects              one page of the latest versions (layer, scope_kind,
//	                              status, object_type, key_prefix, author, valid_at,
//	                              tx_from, tx_until, newest, cursor, limit, scope
//	                              parameters); "next" is the following page's cursor
//	GET  /v1/objects/{id}         one object (as_of_tx, as_of_valid, scope parameters)
//	GET  /v1/values/{key}         the current value of a key (same parameters)
//	GET  /v1/history/{key}        every version of a key and its supersession chain
//	POST /v1/retire               the retirement sweep, or retire object_ids now
//	GET  /v1/resolutions          resolution requests (open=true|false)
//	POST /v1/sessions/{id}/end    clear a session's working set
//	POST /v1/messages             append messages ({"messages": [...]})
//	GET  /v1/messages             a thread's messages (thread_id, after_id, after_time, limit)
//	POST /v1/compile              compile an envelope (compile.Request without principal;
//	                              format=text|json|openai|anthropic, trace=true)
//	GET  /v1/traces/{id}          a recent compilation's trace
//	POST /v1/expand               a state item and its source messages (tenure.ExpandRequest)
//	POST /v1/extract              digest a thread now: state items and summaries
//	                              ({"thread_id": ..., "summaries": true} → engine.DigestResult)
//	PUT  /v1/identity             the caller's identity for a session (identity layer)
//	PUT  /v1/environment          environment values (environment layer)
//
// The scope parameters are project_id, user_id, session_id, task_id and
// scope_id; times are RFC 3339. The OpenAPI document (OpenAPI, served at
// /v1/openapi.json) describes every route and body.
//
// # Input and errors
//
// Bodies are decoded strictly (package jsonx): unknown or repeated fields,
// wrong types and malformed JSON are 400 invalid with the field named, and
// nothing is written; unknown query parameters are rejected the same way.
// Bodies over ServerOptions.MaxBodyBytes are 413 too_large, and so is a
// compile input over the compiler's limits (compile.Limits) or stored
// content over the store's, with the field named. Compilations and
// POST /v1/extract run under concurrency caps (ServerOptions.Compiles,
// Extractions): past one a call answers 503 unavailable with Retry-After at
// once instead of queueing. Every error is
// an ErrorBody {code, message, field} whose status comes from
// tenure.HTTPStatus; the Client turns it back into a *tenure.Error with the
// same code and field.
//
// # Operations
//
// Each request gets an id (X-Request-Id, honored when sane, echoed back)
// and one structured log line. GET /metrics serves, from a private
// registry, request counts by route and status, store operations by
// operation and code, compile latency, envelope tokens, omitted objects
// by reason and the concurrency caps' refusals. It counts every tenant's
// requests, so it needs a key holding tenure.PermMetricsRead; with
// ServerOptions.SeparateMetrics it is left off the API and the caller
// serves MetricsHandler, unauthenticated, on a private listener. Compile traces are kept in memory (ServerOptions.TraceTTL,
// MaxTraces) for GET /v1/traces/{id}, readable by the same tenant's
// compiling user and by principals allowed full traces. Server.Serve shuts
// down gracefully when its context ends: in-flight requests finish.
// ServerOptions.Mounts adds handlers (the MCP endpoint) behind the same
// authentication.
//
// # Structured state and summaries
//
// With ServerOptions.Digester set (NewDigester over the engine, with an
// extractor and a summarizer), POST /v1/extract digests a thread as the
// caller's principal: its new messages become state items and its due
// summaries are written (engine.Digest). The two channels fail apart: when
// one fails and the other runs, the answer is 200 with the failure in
// state_error or summary_error; a bad request, or a digest whose every
// channel failed, is answered with the error's status.
//
// Every POST /v1/messages that appends also schedules a background digest
// of each thread it touched, as the same principal, unless
// ServerOptions.ManualDigest is set. It never delays or fails the append.
// Digests of one thread of a tenant never overlap (requested ones wait for
// the running one); requests for a thread already waiting or running are
// coalesced into one more run; a bounded pool (DigestWorkers) runs them,
// each within DigestTimeout, and a full queue (DigestQueue) drops
// requests, whose messages wait behind the thread's watermarks for its
// next digest. Shutdown waits for running digests, within the shutdown
// timeout, then cancels them (Server.StopDigests). Metrics count channel
// runs by outcome, state items by action and digest latency; each digest
// logs one line with the id of the request that asked for it.
package http
