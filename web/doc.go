// Package web is Tenure's web inspector: server-rendered pages over the
// same store, compiler and permission checks as the HTTP API, served by
// tenure serve at /ui/.
//
// A person signs in with an API key; the inspector keeps a server-side
// session (an HttpOnly, SameSite=Strict cookie naming it, never the key)
// and runs every page as the key's principal, looked up again on every
// request so that a revoked key ends its sessions. Pages show what the API
// would answer that principal and nothing more: objects (search, the
// supersession chain and a bitemporal timeline), conflicts and their
// resolution, conversations (messages by session, state items with their
// sources, summaries), the compile playground and traces, workflow
// snapshots, and operations (health, metrics, API keys for holders of
// keys:admin).
//
// Templates and assets are embedded; nothing is loaded from elsewhere.
// Every form carries a CSRF token; html/template escapes all text (no
// user-written text is ever marked safe).
package web
