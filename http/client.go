package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/memory"
	"github.com/tenure-dev/tenure/snapshot"
)

// ClientOptions configures a Client. The zero value works.
type ClientOptions struct {
	// HTTPClient sends the requests (default: one with a 2-minute timeout).
	HTTPClient *http.Client
	// UserAgent is sent with every request (default "tenure-go").
	UserAgent string
	// Persona, when set, is sent with every request as the Tenure-Persona
	// header: the persona a key bound to none acts as.
	Persona string
}

// Client calls a Tenure server. It implements the same interfaces as the
// embedded store (tenure.Store, tenure.MessageStore, Store) and the
// compiler (Compiler), so that code written against them runs embedded or
// remote unchanged.
//
// The server runs every call as the principal of the client's API key:
// the Principal arguments of the methods are not sent, and compile
// requests go without their principal.
//
// Errors are the server's *tenure.Error (same code and field), wrapped
// with the operation's name; a server that cannot be reached is
// CodeUnavailable, a deadline CodeTimeout.
type Client struct {
	base    *url.URL
	baseErr error
	key     string
	hc      *http.Client
	ua      string
	persona string
}

var (
	_ tenure.Store        = (*Client)(nil)
	_ tenure.MessageStore = (*Client)(nil)
	_ Store               = (*Client)(nil)
	_ Compiler            = (*Client)(nil)
	_ snapshot.Store      = (*Client)(nil)
)

// NewClient returns a client of the server at baseURL
// ("http://127.0.0.1:8080") authenticating with the API key secret. It
// does no I/O; a bad URL is reported by every call.
func NewClient(baseURL, key string, opt ClientOptions) *Client {
	c := &Client{key: key, hc: opt.HTTPClient, ua: opt.UserAgent, persona: opt.Persona}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: 2 * time.Minute}
	}
	if c.ua == "" {
		c.ua = "tenure-go"
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	switch {
	case err != nil:
		c.baseErr = &tenure.Error{Code: tenure.CodeInvalid, Field: "server", Message: "bad server URL " + strconv.Quote(baseURL), Err: err}
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		c.baseErr = tenure.Errorf(tenure.CodeInvalid, "server", "bad server URL %q: want http(s)://host[:port]", baseURL)
	}
	c.base = u
	return c
}

// Put implements tenure.Writer (POST /v1/objects).
func (c *Client) Put(ctx context.Context, _ tenure.Principal, o tenure.Object) (tenure.WriteResult, error) {
	var res tenure.WriteResult
	err := c.do(ctx, "put object", http.MethodPost, "/v1/objects", nil, o, &res)
	return res, err
}

// PutBatch implements tenure.Writer (POST /v1/objects/batch). Error fields
// are the store's ("[2].layer").
func (c *Client) PutBatch(ctx context.Context, _ tenure.Principal, objs []tenure.Object) ([]tenure.WriteResult, error) {
	if objs == nil {
		objs = []tenure.Object{}
	}
	var res BatchResponse
	if err := c.send(ctx, http.MethodPost, "/v1/objects/batch", nil, BatchRequest{Objects: objs}, &res); err != nil {
		return nil, fmt.Errorf("put batch: %w", trimField("objects", err))
	}
	return res.Results, nil
}

// Get implements tenure.Reader (GET /v1/objects/{id}).
func (c *Client) Get(ctx context.Context, _ tenure.Principal, id string, r tenure.Read) (tenure.Object, error) {
	var o tenure.Object
	err := c.do(ctx, "get object", http.MethodGet, "/v1/objects/"+segment(id), readQuery(r), nil, &o)
	return o, err
}

// CurrentValue implements tenure.Reader (GET /v1/values/{key}).
func (c *Client) CurrentValue(ctx context.Context, _ tenure.Principal, key string, r tenure.Read) (tenure.Object, error) {
	var o tenure.Object
	err := c.do(ctx, "current value", http.MethodGet, "/v1/values/"+segment(key), readQuery(r), nil, &o)
	return o, err
}

// History implements tenure.Reader (GET /v1/history/{key}).
func (c *Client) History(ctx context.Context, _ tenure.Principal, key string, s tenure.Scope) (tenure.History, error) {
	var h tenure.History
	err := c.do(ctx, "history", http.MethodGet, "/v1/history/"+segment(key), scopeQuery(s), nil, &h)
	return h, err
}

