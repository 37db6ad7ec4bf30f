package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/entity"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/snapshot"
)

var update = flag.Bool("update", false, "rewrite openapi.json from the route table and the Go types")

// apiOp documents one route for the OpenAPI document.
type apiOp struct {
	method, path, summary string
	query                 []apiParam
	body                  any // a value of the request body's type, or nil
	resp                  any // a value of the response body's type
	public                bool
	contentType           string // of the response, when not JSON
	capped                bool   // under a concurrency cap: 503 with Retry-After past it
	// errs are the errors the route answers besides those of default
	// (internal, unavailable, timeout), each with what it means there (""
	// for the code's general meaning, errText). TestOpenAPIErrors makes
	// each happen, and every test of the package checks that no route
	// answers a client error (4XX) it does not list (see observe).
	errs map[tenure.Code]string
	// alt documents another form of the 200 answer: its media type,
	// schema, headers and when it is sent.
	alt *apiAlt
}

// apiAlt is another form of a route's 200 answer.
type apiAlt struct {
	mediaType, desc string
	schema          map[string]any
	headers         []apiParam
}

// errText says what each client error means when a route says nothing
// more.
var errText = map[tenure.Code]string{
	tenure.CodeInvalid: "a malformed or unknown query parameter, a bad body (malformed JSON, an unknown field, a wrong type) " +
		"or a value out of range; field names it, and nothing was written.",
	tenure.CodeUnauthenticated: "no API key, or an unknown or revoked one.",
	tenure.CodeForbidden:       "the key's principal may not do this.",
	tenure.CodeNotFound:        "nothing the caller can read has this id or key; what the caller may not read answers the same.",
	tenure.CodeConflict:        "the request contradicts what is stored.",
	tenure.CodeTooLarge:        "the body is over the server's limit (tenure serve --max-body), or a field over its own; field names it, and nothing was written.",
	tenure.CodeUnavailable:     "the store is unreachable or the server is shutting down.",
}

// errsOf is the errors of an authenticated route (invalid, for an
// unknown query parameter, and unauthenticated) and more, each given as a
// code and what it means on the route.
func errsOf(more ...string) map[tenure.Code]string {
	m := map[tenure.Code]string{tenure.CodeInvalid: "", tenure.CodeUnauthenticated: ""}
	for i := 0; i+1 < len(more); i += 2 {
		m[tenure.Code(more[i])] = more[i+1]
	}
	return m
}

// Route-specific meanings of the client errors.
const (
	notAnyUser  = "user_id names another user and the key lacks scope:any_user."
	writeDenied = "the write is not the principal's to make: for another user or tenant, above its clearance, " +
		"against a claim of a higher authority, or a constraint or policy without rules:write."
	notVisible    = "supersedes or object_id names no object the caller can read."
	writeConflict = "a stale version, superseding an object that is no longer current, or rewriting a session's identity."
)

type apiParam struct {
	name, typ, desc string
	enum            []string
}

var (
	scopeParams = []apiParam{
		{"project_id", "string", "project of the scope", nil},
		{"user_id", "string", "user of the scope (default: the key's user; another user needs scope:any_user)", nil},
		{"session_id", "string", "session of the scope", nil},
		{"task_id", "string", "task of the scope", nil},
		{"scope_id", "string", "hypothetical or draft sandbox of the scope", nil},
	}
	readParams = append(slices.Clone(scopeParams),
		apiParam{"as_of_tx", "date-time", "read what the store believed at this transaction time (RFC 3339)", nil},
		apiParam{"as_of_valid", "date-time", "read what was true at this valid time, by the latest belief (RFC 3339)", nil})
	listParams = append(slices.Clone(scopeParams),
		apiParam{"layer", "string", "only objects in this layer", strs(tenure.Layers)},
		apiParam{"scope_kind", "string", "only objects of this scope kind", strs(tenure.ScopeKinds)},
		apiParam{"status", "string", "only objects with this status (default: every status)", strs(tenure.Statuses)},
		apiParam{"object_type", "string", "only objects of this type", strs(tenure.ObjectTypes)},
		apiParam{"key_prefix", "string", "only keys starting with this prefix", nil},
		apiParam{"author", "string", "only objects written by this principal (written_by)", nil},
		apiParam{"valid_at", "date-time", "only objects whose valid time covers this time, true then (RFC 3339)", nil},
		apiParam{"tx_from", "date-time", "only objects whose latest version was stored at or after this time (RFC 3339)", nil},
		apiParam{"tx_until", "date-time", "only objects whose latest version was stored before this time (RFC 3339; after tx_from when both are given)", nil},
		apiParam{"newest", "boolean", "the most recently stored objects first (default false: the oldest first)", nil},
		apiParam{"cursor", "string", "continue the listing where the page that returned it as next stopped, with the same filters (default: from the beginning)", nil},
		apiParam{"limit", "integer", "at most this many objects on the page (default 100, at most 10000)", nil})
	messageParams = append(slices.Clone(scopeParams),
		apiParam{"thread_id", "string", "the thread (required)", nil},
		apiParam{"after_id", "string", "only messages after this one: a watermark for incremental reads", nil},
		apiParam{"after_time", "date-time", "only messages created after this time", nil},
		apiParam{"limit", "integer", "at most this many messages (default 1000, at most 100000)", nil})
)

