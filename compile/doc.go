// Package compile is Tenure's context compiler: a pure pipeline that turns
// governed state into a token-budgeted, cache-ordered context envelope and
// a trace of what was compiled, omitted (and why) and quarantined.
//
// The ten steps of the context architecture, each timed in the trace:
//
//  1. normalize every input (store objects, tail messages, tools,
//     documents) into context objects with an authority level;
//  2. resolve entities (the Resolver hook);
//  3. apply scope, permission and authority gates;
//  4. drop superseded, expired, out-of-window and quarantined objects;
//  5. rank relevance and assign priority tiers, with the why_it_matters and
//     task-type activation gate;
//  6. rescue highly relevant subunits of documents that were not selected;
//  7. deduplicate and convert facts into instructions where scope,
//     authority and relevance justify it;
//  8. contain untrusted payloads in data wrappers;
//  9. order for cache and attention and pack into the token budget;
//  10. emit the envelope and the trace.
//
// The compiler reads through small interfaces (Source, Embedder, Resolver,
// Counter; MessageSource and SnapshotSource when the Source also offers
// past messages and workflow snapshots) and does no SQL or HTTP itself. A
// request naming a workflow gets its snapshot as task state in the
// workflow section, in a user role, every value agents wrote rendered by
// the untrusted-text renderer (untrusted.go).
package compile