// List implements tenure.Reader (GET /v1/objects): the first f.Limit
// (default 100) matching objects from f.Cursor on, following the pages'
// cursors as far as it takes to fill the limit, as the embedded engine's
// List does.
func (c *Client) List(ctx context.Context, p tenure.Principal, f tenure.Filter) ([]tenure.Object, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 100
	}
	out := []tenure.Object{}
	for {
		f.Limit = limit - len(out)
		pg, err := c.listPage(ctx, "list", f)
		if err != nil {
			return nil, err
		}
		out = append(out, pg.Objects...)
		if pg.Next == "" || len(out) >= limit {
			return out, nil
		}
		f.Cursor = pg.Next
	}
}

// ListPage returns one page of a listing (GET /v1/objects): its Next is
// the cursor of the following page, empty on the last one. Errors:
// CodeInvalid.
func (c *Client) ListPage(ctx context.Context, _ tenure.Principal, f tenure.Filter) (tenure.Page, error) {
	return c.listPage(ctx, "list page", f)
}

func (c *Client) listPage(ctx context.Context, op string, f tenure.Filter) (tenure.Page, error) {
	q := scopeQuery(f.Scope)
	set(q, "layer", string(f.Layer))
	set(q, "scope_kind", string(f.ScopeKind))
	set(q, "status", string(f.Status))
	set(q, "object_type", string(f.ObjectType))
	set(q, "key_prefix", f.KeyPrefix)
	set(q, "author", f.Author)
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{"valid_at", f.ValidAt}, {"tx_from", f.TxFrom}, {"tx_until", f.TxUntil}} {
		if t.at != nil {
			q.Set(t.name, t.at.Format(time.RFC3339Nano))
		}
	}
	if f.Newest {
		q.Set("newest", "true")
	}
	set(q, "cursor", f.Cursor)
	if f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	var res ObjectList
	if err := c.do(ctx, op, http.MethodGet, "/v1/objects", q, nil, &res); err != nil {
		return tenure.Page{}, err
	}
	if res.Objects == nil {
		res.Objects = []tenure.Object{}
	}
	return tenure.Page{Objects: res.Objects, Next: res.Next}, nil
}

// Retire implements tenure.Retirer (POST /v1/retire).
func (c *Client) Retire(ctx context.Context, _ tenure.Principal, opt tenure.RetireOptions) (tenure.RetireReport, error) {
	var rep tenure.RetireReport
	err := c.do(ctx, "retire", http.MethodPost, "/v1/retire", nil, opt, &rep)
	return rep, err
}

// EndSession implements tenure.Retirer (POST /v1/sessions/{id}/end).
func (c *Client) EndSession(ctx context.Context, _ tenure.Principal, sessionID string) (int, error) {
	var res EndSessionResult
	err := c.do(ctx, "end session", http.MethodPost, "/v1/sessions/"+segment(sessionID)+"/end", nil, nil, &res)
	return res.Cleared, err
}

// Resolutions implements tenure.Retirer (GET /v1/resolutions).
func (c *Client) Resolutions(ctx context.Context, _ tenure.Principal, open bool) ([]tenure.Resolution, error) {
	var res ResolutionList
	err := c.do(ctx, "resolutions", http.MethodGet, "/v1/resolutions", url.Values{"open": {strconv.FormatBool(open)}}, nil, &res)
	return res.Resolutions, err
}

// AppendMessages implements tenure.MessageStore (POST /v1/messages). Error
// fields are the store's ("[2].role").
func (c *Client) AppendMessages(ctx context.Context, _ tenure.Principal, msgs []tenure.Message) (tenure.AppendResult, error) {
	if msgs == nil {
		msgs = []tenure.Message{}
	}
	var res tenure.AppendResult
	if err := c.send(ctx, http.MethodPost, "/v1/messages", nil, AppendRequest{Messages: msgs}, &res); err != nil {
		return res, fmt.Errorf("append messages: %w", trimField("messages", err))
	}
	return res, nil
}