// apiOps is the API as documented: TestOpenAPIRoutes checks it against the
// server's routes and TestOpenAPIDocument against openapi.json.
var apiOps = []apiOp{
	{method: "GET", path: "/healthz", summary: "Liveness: the process serves requests.", resp: tenurehttp.Health{}, public: true},
	{method: "GET", path: "/readyz", summary: "Readiness: the store is reachable and the server is not shutting down (503 otherwise).", resp: tenurehttp.Health{}, public: true,
		errs: map[tenure.Code]string{tenure.CodeUnavailable: ""}},
	{method: "GET", path: "/metrics", summary: "Prometheus metrics in the text exposition format, for keys holding the metrics:read permission " +
		"(403 otherwise). Not served here when the server runs with a separate metrics listener (tenure serve --metrics-addr).", contentType: "text/plain",
		errs: map[tenure.Code]string{tenure.CodeUnauthenticated: "", tenure.CodeForbidden: "the key lacks the metrics:read permission.",
			tenure.CodeNotFound: "the metrics are served on a listener of their own (tenure serve --metrics-addr)."}},
	{method: "GET", path: "/v1/openapi.json", summary: "This document.", public: true, contentType: "application/json"},
	{method: "GET", path: "/v1/whoami", summary: "The caller's API key and the principal its requests run as.", resp: tenure.APIKey{},
		errs: errsOf()},
	{method: "POST", path: "/v1/objects", summary: "Write one object. The store assigns object ids: leave object_id out for a new object; an object_id naming no object the caller can read is 404, whether unused or not. A correction is a write whose supersedes names the object (by id or key) it replaces. Claims the caller cannot read never decide the outcome.",
		body: tenure.Object{}, resp: tenure.WriteResult{},
		errs: errsOf("forbidden", writeDenied, "not_found", notVisible, "conflict", writeConflict, "too_large", "")},
	{method: "POST", path: "/v1/objects/batch", summary: "Write objects in one transaction, all or nothing; error fields are objects[i].field.",
		body: tenurehttp.BatchRequest{}, resp: tenurehttp.BatchResponse{},
		errs: errsOf("forbidden", writeDenied, "not_found", notVisible, "conflict", writeConflict, "too_large", "")},
	{method: "GET", path: "/v1/objects", summary: "One page of the latest versions of the objects matching the filters, visible to the caller. next, when present, is the cursor of the following page: pass it back as cursor with the same filters; it is absent on the last page. A page may hold fewer objects than limit and still have a next one (a page scans at most 5,000 stored objects), so follow next until it is absent.", query: listParams, resp: tenurehttp.ObjectList{},
		errs: errsOf("forbidden", notAnyUser)},
	{method: "GET", path: "/v1/objects/{id}", summary: "One object by id: the latest version, or the one selected by the as-of times. Objects the caller may not see are 404 like missing ones.",
		query: readParams, resp: tenure.Object{},
		errs: errsOf("forbidden", notAnyUser, "not_found", "")},
	{method: "GET", path: "/v1/values/{key}", summary: "The object holding a key's value now, or at the as-of times, following supersession; " +
		"with only=value, the value alone.",
		query: append(slices.Clone(readParams), apiParam{"only", "string", "value: answer the value alone, as JSON (an object holding " +
			"content and no value answers its content as a JSON string), and the object's id in X-Tenure-Object-Id", []string{"value"}}),
		resp: tenure.Object{},
		alt: &apiAlt{mediaType: "application/json", desc: "The object or, with only=value, its value alone.",
			schema:  map[string]any{"description": "with only=value: the value alone, any JSON value"},
			headers: []apiParam{{"X-Tenure-Object-Id", "string", "with only=value: the id of the object holding the value", nil}}},
		errs: errsOf("forbidden", notAnyUser, "not_found", "no value under this key that the caller can read.")},
	{method: "GET", path: "/v1/history/{key}", summary: "Every visible version stored under a key, with both timelines, and its supersession chain; as_of_tx keeps what was recorded by then, as_of_valid the versions valid then.", query: readParams, resp: tenure.History{},
		errs: errsOf("forbidden", notAnyUser, "not_found", "no version under this key that the caller can read.")},
	{method: "GET", path: "/v1/memories", summary: "Memories (profile, people and project facts) the caller can read: pinned first, then importance, then recency.",
		query: append(slices.Clone(scopeParams),
			apiParam{"type", "string", "only memories of this type", strs(tenure.MemoryKinds)},
			apiParam{"entity", "string", "only memories about this entity ref (person:john_doe)", nil},
			apiParam{"archived", "boolean", "include archived memories (default false)", nil},
			apiParam{"limit", "integer", "at most this many memories (default 100, at most 10000)", nil}),
		resp: tenurehttp.MemoryList{}, errs: errsOf("forbidden", notAnyUser)},
	{method: "POST", path: "/v1/memories/{id}/pin", summary: "Pin a memory (a new version): importance 3, always in the foundation set and on entity cards, never archived by the curator.",
		resp: tenure.WriteResult{}, errs: errsOf("forbidden", "the memory was written by a higher authority.", "not_found", "no memory the caller can read has this id.")},
	{method: "POST", path: "/v1/memories/{id}/unpin", summary: "Unpin a memory (a new version; its importance stays 3 until set).",
		resp: tenure.WriteResult{}, errs: errsOf("forbidden", "the memory was written by a higher authority.", "not_found", "no memory the caller can read has this id.")},
	{method: "PUT", path: "/v1/memories/{id}/importance", summary: "Set a memory's importance, 0 (trivial) … 3 (core identity) (a new version).",
		body: tenurehttp.ImportanceRequest{}, resp: tenure.WriteResult{},
		errs: errsOf("forbidden", "the memory was written by a higher authority.", "not_found", "no memory the caller can read has this id.")},
	{method: "POST", path: "/v1/curate", summary: "Run the memory curator as the caller over the memories of the scope it can read: fold near-duplicates, archive stale ones; unless dry_run, the run is recorded in the session state of the user and persona.",
		body: tenurehttp.CurateRequest{}, resp: memory.CurateReport{},
		errs: errsOf("forbidden", notAnyUser)},
	{method: "POST", path: "/v1/retire", summary: "Run the retirement sweep, or retire object_ids now by rule.", body: tenure.RetireOptions{}, resp: tenure.RetireReport{},
		errs: errsOf("forbidden", "an object_id was written by a higher authority.", "not_found", "an object_id names no object the caller can read.", "too_large", "")},
	{method: "GET", path: "/v1/resolutions", summary: "Resolution requests (quarantined conflicts and confirmations) all of whose objects the caller can read.",
		query: []apiParam{{"open", "boolean", "only open requests (default true)", nil}}, resp: tenurehttp.ResolutionList{},
		errs: errsOf()},
	{method: "POST", path: "/v1/sessions/{id}/end", summary: "End a session: clear its working set.", resp: tenurehttp.EndSessionResult{},
		errs: errsOf()},
	{method: "GET", path: "/v1/sessions", summary: "The caller's sessions (its persona's and those with no persona), the latest activity first; a session past its inactivity window is reported ended. The Tenure-Persona header picks the persona for a key bound to none.",
		query: []apiParam{{"thread_id", "string", "only this thread's", nil}, {"session_id", "string", "only this session", nil},
			{"active", "boolean", "only sessions still open (default false)", nil}, {"limit", "integer", "at most this many (default 100, at most 10000)", nil}},
		resp: tenurehttp.SessionList{}, errs: errsOf()},
	{method: "GET", path: "/v1/session-state", summary: "The session state of the caller's user with its persona: message count, last interaction, the curator's bookkeeping and the rolling summary's diagnostics.",
		resp: tenure.SessionState{}, errs: errsOf()},
	{method: "POST", path: "/v1/messages", summary: "Append messages in one transaction, all or nothing; re-appending the same message is a no-op. Ids are per thread and user: another user's message with the same id is a different message.",
		body: tenurehttp.AppendRequest{}, resp: tenure.AppendResult{},
		errs: errsOf("forbidden", "a message for another user or tenant.", "conflict", "a message id already used in the thread with other content.", "too_large", "")},
	{method: "GET", path: "/v1/messages", summary: "A thread's messages visible to the caller, in order.", query: messageParams, resp: tenurehttp.MessageList{},
		errs: errsOf("forbidden", notAnyUser)},
	{method: "POST", path: "/v1/compile", summary: "Compile the context envelope for a query within a token budget, as the key's principal (leave principal out). " +
		"An input over its size limit is 413 too_large naming it (query, current_turn, documents[i].content, tail[i].content, instructions[i].text, " +
		"tools[i].description, tools[i].schema). workflow_id adds a workflow's snapshot as task state (the trace's workflow says what of it was included).",
		query: []apiParam{{"format", "string", "envelope rendering (default text)", compile.Formats},
			{"trace", "boolean", "include the trace in the answer (it is kept for GET /v1/traces/{id} either way)", nil}},
		body: compile.Request{}, resp: tenurehttp.CompileResponse{}, capped: true,
		alt: &apiAlt{mediaType: "text/plain", desc: "JSON, or the text envelope alone as text/plain when format=text is given and Accept " +
			"does not prefer application/json, or when Accept prefers text/plain (never with trace=true); what the JSON carries beside " +
			"the envelope is then in headers.", schema: map[string]any{"type": "string", "description": "the envelope as text"},
			headers: []apiParam{{"X-Tenure-Trace-Id", "string", "with text/plain: the compilation's trace id (GET /v1/traces/{id})", nil},
				{"X-Tenure-Tokens", "integer", "with text/plain: the envelope's tokens", nil},
				{"X-Tenure-Cache-Key", "string", "with text/plain: the hash of the envelope's static prefix", nil}}},
		errs: errsOf("forbidden", notAnyUser, "too_large", "the body, or one of the inputs named above, is over its limit; field names it.",
			"not_found", "workflow_id names no workflow the caller can see.")},
	{method: "GET", path: "/v1/traces/{id}", summary: "A recent compilation's trace (POST /v1/compile's, or the MCP tools' on tenure serve's /mcp), for the principal that compiled it (same user, same or higher clearance) or trace:read holders of its tenant; otherwise 404 like a missing id. Withheld objects only with trace:full.", resp: compile.Trace{},
		errs: errsOf("not_found", "no trace with this id that the caller may read (expired, dropped, or another principal's).")},
	{method: "POST", path: "/v1/expand", summary: "A state item and the messages it was extracted from.", body: tenure.ExpandRequest{}, resp: tenure.Expansion{},
		errs: errsOf("not_found", "no state item with this uid that the caller can read.", "conflict", "the uid names items in several threads: name the thread.", "too_large", "")},
	{method: "POST", path: "/v1/extract", summary: "Digest a thread now, as the key's principal: extract its new messages into state items and, " +
		"unless summaries is false, write its due summaries. A channel's failure is reported in state_error or summary_error with 200 " +
		"when the other channel ran; a bad request, or a digest whose every channel failed, is an error. 503 when the server does not extract.",
		body: tenurehttp.ExtractRequest{}, resp: engine.DigestResult{}, capped: true,
		errs: errsOf("too_large", "")},
	{method: "PUT", path: "/v1/identity", summary: "Set the caller's identity for a session (the identity layer): once; the same identity again confirms it, another is 409.",
		body: tenurehttp.IdentityRequest{}, resp: tenure.WriteResult{},
		errs: errsOf("conflict", "the session already has another identity.", "too_large", "")},
	{method: "PUT", path: "/v1/environment", summary: "Set environment values (the environment layer), each replacing the previous one; needs environment:write.",
		body: tenurehttp.EnvironmentRequest{}, resp: tenurehttp.BatchResponse{},
		errs: errsOf("forbidden", "the key lacks environment:write (or the top rank).", "too_large", "")},
	{method: "POST", path: "/v1/workflows", summary: "Start a workflow: its round-0 snapshot holds the query and empty bindings, entities and rules, and round 1 is open. " +
		"The configuration says how rounds aggregate (strategy, per path prefix, experts), the state's size policy, and who may see it (user, classification, roles). " +
		"A workflow the caller cannot see never stops it from starting one of the same name.",
		body: snapshot.Workflow{}, resp: snapshot.Snapshot{},
		errs: errsOf("forbidden", "for another user without scope:any_user, or a workflow the caller could not see (classification or roles).",
			"conflict", "a workflow of this name that the caller can see exists.", "too_large", "")},
	{method: "GET", path: "/v1/workflows/{id}", summary: "A workflow's current snapshot (its latest closed round), a past round's, or the latest closed by as_of, " +
		"with the round's deltas and what became of them. A workflow the caller cannot see is 404 like a missing one.",
		query: []apiParam{{"round", "integer", "the round whose snapshot to return (0 is the start)", nil},
			{"as_of", "date-time", "the latest round closed at or before this time (RFC 3339)", nil},
			{"deltas", "boolean", "include the round's deltas (default true)", nil}},
		resp: snapshot.Snapshot{},
		errs: errsOf("not_found", "no workflow with this id that the caller can see, or a round not closed yet.")},
	{method: "POST", path: "/v1/workflows/{id}/deltas", summary: "Submit deltas for the open round, all or nothing; error fields are deltas[i].field. " +
		"A delta's agent is the key's principal; its path is an RFC 9535 JSONPath into the state. The same delta twice is one delta (its id is a hash of its content).",
		body: tenurehttp.SubmitRequest{}, resp: snapshot.SubmitResult{},
		errs: errsOf("forbidden", "agentId names another agent than the key's principal.", "not_found", "no workflow with this id that the caller can see.",
			"conflict", "a round that is not open (rounds only increase), or a bound concept id changed without rebind (identity is stable).", "too_large", "")},
	{method: "POST", path: "/v1/workflows/{id}/close", summary: "Close the open round: aggregate its deltas into the next snapshot with the workflow's strategies, " +
		"enforce its size limit, and open the next round. The snapshot's report lists what changed, the conflicts (who lost and why), what was clipped and whether the workflow converged.",
		query: []apiParam{{"round", "integer", "the round the caller means to close; when another round is open nothing is closed (409), so a repeated close cannot close the next round too", nil}},
		resp:  snapshot.Snapshot{},
		errs: errsOf("forbidden", "neither the workflow's creator nor a holder of scope:any_user.", "not_found", "no workflow with this id that the caller can see.",
			"conflict", "round names a round that is not open.")},
	{method: "GET", path: "/v1/workflows/{id}/history", summary: "The deltas that touched a path, round by round, with their weights, provenance and what became of them; " +
		"a query (wildcards, filters) matches the deltas at, above or below any location it selects.",
		query: []apiParam{{"path", "string", "a JSONPath, such as $.bindings.customer (required)", nil}}, resp: snapshot.PathHistory{},
		errs: errsOf("not_found", "no workflow with this id that the caller can see.")},
	{method: "GET", path: "/v1/workflows/{id}/bindings/{term}", summary: "The concept id bound to a term in the current snapshot.", resp: snapshot.Binding{},
		errs: errsOf("not_found", "no workflow with this id that the caller can see, or no binding for the term.")},
	{method: "GET", path: "/v1/entities", summary: "The entities of the registries the caller reads: its own (the entities its objects mention) and the tenant's shared one, " +
		"or another user's with scope:any_user. Entities are resolved as objects are written: a mention binds to an entity (score at least 0.95), " +
		"becomes a pending entity for review (at least 0.70) or a new entity.",
		query: []apiParam{{"user_id", "string", "another user's registry (needs scope:any_user; default: the caller's own and the shared one)", nil},
			{"status", "string", "only entities with this status", []string{"active", "pending", "merged"}},
			{"type", "string", "only entities of this type", strs(entity.Types)},
			{"limit", "integer", "at most this many entities (default and at most 1000)", nil}},
		resp: tenurehttp.EntityList{}, errs: errsOf("not_found", entityNotVisible)},
	{method: "GET", path: "/v1/entities/{id}", summary: "An entity (id \"<type>:<slug>\") with every version of it and the operations that named it.",
		query: []apiParam{{"user_id", "string", "another user's registry (needs scope:any_user)", nil}},
		resp:  entity.View{}, errs: errsOf("not_found", entityNotVisible)},
	{method: "POST", path: "/v1/entities/resolve", summary: "What a mention (\"person:Makesh\", or an untyped name) would resolve to in the caller's registry: " +
		"the decision (link, review or new), the score and the candidates. Writes nothing.",
		body: tenurehttp.ResolveRequest{}, resp: entity.Decision{}, errs: errsOf("not_found", entityNotVisible)},
	{method: "POST", path: "/v1/entities/merge", summary: "Merge one entity into another of the same registry and type: its aliases move, and its mentions resolve to the target from now on. " +
		"A user curates its own registry; the shared one needs entities:write (or rules:write). Undo with /v1/entities/undo.",
		body: entity.MergeRequest{}, resp: entity.Change{},
		errs: errsOf("forbidden", entityCurate, "not_found", entityNotVisible, "conflict", "from was already merged, or into is merged or pending.")},
	{method: "POST", path: "/v1/entities/split", summary: "Move aliases of an entity to a new entity (mentions wrongly taken for it). Undo with /v1/entities/undo.",
		body: entity.SplitRequest{}, resp: entity.Change{},
		errs: errsOf("forbidden", entityCurate, "not_found", entityNotVisible, "conflict", "the entity is not active.")},
	{method: "POST", path: "/v1/entities/settle", summary: "Settle a pending entity: link it into an entity (into) or keep it as an entity of its own (keep).",
		body: entity.SettleRequest{}, resp: entity.Change{},
		errs: errsOf("forbidden", entityCurate, "not_found", entityNotVisible, "conflict", "the entity is not pending review.")},
	{method: "POST", path: "/v1/entities/undo", summary: "Undo a merge, link, split or keep; the undo is recorded on the operation and by new versions of its entities.",
		body: tenurehttp.UndoRequest{}, resp: entity.Change{},
		errs: errsOf("forbidden", entityCurate, "not_found", "no operation with this id in a registry the caller reads.", "conflict", "already undone, or no longer undoable.")},
}

