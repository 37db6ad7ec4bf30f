// Package mcp serves Tenure over the Model Context Protocol with the
// official Go SDK, so that an agent can read and write governed memory as
// tools.
//
// A Server exposes nineteen tools with typed, documented input schemas:
//
//   - remember writes an object (a claim) or a message (a conversation turn);
//   - compile_context returns the context envelope for a query and a budget;
//   - recall returns the objects a compilation ranks highest, with scores and
//     the reasons they were selected;
//   - supersede replaces an object with a new claim for the same key;
//   - expand_state_item returns a structured-state item with the messages it
//     was extracted from;
//   - history returns every version stored under a key and its supersession
//     chain;
//   - forget retires objects;
//   - snapshot_start, snapshot_get, snapshot_submit_delta,
//     snapshot_close_round and snapshot_path_history run a multi-agent
//     workflow's shared snapshot: start it, read it (or a past round),
//     contribute a delta to the open round as the calling agent, close the
//     round (aggregate, clip, report conflicts and convergence) and trace a
//     path's deltas (docs/snapshots.md);
//   - entities, entity_show, entity_resolve, entity_merge, entity_split,
//     entity_settle and entity_undo read and curate the entity registry:
//     list entities (pending ones wait for review), show one with its
//     history, say what a name resolves to, merge, split, settle a pending
//     entity and undo any of these (docs/entities.md);
//
// and two resources: tenure://identity (the principal and its identity-layer
// objects) and tenure://state (the current structured state items, also per
// thread as tenure://state/{thread_id}), each as compact text and as JSON.
//
// Every call runs as a principal with the store's usual permission checks:
// the fixed Options.Principal, or over HTTP the principal that
// Options.PrincipalFromRequest resolves for each request (PrincipalFromContext
// when an authenticating transport such as tenure serve sets it with
// tenure.ContextWithPrincipal). Bad input and
// refused operations come back as tool error results that name the field
// (the model can correct itself); failures of the server itself
// (unauthenticated, unavailable, timeout, internal) are JSON-RPC errors
// whose code comes from tenure.RPCCode.
//
// Transports: RunStdio (or RunIO, Run) for a local agent, HTTPHandler for
// streamable HTTP.
package mcp