// Messages implements tenure.MessageStore (GET /v1/messages).
func (c *Client) Messages(ctx context.Context, _ tenure.Principal, f tenure.MessageFilter) ([]tenure.Message, error) {
	q := scopeQuery(f.Scope)
	set(q, "thread_id", f.ThreadID)
	set(q, "after_id", f.AfterID)
	if f.AfterTime != nil {
		q.Set("after_time", f.AfterTime.Format(time.RFC3339Nano))
	}
	if f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	var res MessageList
	err := c.do(ctx, "messages", http.MethodGet, "/v1/messages", q, nil, &res)
	return res.Messages, err
}

// Expand returns a state item and the messages it came from
// (POST /v1/expand).
func (c *Client) Expand(ctx context.Context, _ tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error) {
	var x tenure.Expansion
	err := c.do(ctx, "expand", http.MethodPost, "/v1/expand", nil, r, &x)
	return x, err
}

// Extract brings a thread's structured state and, when summaries is set,
// its narrative summaries up to date on the server (POST /v1/extract), as
// the key's principal, after any digest of the thread already running
// there. When one channel fails and the other runs, the failure is in the
// result (res.Err()) and the error is nil. Errors: CodeInvalid (thread),
// CodeUnavailable (the server does not extract), and the channel's error
// when every channel that ran failed.
func (c *Client) Extract(ctx context.Context, thread string, summaries bool) (engine.DigestResult, error) {
	var res engine.DigestResult
	err := c.do(ctx, "extract", http.MethodPost, "/v1/extract", nil, ExtractRequest{ThreadID: thread, Summaries: &summaries}, &res)
	return res, err
}

// Compile compiles an envelope on the server (POST /v1/compile) as the
// key's principal; req.Principal is not sent. It implements Compiler.
func (c *Client) Compile(ctx context.Context, req compile.Request) (compile.Envelope, compile.Trace, error) {
	res, err := c.CompileFormat(ctx, req, compile.FormatJSON, true)
	if err != nil {
		return compile.Envelope{}, compile.Trace{}, err
	}
	var env compile.Envelope
	if err := json.Unmarshal(res.Envelope, &env); err != nil {
		return env, compile.Trace{}, fmt.Errorf("compile: %w", &tenure.Error{Code: tenure.CodeInternal, Message: "bad envelope from server", Err: err})
	}
	var tr compile.Trace
	if res.Trace != nil {
		tr = *res.Trace
	}
	return env, tr, nil
}

// CompileFormat compiles an envelope on the server rendered in format
// (text, json, openai or anthropic), with the trace when withTrace is set.
func (c *Client) CompileFormat(ctx context.Context, req compile.Request, format string, withTrace bool) (CompileResponse, error) {
	req.Principal = tenure.Principal{}
	q := url.Values{"format": {format}}
	if withTrace {
		q.Set("trace", "true")
	}
	var res CompileResponse
	err := c.do(ctx, "compile", http.MethodPost, "/v1/compile", q, req, &res)
	return res, err
}

// Trace returns a recent compilation's trace (GET /v1/traces/{id}).
// Errors: CodeNotFound (unknown, expired, or not the caller's).
func (c *Client) Trace(ctx context.Context, id string) (compile.Trace, error) {
	var tr compile.Trace
	err := c.do(ctx, "trace", http.MethodGet, "/v1/traces/"+segment(id), nil, nil, &tr)
	return tr, err
}

// StartWorkflow implements snapshot.Store (POST /v1/workflows).
func (c *Client) StartWorkflow(ctx context.Context, _ tenure.Principal, w snapshot.Workflow) (snapshot.Snapshot, error) {
	var snap snapshot.Snapshot
	err := c.do(ctx, "start workflow", http.MethodPost, "/v1/workflows", nil, w, &snap)
	return snap, err
}

// SubmitDeltas implements snapshot.Store (POST /v1/workflows/{id}/deltas):
// the deltas' agent is the key's principal. Error fields are the store's
// ("[2].weight").
func (c *Client) SubmitDeltas(ctx context.Context, _ tenure.Principal, workflowID string, ds []snapshot.Delta) (snapshot.SubmitResult, error) {
	if ds == nil {
		ds = []snapshot.Delta{}
	}
	var res snapshot.SubmitResult
	if err := c.send(ctx, http.MethodPost, "/v1/workflows/"+segment(workflowID)+"/deltas", nil, SubmitRequest{Deltas: ds}, &res); err != nil {
		return res, fmt.Errorf("submit deltas: %w", trimField("deltas", err))
	}
	return res, nil
}