const (
	entityNotVisible = "no entity with this id in a registry the caller reads (another user's without scope:any_user answers the same)."
	entityCurate     = "a change to the shared registry without entities:write or rules:write."
)

func TestOpenAPIRoutes(t *testing.T) {
	srv := tenurehttp.NewServer(nil, nil, tenurehttp.ServerOptions{})
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(tenurehttp.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	routes := srv.Routes()
	slices.Sort(documented)
	slices.Sort(routes)
	if diff := cmp.Diff(routes, documented); diff != "" {
		t.Errorf("openapi.json paths differ from the server's routes (-routes +documented):\n%s", diff)
	}
}

func TestOpenAPIDocument(t *testing.T) {
	want := openAPIDocument(t)
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(string(want), string(tenurehttp.OpenAPI)); diff != "" {
		t.Errorf("openapi.json is stale (run go test ./http -run TestOpenAPIDocument -update) (-want +got):\n%s", diff)
	}
}

func TestOpenAPIServed(t *testing.T) {
	e := newEnv(t)
	resp, err := http.Get(e.url + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	want := bytes.Replace(tenurehttp.OpenAPI, []byte(`"version": "1"`), []byte(`"version": "`+tenure.Version()+`"`), 1)
	if resp.StatusCode != 200 || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("GET /v1/openapi.json: %d, %d bytes; want 200 and the embedded document with the build's version", resp.StatusCode, buf.Len())
	}
	var doc struct {
		Info struct{ Version string } `json:"info"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc.Info.Version != tenure.Version() {
		t.Errorf("info.version = %q (%v), want %q", doc.Info.Version, err, tenure.Version())
	}
	var h tenurehttp.Health
	if r := e.call("GET", "/healthz", "", ""); json.Unmarshal([]byte(r.body), &h) != nil || h.Version != tenure.Version() {
		t.Errorf("/healthz = %s, want the version %q", r.body, tenure.Version())
	}
}

// openAPIDocument renders the document from apiOps and the Go types.
func openAPIDocument(t *testing.T) []byte {
	t.Helper()
	g := &schemaGen{comps: map[string]any{}, names: map[reflect.Type]string{}}
	g.ref(reflect.TypeFor[tenurehttp.ErrorBody]())
	paths := map[string]map[string]any{}
	wildcard := regexp.MustCompile(`\{(\w+)\}`)
	for _, op := range apiOps {
		var params []any
		for _, m := range wildcard.FindAllStringSubmatch(op.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range op.query {
			s := map[string]any{"type": q.typ}
			if q.typ == "date-time" {
				s = map[string]any{"type": "string", "format": "date-time"}
			}
			if q.enum != nil {
				s["enum"] = q.enum
			}
			params = append(params, map[string]any{"name": q.name, "in": "query", "description": q.desc, "schema": s})
		}
		o := map[string]any{"summary": op.summary, "operationId": operationID(op)}
		if len(params) > 0 {
			o["parameters"] = params
		}
		if op.body != nil {
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(op.body))}}}
		}
		ok := map[string]any{"description": "OK"}
		switch {
		case op.resp != nil && op.alt != nil:
			schema := g.ref(reflect.TypeOf(op.resp))
			if op.alt.mediaType == "application/json" {
				schema = map[string]any{"anyOf": []any{schema, op.alt.schema}}
			}
			content := map[string]any{"application/json": map[string]any{"schema": schema}}
			if op.alt.mediaType != "application/json" {
				content[op.alt.mediaType] = map[string]any{"schema": op.alt.schema}
			}
			headers := map[string]any{}
			for _, h := range op.alt.headers {
				headers[h.name] = map[string]any{"description": h.desc, "schema": map[string]any{"type": h.typ}}
			}
			ok = map[string]any{"description": "OK. " + op.alt.desc, "content": content, "headers": headers}
		case op.resp != nil:
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(op.resp))}}
		case op.contentType == "text/plain":
			ok["content"] = map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}
		default:
			ok["content"] = map[string]any{op.contentType: map[string]any{"schema": map[string]any{"type": "object"}}}
		}
		errContent := map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorBody"}}}
		responses := map[string]any{"200": ok}
		if !op.public {
			responses["default"] = map[string]any{"description": "Any other error: internal (500), unavailable (503: the store is down " +
				"or the server is shutting down), timeout (504: past tenure serve's request timeout).", "content": errContent}
		}
		for code, desc := range op.errs {
			if desc == "" {
				desc = errText[code]
			}
			r := map[string]any{"description": string(code) + ": " + desc, "content": errContent}
			if code == tenure.CodeUnauthenticated {
				r["headers"] = map[string]any{"WWW-Authenticate": map[string]any{"description": `Bearer realm="tenure"`,
					"schema": map[string]any{"type": "string"}}}
			}
			responses[strconv.Itoa(tenure.HTTPStatus(code))] = r
		}
		if op.capped {
			responses["503"] = map[string]any{"description": "unavailable: the server runs as many of these at once as it may (or cannot run them at all); " +
				"with Retry-After, try again after that many seconds.", "content": errContent,
				"headers": map[string]any{"Retry-After": map[string]any{"description": "Seconds to wait before retrying, when a concurrency cap refused the call.",
					"schema": map[string]any{"type": "integer"}}}}
		}
		o["responses"] = responses
		if op.public {
			o["security"] = []any{}
		}
		if paths[op.path] == nil {
			paths[op.path] = map[string]any{}
		}
		paths[op.path][strings.ToLower(op.method)] = o
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Tenure API", "version": "1", "license": map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"},
			"description": "Tenure decides what an LLM agent sees. Every call runs as the principal of its API key (Authorization: Bearer tk_…); " +
				"objects of other tenants, or ones the principal may not read, answer 404 like missing ones. Bodies are decoded strictly: " +
				"unknown fields, wrong types and malformed JSON are 400 with the field named, and nothing is written. A body over the server's limit " +
				"(tenure serve --max-body), or a field over its own, is 413 too_large, and nothing is written. Errors are an ErrorBody whose " +
				"code gives the status; a method a path does not take is 405 method_not_allowed with an Allow header."},
		"servers": []any{map[string]any{"url": "{scheme}://{address}", "description": "A tenure serve (its --addr).",
			"variables": map[string]any{
				"scheme":  map[string]any{"default": "http", "enum": []string{"http", "https"}, "description": "https behind a TLS-terminating proxy"},
				"address": map[string]any{"default": "127.0.0.1:8080", "description": "host:port the server listens on (tenure serve --addr)"},
			}}},
		"security": []any{map[string]any{"apiKey": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas":         g.comps,
			"securitySchemes": map[string]any{"apiKey": map[string]any{"type": "http", "scheme": "bearer", "description": "An API key (tk_…) from tenure keys create."}},
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func operationID(op apiOp) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(op.method))
	for _, part := range strings.FieldsFunc(op.path, func(r rune) bool { return r == '/' || r == '.' || r == '{' || r == '}' }) {
		if part == "v1" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// schemaGen derives JSON Schemas from Go types as encoding/json sees them.
type schemaGen struct {
	comps map[string]any
	names map[reflect.Type]string
}

var (
	snapshotType = reflect.TypeFor[snapshot.Snapshot]()
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
)

// enums lists the values of the bounded vocabularies.
var enums = map[reflect.Type][]string{
	reflect.TypeFor[tenure.Layer]():               strs(tenure.Layers),
	reflect.TypeFor[tenure.MemoryKind]():          strs(tenure.MemoryKinds),
	reflect.TypeFor[tenure.EntityType]():          strs(tenure.EntityTypes),
	reflect.TypeFor[tenure.FactType]():            strs(tenure.FactTypes),
	reflect.TypeFor[tenure.MemorySource]():        strs(tenure.MemorySources),
	reflect.TypeFor[tenure.ObjectType]():          strs(tenure.ObjectTypes),
	reflect.TypeFor[tenure.Classification]():      strs(tenure.Classifications),
	reflect.TypeFor[tenure.ScopeKind]():           strs(tenure.ScopeKinds),
	reflect.TypeFor[tenure.Status]():              strs(tenure.Statuses),
	reflect.TypeFor[tenure.ContradictionStatus](): strs(tenure.ContradictionStatuses),
	reflect.TypeFor[tenure.RetirementRule]():      strs(tenure.RetirementRules),
	reflect.TypeFor[tenure.MemoryType]():          strs(tenure.MemoryTypes),
	reflect.TypeFor[tenure.ConstraintType]():      strs(tenure.ConstraintTypes),
	reflect.TypeFor[tenure.TaskType]():            strs(tenure.TaskTypes),
	reflect.TypeFor[tenure.Tier]():                strs(tenure.Tiers),
	reflect.TypeFor[tenure.Precision]():           strs(tenure.Precisions),
	reflect.TypeFor[tenure.StateType]():           strs(tenure.StateTypes),
	reflect.TypeFor[tenure.Confidence]():          strs(tenure.Confidences),
	reflect.TypeFor[tenure.ResolutionKind]():      {"conflict", "confirmation"},
	reflect.TypeFor[tenure.Outcome]():             {"created", "updated", "confirmed", "overridden", "superseded", "quarantined"},
	reflect.TypeFor[tenure.Code](): {"invalid", "not_found", "forbidden", "conflict", "unauthenticated", "too_large",
		"unavailable", "timeout", "internal", "method_not_allowed"},
	reflect.TypeFor[compile.Mode]():          strs(compile.Modes),
	reflect.TypeFor[compile.OmitReason]():    strs(compile.OmitReasons),
	reflect.TypeFor[compile.SectionKind]():   strs(compile.SectionOrder),
	reflect.TypeFor[snapshot.Operation]():    strs(snapshot.Operations),
	reflect.TypeFor[snapshot.Strategy]():     strs(snapshot.Strategies),
	reflect.TypeFor[snapshot.ClipStrategy](): strs(snapshot.ClipStrategies),
	reflect.TypeFor[snapshot.Status]():       strs(snapshot.Statuses),
	reflect.TypeFor[snapshot.ChangeKind]():   {"added", "modified", "removed"},
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// ref returns the schema of t, registering struct types as components.
func (g *schemaGen) ref(t reflect.Type) map[string]any {
	switch {
	case t == snapshotType:
		if _, ok := g.comps["Snapshot"]; !ok {
			g.comps["Snapshot"] = nil
			g.comps["Snapshot"] = g.snapshot()
		}
		return map[string]any{"$ref": "#/components/schemas/Snapshot"}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawType:
		return map[string]any{"description": "any JSON value"}
	case enums[t] != nil:
		return map[string]any{"type": "string", "enum": enums[t]}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := g.ref(t.Elem())
		if typ, ok := s["type"].(string); ok {
			s["type"] = []string{typ, "null"}
			return s
		}
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.ref(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.ref(t.Elem())}
	case reflect.Struct:
		name := g.name(t)
		if _, ok := g.comps[name]; !ok {
			g.comps[name] = nil // break cycles
			g.comps[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

func (g *schemaGen) name(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	n := t.Name()
	if strings.HasSuffix(t.PkgPath(), "/compile") && (n == "Message" || n == "Request" || n == "Tier") {
		n = "Compile" + n
	}
	if strings.HasSuffix(t.PkgPath(), "/semantic") {
		n = "Embedding" + n
	}
	g.names[t] = n
	return n
}

// object is the schema of a struct: its JSON fields, nothing else.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" || (f.Anonymous && tag == "") {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		s := g.ref(f.Type)
		if (f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Map) && f.Type != rawType && !strings.Contains(opts, "omitempty") {
			if typ, ok := s["type"].(string); ok {
				s["type"] = []string{typ, "null"}
			}
		}
		props[name] = s
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

// snapshot is the schema of snapshot.Snapshot, whose JSON form is its
// Meta's fields beside its state's members: the query, bindings, entities,
// rules and whatever agents contributed.
func (g *schemaGen) snapshot() map[string]any {
	s := g.object(reflect.TypeFor[snapshot.Meta]())
	props := s["properties"].(map[string]any)
	props["query"] = map[string]any{"type": "string", "description": "the original user query"}
	props["bindings"] = map[string]any{"type": "object", "description": "term → concept id", "additionalProperties": map[string]any{"type": "string"}}
	props["entities"] = map[string]any{"type": "array", "description": "discovered entities", "items": map[string]any{}}
	props["rules"] = map[string]any{"type": "array", "description": "rule evaluations", "items": map[string]any{}}
	s["description"] = "A workflow's snapshot: its own fields beside its state (query, bindings, entities, rules and any other member agents contributed)."
	s["additionalProperties"] = map[string]any{"description": "a member of the state an agent contributed: any JSON value"}
	return s
}

// errCase is a request that a route answers with an error.
type errCase struct {
	route, name          string // route as in openapi.json, name of the case
	method, path, secret string
	body                 string
	want                 tenure.Code
	on                   *env // the server asked (nil: the test's)
}

// TestOpenAPIErrors makes every error openapi.json gives a route happen,
// and checks that it is answered with that status: a documented error is
// a real one. (That no route answers an undocumented client error is
// checked over every test of the package: see observe.)
func TestOpenAPIErrors(t *testing.T) {
	var down atomic.Bool
	e := digestEnv(t, rulesDigester, manual, func(o *tenurehttp.ServerOptions) {
		o.MaxBodyBytes = 4096
		o.Ready = func(context.Context) error {
			if down.Load() {
				return errors.New("store down")
			}
			return nil
		}
	})
	// Two threads with the same decision: its uid names two items.
	e.appendMsgs(e.alice, redisThread("p1")...)
	e.appendMsgs(e.alice, redisThread("p2")...)
	for _, thread := range []string{"p1", "p2"} {
		if r := e.call("POST", "/v1/extract", e.alice, `{"thread_id":"`+thread+`"}`); r.status != 200 {
			t.Fatalf("extract %s: %d %s", thread, r.status, r.body)
		}
	}
	// An object superseded by a later one, and an admin's object alice
	// reads.
	var first tenure.WriteResult
	if r := e.call("POST", "/v1/objects", e.alice, `{"key":"order.status","value":"approved"}`); r.status != 200 {
		t.Fatalf("put: %d %s", r.status, r.body)
	} else if err := json.Unmarshal([]byte(r.body), &first); err != nil {
		t.Fatal(err)
	}
	if r := e.call("POST", "/v1/objects", e.alice, `{"key":"order.status","value":"cancelled","supersedes":"order.status"}`); r.status != 200 {
		t.Fatalf("supersede: %d %s", r.status, r.body)
	}
	var policy tenure.WriteResult
	if r := e.call("POST", "/v1/objects", e.admin, `{"key":"discount.max","value":"15%","scope":"global","user_id":""}`); r.status != 200 {
		t.Fatalf("admin put: %d %s", r.status, r.body)
	} else if err := json.Unmarshal([]byte(r.body), &policy); err != nil {
		t.Fatal(err)
	}
	var adminMemory tenure.WriteResult
	if r := e.call("POST", "/v1/objects", e.admin, `{"content":"Ada founded Acme","user_id":"","memory":{"type":"people","entity_refs":["person:ada"]}}`); r.status != 200 {
		t.Fatalf("admin memory: %d %s", r.status, r.body)
	} else if err := json.Unmarshal([]byte(r.body), &adminMemory); err != nil {
		t.Fatal(err)
	}
	if r := e.call("PUT", "/v1/identity", e.alice, `{"session_id":"s1","user_name":"Alice"}`); r.status != 200 {
		t.Fatalf("identity: %d %s", r.status, r.body)
	}
	big := `{"key":"k","content":"` + strings.Repeat("x", 5000) + `"}`
	stale := first.Object.ObjectID
	// Workflows: alice's own, and the admin's, which alice sees but may
	// not close.
	for _, w := range []struct{ key, body string }{{e.alice, `{"workflowId":"wf","query":"Which customers?"}`},
		{e.admin, `{"workflowId":"wf-admin","query":"Which orders?"}`}} {
		if r := e.call("POST", "/v1/workflows", w.key, w.body); r.status != 200 {
			t.Fatalf("start workflow: %d %s", r.status, r.body)
		}
	}
	// Entities: alice's makesh, mukesh (pending, then linked and unlinked
	// again), sam merged into samuel; the admin's shared org.
	for _, b := range []string{`{"key":"e1","content":"Makesh lives in Pune","canonical_entity_ids":["person:makesh"],"user_id":"alice"}`,
		`{"key":"e2","content":"Mukesh is a pilot","canonical_entity_ids":["person:mukesh"],"user_id":"alice"}`,
		`{"key":"e3","content":"Sam plays chess","canonical_entity_ids":["person:sam"],"user_id":"alice"}`,
		`{"key":"e4","content":"Ravi is a chemist","canonical_entity_ids":["person:ravi"],"user_id":"alice"}`} {
		if r := e.call("POST", "/v1/objects", e.alice, b); r.status != 200 {
			t.Fatalf("put: %d %s", r.status, r.body)
		}
	}
	for _, b := range []string{`{"key":"e5","content":"Acme is a customer","canonical_entity_ids":["org:acme"],"scope":"global","user_id":""}`,
		`{"key":"e6","content":"Globex churned","canonical_entity_ids":["org:globex"],"scope":"global","user_id":""}`} {
		if r := e.call("POST", "/v1/objects", e.admin, b); r.status != 200 {
			t.Fatalf("admin put: %d %s", r.status, r.body)
		}
	}
	if r := e.call("POST", "/v1/entities/merge", e.alice, `{"from":"person:sam","into":"person:ravi"}`); r.status != 200 {
		t.Fatalf("merge: %d %s", r.status, r.body)
	}
	var linked entity.Change
	if r := e.call("POST", "/v1/entities/settle", e.alice, `{"id":"person:mukesh","into":"person:makesh"}`); r.status != 200 {
		t.Fatalf("settle: %d %s", r.status, r.body)
	} else if err := json.Unmarshal([]byte(r.body), &linked); err != nil {
		t.Fatal(err)
	}
	if r := e.call("POST", "/v1/entities/undo", e.alice, `{"op_id":"`+linked.Op.ID+`"}`); r.status != 200 {
		t.Fatalf("undo: %d %s", r.status, r.body)
	}
	var adminOp entity.Change
	if r := e.call("POST", "/v1/entities/merge", e.admin, `{"from":"org:globex","into":"org:acme"}`); r.status != 200 {
		t.Fatalf("admin merge: %d %s", r.status, r.body)
	} else if err := json.Unmarshal([]byte(r.body), &adminOp); err != nil {
		t.Fatal(err)
	}
	delta := func(fields string) string {
		return `{"deltas":[{"round":1,"weight":0.5,"operation":"add","path":"$.bindings.customer","value":"sea:customer:001","provenance":"KGS"` + fields + `}]}`
	}

	// A server whose metrics are on a listener of their own.
	separate := newEnv(t, func(o *tenurehttp.ServerOptions) { o.SeparateMetrics = true })
	tests := []errCase{
		{"GET /metrics", "Separate", "GET", "/metrics", separate.monitor, "", tenure.CodeNotFound, separate},
		{"GET /readyz", "StoreDown", "GET", "/readyz", "", "", tenure.CodeUnavailable, nil},
		{"GET /metrics", "NoKey", "GET", "/metrics", "", "", tenure.CodeUnauthenticated, nil},
		{"GET /metrics", "NoPermission", "GET", "/metrics", e.alice, "", tenure.CodeForbidden, nil},
		{"POST /v1/objects", "Forbidden", "POST", "/v1/objects", e.alice, `{"key":"k","value":1,"user_id":"bob"}`, tenure.CodeForbidden, nil},
		{"POST /v1/objects", "NotFound", "POST", "/v1/objects", e.alice, `{"key":"k","value":1,"supersedes":"nothing.here"}`, tenure.CodeNotFound, nil},
		{"POST /v1/objects", "Conflict", "POST", "/v1/objects", e.alice, `{"key":"k","value":1,"supersedes":"` + stale + `"}`, tenure.CodeConflict, nil},
		{"POST /v1/objects", "TooLarge", "POST", "/v1/objects", e.alice, big, tenure.CodeTooLarge, nil},
		{"POST /v1/objects/batch", "Forbidden", "POST", "/v1/objects/batch", e.alice, `{"objects":[{"key":"k","value":1,"user_id":"bob"}]}`, tenure.CodeForbidden, nil},
		{"POST /v1/objects/batch", "NotFound", "POST", "/v1/objects/batch", e.alice, `{"objects":[{"key":"k","value":1,"supersedes":"nothing.here"}]}`, tenure.CodeNotFound, nil},
		{"POST /v1/objects/batch", "Conflict", "POST", "/v1/objects/batch", e.alice, `{"objects":[{"key":"k","value":1,"supersedes":"` + stale + `"}]}`, tenure.CodeConflict, nil},
		{"POST /v1/objects/batch", "TooLarge", "POST", "/v1/objects/batch", e.alice, `{"objects":[` + big + `]}`, tenure.CodeTooLarge, nil},
		{"GET /v1/objects", "Forbidden", "GET", "/v1/objects?user_id=bob", e.alice, "", tenure.CodeForbidden, nil},
		{"GET /v1/objects/{id}", "Forbidden", "GET", "/v1/objects/" + stale + "?user_id=bob", e.alice, "", tenure.CodeForbidden, nil},
		{"GET /v1/objects/{id}", "NotFound", "GET", "/v1/objects/nothing", e.alice, "", tenure.CodeNotFound, nil},
		{"GET /v1/values/{key}", "Forbidden", "GET", "/v1/values/order.status?user_id=bob", e.alice, "", tenure.CodeForbidden, nil},
		{"GET /v1/values/{key}", "NotFound", "GET", "/v1/values/nothing.here", e.alice, "", tenure.CodeNotFound, nil},
		{"GET /v1/values/{key}", "UnknownOnly", "GET", "/v1/values/order.status?only=object", e.alice, "", tenure.CodeInvalid, nil},
		{"GET /v1/history/{key}", "Forbidden", "GET", "/v1/history/order.status?user_id=bob", e.alice, "", tenure.CodeForbidden, nil},
		{"GET /v1/history/{key}", "NotFound", "GET", "/v1/history/nothing.here", e.alice, "", tenure.CodeNotFound, nil},
		{"GET /v1/memories", "Forbidden", "GET", "/v1/memories?user_id=bob", e.alice, "", tenure.CodeForbidden, nil},
		{"POST /v1/memories/{id}/pin", "Forbidden", "POST", "/v1/memories/" + adminMemory.Object.ObjectID + "/pin", e.alice, "", tenure.CodeForbidden, nil},
		{"POST /v1/memories/{id}/pin", "NotFound", "POST", "/v1/memories/nothing/pin", e.alice, "", tenure.CodeNotFound, nil},
		{"POST /v1/memories/{id}/unpin", "Forbidden", "POST", "/v1/memories/" + adminMemory.Object.ObjectID + "/unpin", e.alice, "", tenure.CodeForbidden, nil},
		{"POST /v1/memories/{id}/unpin", "NotFound", "POST", "/v1/memories/nothing/unpin", e.alice, "", tenure.CodeNotFound, nil},
		{"PUT /v1/memories/{id}/importance", "Forbidden", "PUT", "/v1/memories/" + adminMemory.Object.ObjectID + "/importance", e.alice, `{"importance":2}`, tenure.CodeForbidden, nil},
		{"PUT /v1/memories/{id}/importance", "NotFound", "PUT", "/v1/memories/nothing/importance", e.alice, `{"importance":2}`, tenure.CodeNotFound, nil},
		{"PUT /v1/memories/{id}/importance", "Invalid", "PUT", "/v1/memories/" + first.Object.ObjectID + "/importance", e.alice, `{"importance":2}`, tenure.CodeInvalid, nil},
		{"POST /v1/curate", "Forbidden", "POST", "/v1/curate", e.alice, `{"scope":{"user_id":"bob"}}`, tenure.CodeForbidden, nil},
		{"POST /v1/retire", "Forbidden", "POST", "/v1/retire", e.alice, `{"object_ids":["` + policy.Object.ObjectID + `"]}`, tenure.CodeForbidden, nil},
		{"POST /v1/retire", "NotFound", "POST", "/v1/retire", e.alice, `{"object_ids":["nothing"]}`, tenure.CodeNotFound, nil},
		{"POST /v1/retire", "TooLarge", "POST", "/v1/retire", e.alice, `{"object_ids":["` + strings.Repeat("x", 5000) + `"]}`, tenure.CodeTooLarge, nil},
		{"POST /v1/messages", "Forbidden", "POST", "/v1/messages", e.alice,
			`{"messages":[{"thread_id":"p3","id":"m1","role":"user","content":"hi","user_id":"bob","created_at":"2025-05-08T10:00:00Z"}]}`, tenure.CodeForbidden, nil},
		{"POST /v1/messages", "Conflict", "POST", "/v1/messages", e.alice,
			`{"messages":[{"thread_id":"p1","id":"m1","role":"user","content":"Something else.","created_at":"2025-05-08T10:00:00Z"}]}`, tenure.CodeConflict, nil},
		{"POST /v1/messages", "TooLarge", "POST", "/v1/messages", e.alice,
			`{"messages":[{"thread_id":"p3","id":"m1","role":"user","content":"` + strings.Repeat("x", 5000) + `","created_at":"2025-05-08T10:00:00Z"}]}`, tenure.CodeTooLarge, nil},
		{"GET /v1/messages", "Forbidden", "GET", "/v1/messages?thread_id=p1&user_id=bob", e.alice, "", tenure.CodeForbidden, nil},
		{"POST /v1/compile", "Forbidden", "POST", "/v1/compile", e.alice, `{"query":"status?","budget":500,"scope":{"user_id":"bob"}}`, tenure.CodeForbidden, nil},
		{"POST /v1/compile", "TooLarge", "POST", "/v1/compile", e.alice, `{"query":"` + strings.Repeat("x", 5000) + `","budget":500}`, tenure.CodeTooLarge, nil},
		{"POST /v1/compile", "NotFound", "POST", "/v1/compile", e.alice, `{"query":"q","budget":500,"workflow_id":"nothing"}`, tenure.CodeNotFound, nil},
		{"GET /v1/traces/{id}", "NotFound", "GET", "/v1/traces/nothing", e.alice, "", tenure.CodeNotFound, nil},
		{"POST /v1/expand", "NotFound", "POST", "/v1/expand", e.alice, `{"uid":"nothing"}`, tenure.CodeNotFound, nil},
		{"POST /v1/expand", "Conflict", "POST", "/v1/expand", e.alice, `{"uid":"` + redisUID + `"}`, tenure.CodeConflict, nil},
		{"POST /v1/expand", "TooLarge", "POST", "/v1/expand", e.alice, `{"uid":"` + strings.Repeat("x", 5000) + `"}`, tenure.CodeTooLarge, nil},
		{"POST /v1/extract", "TooLarge", "POST", "/v1/extract", e.alice, `{"thread_id":"` + strings.Repeat("x", 5000) + `"}`, tenure.CodeTooLarge, nil},
		{"PUT /v1/identity", "Conflict", "PUT", "/v1/identity", e.alice, `{"session_id":"s1","user_name":"Mallory"}`, tenure.CodeConflict, nil},
		{"PUT /v1/identity", "TooLarge", "PUT", "/v1/identity", e.alice, `{"session_id":"` + strings.Repeat("x", 5000) + `"}`, tenure.CodeTooLarge, nil},
		{"PUT /v1/environment", "Forbidden", "PUT", "/v1/environment", e.alice, `{"values":{"tz":"UTC"}}`, tenure.CodeForbidden, nil},
		{"POST /v1/workflows", "Forbidden", "POST", "/v1/workflows", e.alice, `{"workflowId":"w2","query":"q","userId":"bob"}`, tenure.CodeForbidden, nil},
		{"POST /v1/workflows", "Conflict", "POST", "/v1/workflows", e.alice, `{"workflowId":"wf","query":"q"}`, tenure.CodeConflict, nil},
		{"POST /v1/workflows", "TooLarge", "POST", "/v1/workflows", e.alice, `{"workflowId":"w3","query":"` + strings.Repeat("x", 5000) + `"}`, tenure.CodeTooLarge, nil},
		{"GET /v1/workflows/{id}", "NotFound", "GET", "/v1/workflows/nothing", e.alice, "", tenure.CodeNotFound, nil},
		{"POST /v1/workflows/{id}/deltas", "Forbidden", "POST", "/v1/workflows/wf/deltas", e.alice, delta(`,"agentId":"mallory"`), tenure.CodeForbidden, nil},
		{"POST /v1/workflows/{id}/deltas", "NotFound", "POST", "/v1/workflows/nothing/deltas", e.alice, delta(""), tenure.CodeNotFound, nil},
		{"POST /v1/workflows/{id}/deltas", "Conflict", "POST", "/v1/workflows/wf/deltas", e.alice, strings.Replace(delta(""), `"round":1`, `"round":7`, 1), tenure.CodeConflict, nil},
		{"POST /v1/workflows/{id}/deltas", "TooLarge", "POST", "/v1/workflows/wf/deltas", e.alice, delta(`,"agentId":"` + strings.Repeat("x", 5000) + `"`), tenure.CodeTooLarge, nil},
		{"POST /v1/workflows/{id}/close", "Forbidden", "POST", "/v1/workflows/wf-admin/close", e.alice, "", tenure.CodeForbidden, nil},
		{"POST /v1/workflows/{id}/close", "NotFound", "POST", "/v1/workflows/nothing/close", e.alice, "", tenure.CodeNotFound, nil},
		{"POST /v1/workflows/{id}/close", "Conflict", "POST", "/v1/workflows/wf/close?round=7", e.alice, "", tenure.CodeConflict, nil},
		{"GET /v1/workflows/{id}/history", "NotFound", "GET", "/v1/workflows/nothing/history?path=$.bindings", e.alice, "", tenure.CodeNotFound, nil},
		{"GET /v1/workflows/{id}/bindings/{term}", "NotFound", "GET", "/v1/workflows/wf/bindings/nothing", e.alice, "", tenure.CodeNotFound, nil},
		{"PUT /v1/environment", "TooLarge", "PUT", "/v1/environment", e.admin, `{"values":{"tz":"` + strings.Repeat("x", 5000) + `"}}`, tenure.CodeTooLarge, nil},
		{"GET /v1/entities", "BadStatus", "GET", "/v1/entities?status=gone", e.alice, "", tenure.CodeInvalid, nil},
		{"GET /v1/entities", "NotFound", "GET", "/v1/entities?user_id=bob", e.alice, "", tenure.CodeNotFound, nil},
		{"GET /v1/entities/{id}", "NotFound", "GET", "/v1/entities/person:makesh", e.bob, "", tenure.CodeNotFound, nil},
		{"POST /v1/entities/resolve", "NotFound", "POST", "/v1/entities/resolve", e.alice, `{"mention":"Sam","user_id":"bob"}`, tenure.CodeNotFound, nil},
		{"POST /v1/entities/merge", "Forbidden", "POST", "/v1/entities/merge", e.alice, `{"from":"org:acme","into":"org:globex"}`, tenure.CodeForbidden, nil},
		{"POST /v1/entities/merge", "NotFound", "POST", "/v1/entities/merge", e.bob, `{"from":"person:makesh","into":"person:ravi"}`, tenure.CodeNotFound, nil},
		{"POST /v1/entities/merge", "Conflict", "POST", "/v1/entities/merge", e.alice, `{"from":"person:sam","into":"person:makesh"}`, tenure.CodeConflict, nil},
		{"POST /v1/entities/split", "Forbidden", "POST", "/v1/entities/split", e.alice, `{"id":"org:acme","aliases":["org:globex"]}`, tenure.CodeForbidden, nil},
		{"POST /v1/entities/split", "NotFound", "POST", "/v1/entities/split", e.alice, `{"id":"person:nobody","aliases":["person:x"]}`, tenure.CodeNotFound, nil},
		{"POST /v1/entities/split", "Conflict", "POST", "/v1/entities/split", e.alice, `{"id":"person:mukesh","aliases":["person:x"]}`, tenure.CodeConflict, nil},
		{"POST /v1/entities/settle", "Forbidden", "POST", "/v1/entities/settle", e.alice, `{"id":"org:acme","keep":true}`, tenure.CodeForbidden, nil},
		{"POST /v1/entities/settle", "NotFound", "POST", "/v1/entities/settle", e.bob, `{"id":"person:mukesh","keep":true}`, tenure.CodeNotFound, nil},
		{"POST /v1/entities/settle", "Conflict", "POST", "/v1/entities/settle", e.alice, `{"id":"person:makesh","keep":true}`, tenure.CodeConflict, nil},
		{"POST /v1/entities/undo", "Forbidden", "POST", "/v1/entities/undo", e.alice, `{"op_id":"` + adminOp.Op.ID + `"}`, tenure.CodeForbidden, nil},
		{"POST /v1/entities/undo", "NotFound", "POST", "/v1/entities/undo", e.bob, `{"op_id":"` + linked.Op.ID + `"}`, tenure.CodeNotFound, nil},
		{"POST /v1/entities/undo", "Conflict", "POST", "/v1/entities/undo", e.alice, `{"op_id":"` + linked.Op.ID + `"}`, tenure.CodeConflict, nil},
	}
	// Every authenticated route refuses a request without a key and one
	// with a query parameter it does not take.
	for _, op := range apiOps {
		if op.public || op.path == "/metrics" {
			continue
		}
		path := strings.NewReplacer("{id}", "x", "{key}", "x", "{term}", "x").Replace(op.path)
		route := op.method + " " + op.path
		tests = append(tests,
			errCase{route, "NoKey", op.method, path, "", "{}", tenure.CodeUnauthenticated, nil},
			errCase{route, "UnknownParameter", op.method, path + "?bogus=1", e.alice, "{}", tenure.CodeInvalid, nil})
	}

	covered := map[string]map[tenure.Code]bool{}
	for _, tc := range tests {
		t.Run(strings.NewReplacer(" ", "_", "/", "_").Replace(tc.route)+"/"+tc.name, func(t *testing.T) {
			down.Store(tc.route == "GET /readyz")
			defer down.Store(false)
			on := e
			if tc.on != nil {
				on = tc.on
			}
			r := on.call(tc.method, tc.path, tc.secret, tc.body)
			if want := tenure.HTTPStatus(tc.want); r.status != want {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, r.status, r.body, want)
			}
			if got := r.errBody(t).Code; got != tc.want {
				t.Errorf("%s %s: code %q, want %q", tc.method, tc.path, got, tc.want)
			}
			if !documentedStatus(t, tc.route, r.status) {
				t.Errorf("openapi.json does not give %s the status %d", tc.route, r.status)
			}
		})
		if covered[tc.route] == nil {
			covered[tc.route] = map[tenure.Code]bool{}
		}
		covered[tc.route][tc.want] = true
	}
	for _, op := range apiOps {
		for code := range op.errs {
			if !covered[op.method+" "+op.path][code] {
				t.Errorf("%s %s documents %s (%d), and no case here makes it happen", op.method, op.path, code, tenure.HTTPStatus(code))
			}
		}
	}
}