// CloseRound implements snapshot.Store (POST /v1/workflows/{id}/close).
func (c *Client) CloseRound(ctx context.Context, _ tenure.Principal, workflowID string, round int) (snapshot.Snapshot, error) {
	var snap snapshot.Snapshot
	q := url.Values{}
	if round != 0 {
		q.Set("round", strconv.Itoa(round))
	}
	err := c.do(ctx, "close round", http.MethodPost, "/v1/workflows/"+segment(workflowID)+"/close", q, nil, &snap)
	return snap, err
}

// Snapshot implements snapshot.Store (GET /v1/workflows/{id}).
func (c *Client) Snapshot(ctx context.Context, _ tenure.Principal, workflowID string, r snapshot.Read) (snapshot.Snapshot, error) {
	q := url.Values{}
	if r.Round != nil {
		q.Set("round", strconv.Itoa(*r.Round))
	}
	if r.AsOf != nil {
		q.Set("as_of", r.AsOf.Format(time.RFC3339Nano))
	}
	if r.OmitDeltas {
		q.Set("deltas", "false")
	}
	var snap snapshot.Snapshot
	err := c.do(ctx, "snapshot", http.MethodGet, "/v1/workflows/"+segment(workflowID), q, nil, &snap)
	return snap, err
}

// Binding implements snapshot.Store (GET /v1/workflows/{id}/bindings/{term}).
func (c *Client) Binding(ctx context.Context, _ tenure.Principal, workflowID, term string) (snapshot.Binding, error) {
	var b snapshot.Binding
	err := c.do(ctx, "binding", http.MethodGet, "/v1/workflows/"+segment(workflowID)+"/bindings/"+segment(term), nil, nil, &b)
	return b, err
}

// PathHistory implements snapshot.Store (GET /v1/workflows/{id}/history).
func (c *Client) PathHistory(ctx context.Context, _ tenure.Principal, workflowID, path string) (snapshot.PathHistory, error) {
	var h snapshot.PathHistory
	err := c.do(ctx, "path history", http.MethodGet, "/v1/workflows/"+segment(workflowID)+"/history", url.Values{"path": {path}}, nil, &h)
	return h, err
}

// SetIdentity writes the caller's identity for a session
// (PUT /v1/identity). Errors: CodeConflict (a different identity is
// already set).
func (c *Client) SetIdentity(ctx context.Context, r IdentityRequest) (tenure.WriteResult, error) {
	var res tenure.WriteResult
	err := c.do(ctx, "set identity", http.MethodPut, "/v1/identity", nil, r, &res)
	return res, err
}

// SetEnvironment writes environment values (PUT /v1/environment). Errors:
// CodeForbidden (the key lacks environment:write).
func (c *Client) SetEnvironment(ctx context.Context, r EnvironmentRequest) ([]tenure.WriteResult, error) {
	var res BatchResponse
	err := c.do(ctx, "set environment", http.MethodPut, "/v1/environment", nil, r, &res)
	return res.Results, err
}

// Whoami returns the client's API key and the principal it runs as
// (GET /v1/whoami).
func (c *Client) Whoami(ctx context.Context) (tenure.APIKey, error) {
	var k tenure.APIKey
	err := c.do(ctx, "whoami", http.MethodGet, "/v1/whoami", nil, nil, &k)
	return k, err
}

// Ready reports whether the server is ready to serve (GET /readyz).
func (c *Client) Ready(ctx context.Context) error {
	var h Health
	return c.do(ctx, "ready", http.MethodGet, "/readyz", nil, nil, &h)
}

// do sends one call and decodes its answer into out, or its error body
// into a *tenure.Error wrapped with op.
func (c *Client) do(ctx context.Context, op, method, path string, q url.Values, in, out any) error {
	if err := c.send(ctx, method, path, q, in, out); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

func (c *Client) send(ctx context.Context, method, path string, q url.Values, in, out any) error {
	if c.baseErr != nil {
		return c.baseErr
	}
	u := *c.base
	u.Path, u.RawPath = c.base.Path+unescapeSegments(path), c.base.EscapedPath()+path
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	if in != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(in); err != nil {
			return &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot encode request", Err: err}
		}
		body = &buf
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return &tenure.Error{Code: tenure.CodeInvalid, Message: "cannot build request", Err: err}
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.ua)
	if c.persona != "" {
		req.Header.Set(PersonaHeader, c.persona)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return transportError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		return responseError(resp, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &tenure.Error{Code: tenure.CodeInternal, Message: "cannot decode the server's answer", Err: err}
	}
	return nil
}

// transportError classifies a failure to talk to the server.
func transportError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "deadline exceeded", Err: err}
	case ctx.Err() != nil:
		return &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "the server did not answer in time", Err: err}
	}
	return &tenure.Error{Code: tenure.CodeUnavailable, Message: "cannot reach the server", Err: err}
}

// responseError decodes an error answer. A body that is not an ErrorBody
// (a proxy's page) gets the code of its status.
func responseError(resp *http.Response, data []byte) error {
	var body ErrorBody
	if json.Unmarshal(data, &body) == nil && body.Code != "" {
		return &tenure.Error{Code: body.Code, Message: body.Message, Field: body.Field}
	}
	code := tenure.CodeInternal
	for _, c := range codes {
		if tenure.HTTPStatus(c) == resp.StatusCode {
			code = c
			break
		}
	}
	text := strings.TrimSpace(string(data))
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return tenure.Errorf(code, "", "server answered %s: %s", resp.Status, text)
}

// codes lists the error codes for mapping a bare HTTP status back.
var codes = []tenure.Code{tenure.CodeInvalid, tenure.CodeNotFound, tenure.CodeForbidden, tenure.CodeConflict,
	tenure.CodeUnauthenticated, tenure.CodeTooLarge, tenure.CodeUnavailable, tenure.CodeTimeout, tenure.CodeInternal}

// trimField turns the API's field path under a batch body ("objects[2].layer")
// back into the store's ("[2].layer").
func trimField(prefix string, err error) error {
	var te *tenure.Error
	if err == nil || !errors.As(err, &te) || !strings.HasPrefix(te.Field, prefix+"[") {
		return err
	}
	te.Field = strings.TrimPrefix(te.Field, prefix)
	return err
}

// segment escapes one path segment; "." and ".." are escaped too, so that
// no key or id is taken for a relative path.
func segment(s string) string {
	e := url.PathEscape(s)
	if e == "." || e == ".." {
		e = strings.ReplaceAll(e, ".", "%2E")
	}
	return e
}

// unescapeSegments returns the decoded form of an escaped path.
func unescapeSegments(p string) string {
	u, err := url.PathUnescape(p)
	if err != nil {
		return p
	}
	return u
}

func set(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func scopeQuery(s tenure.Scope) url.Values {
	q := url.Values{}
	set(q, "project_id", s.ProjectID)
	set(q, "user_id", s.UserID)
	set(q, "session_id", s.SessionID)
	set(q, "task_id", s.TaskID)
	set(q, "scope_id", s.ScopeID)
	return q
}

func readQuery(r tenure.Read) url.Values {
	q := scopeQuery(r.Scope)
	if r.AsOfTx != nil {
		q.Set("as_of_tx", r.AsOfTx.Format(time.RFC3339Nano))
	}
	if r.AsOfValid != nil {
		q.Set("as_of_valid", r.AsOfValid.Format(time.RFC3339Nano))
	}
	return q
}

// Entities implements entity.Registry (GET /v1/entities).
func (c *Client) Entities(ctx context.Context, _ tenure.Principal, eq entity.Query) ([]entity.Entity, error) {
	q := url.Values{}
	for k, v := range map[string]string{"user_id": eq.UserID, "status": string(eq.Status), "type": string(eq.Type)} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if eq.Limit != 0 {
		q.Set("limit", strconv.Itoa(eq.Limit))
	}
	var out EntityList
	err := c.do(ctx, "list entities", http.MethodGet, "/v1/entities", q, nil, &out)
	return out.Entities, err
}

// Entity implements entity.Registry (GET /v1/entities/{id}).
func (c *Client) Entity(ctx context.Context, _ tenure.Principal, id, user string) (entity.View, error) {
	q := url.Values{}
	if user != "" {
		q.Set("user_id", user)
	}
	var v entity.View
	if id == "" {
		return v, fmt.Errorf("show entity: %w", tenure.Errorf(tenure.CodeInvalid, "id", "required"))
	}
	err := c.do(ctx, "show entity", http.MethodGet, "/v1/entities/"+segment(id), q, nil, &v)
	return v, err
}

// ResolveMention implements entity.Registry (POST /v1/entities/resolve).
func (c *Client) ResolveMention(ctx context.Context, _ tenure.Principal, mention, user string) (entity.Decision, error) {
	var d entity.Decision
	err := c.do(ctx, "resolve mention", http.MethodPost, "/v1/entities/resolve", nil, ResolveRequest{Mention: mention, UserID: user}, &d)
	return d, err
}

// MergeEntities implements entity.Registry (POST /v1/entities/merge).
func (c *Client) MergeEntities(ctx context.Context, _ tenure.Principal, r entity.MergeRequest) (entity.Change, error) {
	var ch entity.Change
	err := c.do(ctx, "merge entities", http.MethodPost, "/v1/entities/merge", nil, r, &ch)
	return ch, err
}

// SplitEntity implements entity.Registry (POST /v1/entities/split).
func (c *Client) SplitEntity(ctx context.Context, _ tenure.Principal, r entity.SplitRequest) (entity.Change, error) {
	var ch entity.Change
	err := c.do(ctx, "split entity", http.MethodPost, "/v1/entities/split", nil, r, &ch)
	return ch, err
}

// SettleEntity implements entity.Registry (POST /v1/entities/settle).
func (c *Client) SettleEntity(ctx context.Context, _ tenure.Principal, r entity.SettleRequest) (entity.Change, error) {
	var ch entity.Change
	err := c.do(ctx, "settle entity", http.MethodPost, "/v1/entities/settle", nil, r, &ch)
	return ch, err
}

// UndoEntityOp implements entity.Registry (POST /v1/entities/undo).
func (c *Client) UndoEntityOp(ctx context.Context, _ tenure.Principal, opID string) (entity.Change, error) {
	var ch entity.Change
	err := c.do(ctx, "undo entity operation", http.MethodPost, "/v1/entities/undo", nil, UndoRequest{OpID: opID}, &ch)
	return ch, err
}

// Memories lists memories (GET /v1/memories); see memory.List.
func (c *Client) Memories(ctx context.Context, q memory.Query) ([]tenure.Object, error) {
	v := scopeQuery(q.Scope)
	set(v, "type", string(q.Kind))
	set(v, "entity", q.Entity)
	if q.Archived {
		v.Set("archived", "true")
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var res MemoryList
	err := c.do(ctx, "list memories", http.MethodGet, "/v1/memories", v, nil, &res)
	return res.Memories, err
}

// SetPinned pins or unpins a memory (POST /v1/memories/{id}/pin or
// /unpin); see memory.SetPinned.
func (c *Client) SetPinned(ctx context.Context, id string, pinned bool) (tenure.WriteResult, error) {
	action := "/unpin"
	if pinned {
		action = "/pin"
	}
	var res tenure.WriteResult
	err := c.do(ctx, "pin memory", http.MethodPost, "/v1/memories/"+url.PathEscape(id)+action, nil, nil, &res)
	return res, err
}

// Curate runs the curator on the server as the key's principal and, unless
// it is a dry run, has the server record the run in the session state
// (POST /v1/curate); see memory.CurateAndRecord.
func (c *Client) Curate(ctx context.Context, _ tenure.Principal, opt memory.CurateOptions) (memory.CurateReport, error) {
	var rep memory.CurateReport
	err := c.do(ctx, "curate", http.MethodPost, "/v1/curate", nil,
		CurateRequest{Scope: opt.Scope, Similarity: opt.Similarity, DryRun: opt.DryRun}, &rep)
	return rep, err
}

// SetImportance sets a memory's importance (PUT
// /v1/memories/{id}/importance); see memory.SetImportance.
func (c *Client) SetImportance(ctx context.Context, id string, n int) (tenure.WriteResult, error) {
	var res tenure.WriteResult
	err := c.do(ctx, "set importance", http.MethodPut, "/v1/memories/"+url.PathEscape(id)+"/importance", nil, ImportanceRequest{Importance: &n}, &res)
	return res, err
}
