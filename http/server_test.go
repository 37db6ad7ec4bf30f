package http_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/sqlite"
)

func TestAuth(t *testing.T) {
	e := newEnv(t)
	revoked := e.key(tenure.Principal{TenantID: "acme", UserID: "eve"})
	keys, err := e.store.Keys(e.ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Principal.UserID == "eve" {
			if _, err := e.store.RevokeKey(e.ctx, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name, header, want string
	}{
		{"ErrMissing", "", "missing API key"},
		{"ErrScheme", "Basic dXNlcjpwYXNz", "want the Bearer scheme"},
		{"ErrMalformed", "Bearer not-a-key", "malformed API key"},
		{"ErrUnknown", "Bearer " + tenure.NewAPIKeySecret(), "invalid API key"},
		{"ErrRevoked", "Bearer " + revoked, "revoked API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, route := range []struct{ method, path, body string }{
				{"GET", "/v1/objects", ""}, {"POST", "/v1/objects", `{"key":"a","value":1}`}, {"POST", "/v1/compile", `{"budget":100}`},
			} {
				r := e.call(route.method, route.path, "", route.body, "Authorization", tc.header)
				b := r.errBody(t)
				if r.status != 401 || b.Code != tenure.CodeUnauthenticated || !strings.Contains(b.Message, tc.want) {
					t.Errorf("%s %s: %d %+v, want 401 unauthenticated %q", route.method, route.path, r.status, b, tc.want)
				}
				if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s %s: no WWW-Authenticate challenge", route.method, route.path)
				}
			}
		})
	}
	if n := e.count(); n != 0 {
		t.Errorf("unauthenticated writes stored %d versions", n)
	}
	t.Run("OK", func(t *testing.T) {
		k, err := e.client(e.alice).Whoami(e.ctx)
		if err != nil || k.Principal.UserID != "alice" || k.Principal.TenantID != "acme" {
			t.Errorf("whoami = %+v, %v", k, err)
		}
		for _, path := range []string{"/healthz", "/readyz", "/v1/openapi.json"} {
			if r := e.call("GET", path, "", ""); r.status != 200 {
				t.Errorf("GET %s without a key: %d, want 200 (public)", path, r.status)
			}
		}
	})
}

// TestTenantIsolation checks that a key's tenant bounds everything it does:
// another tenant's objects, and objects the principal may not read, look
// missing, and writes cannot land in another tenant.
func TestTenantIsolation(t *testing.T) {
	e := newEnv(t)
	alice, bob, admin := e.client(e.alice), e.client(e.bob), e.client(e.admin)
	w, err := alice.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "order.status", Value: []byte(`"approved"`)})
	if err != nil {
		t.Fatal(err)
	}
	id := w.Object.ObjectID
	secret, err := admin.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "merger.plan", Content: "acquire globex",
		SecurityClassification: tenure.Confidential})
	if err != nil {
		t.Fatal(err)
	}
	missing := func(path, id string) string {
		r := e.call("GET", strings.ReplaceAll(path, "ID", "no-such-object"), e.bob, "")
		return strings.ReplaceAll(r.body, "no-such-object", id)
	}
	for _, tc := range []struct {
		name, path, secret, id string
	}{
		{"OtherTenantByID", "/v1/objects/ID", e.bob, id},
		{"OtherTenantByKey", "/v1/values/ID", e.bob, "order.status"},
		{"OtherTenantHistory", "/v1/history/ID", e.bob, "order.status"},
		{"AboveClearanceByID", "/v1/objects/ID", e.alice, secret.Object.ObjectID},
		{"AboveClearanceByKey", "/v1/values/ID", e.alice, "merger.plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("GET", strings.ReplaceAll(tc.path, "ID", tc.id), tc.secret, "")
			if r.status != 404 {
				t.Fatalf("status %d, want 404: %s", r.status, r.body)
			}
			if want := missing(tc.path, tc.id); r.body != want {
				t.Errorf("answer differs from a missing object's:\n got %s\nwant %s", r.body, want)
			}
		})
	}
	t.Run("OtherTenantList", func(t *testing.T) {
		objs, err := bob.List(e.ctx, tenure.Principal{}, tenure.Filter{})
		if err != nil || len(objs) != 0 {
			t.Errorf("bob lists %d objects, %v; want none", len(objs), err)
		}
	})
	t.Run("ErrWriteOtherTenant", func(t *testing.T) {
		_, err := bob.Put(e.ctx, tenure.Principal{TenantID: "acme"}, tenure.Object{Key: "order.status", Value: []byte(`"cancelled"`), TenantID: "acme"})
		wantError(t, err, tenure.CodeForbidden, "tenant_id")
		_, err = bob.AppendMessages(e.ctx, tenure.Principal{}, []tenure.Message{{TenantID: "acme", ThreadID: "t", ID: "m1", Role: "user",
			Content: "hi", CreatedAt: time.Now()}})
		wantError(t, err, tenure.CodeForbidden, "[0].tenant_id")
		_, _, err = bob.Compile(e.ctx, compile.Request{Principal: aliceP, Budget: 500, Query: "order"})
		if err != nil {
			t.Fatalf("compile with a principal the client drops: %v", err)
		}
		r := e.call("POST", "/v1/compile", e.bob, `{"principal":{"tenant_id":"acme","user_id":"alice"},"budget":500}`)
		if b := r.errBody(t); r.status != 400 || b.Field != "principal" {
			t.Errorf("compile naming a principal: %d %+v, want 400 on principal", r.status, b)
		}
		o, err := alice.CurrentValue(e.ctx, tenure.Principal{}, "order.status", tenure.Read{})
		if err != nil || string(o.Value) != `"approved"` {
			t.Errorf("acme's value after bob's attempts: %s, %v", o.Value, err)
		}
	})
	t.Run("SameIDOtherTenant", func(t *testing.T) {
		// Another tenant's id is unknown, exactly like an id never used.
		_, err := bob.Put(e.ctx, tenure.Principal{}, tenure.Object{ObjectID: id, Key: "order.status", Value: []byte(`"mine"`)})
		wantError(t, err, tenure.CodeNotFound, "object_id")
		o, err := alice.Get(e.ctx, tenure.Principal{}, id, tenure.Read{})
		if err != nil || string(o.Value) != `"approved"` || o.Version != 1 {
			t.Errorf("acme's object after bob wrote the same id: %s v%d, %v", o.Value, o.Version, err)
		}
	})
	t.Run("OtherTenantTrace", func(t *testing.T) {
		_, tr, err := alice.Compile(e.ctx, compile.Request{Budget: 500, Query: "order status"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alice.Trace(e.ctx, tr.TraceID); err != nil {
			t.Errorf("alice reads her trace: %v", err)
		}
		_, err = admin.Trace(e.ctx, tr.TraceID)
		wantError(t, err, tenure.CodeNotFound, "id") // the top rank alone reads no one else's
		_, err = bob.Trace(e.ctx, tr.TraceID)
		wantError(t, err, tenure.CodeNotFound, "id")
		carol := e.client(e.key(tenure.Principal{TenantID: "acme", UserID: "carol"}))
		_, err = carol.Trace(e.ctx, tr.TraceID)
		wantError(t, err, tenure.CodeNotFound, "id")
	})
}

// TestBadInput checks that malformed, unknown, mistyped and oversize input
// is refused with a 4xx naming the field, and that nothing is written.
func TestBadInput(t *testing.T) {
	e := newEnv(t, func(o *tenurehttp.ServerOptions) { o.MaxBodyBytes = 4 << 10 })
	const obj = `{"key":"a","value":1}`
	big := `{"key":"a","content":"` + strings.Repeat("x", 5<<10) + `"}`
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     tenure.Code
		field, text              string
	}{
		{"ErrMalformed", "POST", "/v1/objects", "{\"key\":\"a\",\n\"value\":1,}", 400, tenure.CodeInvalid, "", "line 2, column 11: malformed JSON"},
		{"ErrTruncated", "POST", "/v1/objects", `{"key":"a",`, 400, tenure.CodeInvalid, "", "unexpected end of input"},
		{"ErrEmpty", "POST", "/v1/objects", ``, 400, tenure.CodeInvalid, "", "no input"},
		{"ErrNotAnObject", "POST", "/v1/objects", `[` + obj + `]`, 400, tenure.CodeInvalid, "", "want a JSON object, got an array"},
		{"ErrTrailing", "POST", "/v1/objects", obj + obj, 400, tenure.CodeInvalid, "", "unexpected data after the JSON value"},
		{"ErrUnknownField", "POST", "/v1/objects", `{"key":"a","colour":"red"}`, 400, tenure.CodeInvalid, "colour", "unknown field"},
		{"ErrWrongCase", "POST", "/v1/objects", `{"KEY":"a"}`, 400, tenure.CodeInvalid, "KEY", `did you mean "key"`},
		{"ErrRepeated", "POST", "/v1/objects", `{"key":"a","key":"b"}`, 400, tenure.CodeInvalid, "key", "given more than once"},
		{"ErrWrongType", "POST", "/v1/objects", `{"key":"a","confidence_score":"high"}`, 400, tenure.CodeInvalid, "confidence_score", "want a number, got a string"},
		{"ErrNestedType", "POST", "/v1/objects", `{"key":"a","decay_rule":{"half_life_days":"x"}}`, 400, tenure.CodeInvalid, "decay_rule.half_life_days", "want a number"},
		{"ErrBadTime", "POST", "/v1/objects", `{"key":"a","valid_from":"yesterday"}`, 400, tenure.CodeInvalid, "valid_from", "RFC 3339"},
		{"ErrBadLayer", "POST", "/v1/objects", `{"key":"a","value":1,"layer":"attic"}`, 400, tenure.CodeInvalid, "layer", `unknown value "attic"`},
		{"ErrStoreSetField", "POST", "/v1/objects", `{"key":"a","status":"archived"}`, 400, tenure.CodeInvalid, "status", "set by the store"},
		{"ErrBatchType", "POST", "/v1/objects/batch", `{"objects":[` + obj + `,{"key":"b","aliases":"x"}]}`, 400, tenure.CodeInvalid, "objects[1].aliases", "want an array, got a string"},
		{"ErrBatchUnknown", "POST", "/v1/objects/batch", `{"objects":[` + obj + `,{"key":"b","colour":1}]}`, 400, tenure.CodeInvalid, "objects[1].colour", "unknown field"},
		{"ErrBatchStore", "POST", "/v1/objects/batch", `{"objects":[` + obj + `,{"key":"b","value":1,"layer":"attic"}]}`, 400, tenure.CodeInvalid, "objects[1].layer", "unknown value"},
		{"ErrBatchMissing", "POST", "/v1/objects/batch", `{}`, 400, tenure.CodeInvalid, "objects", "required"},
		{"ErrBatchBare", "POST", "/v1/objects/batch", `[` + obj + `]`, 400, tenure.CodeInvalid, "", "want a JSON object"},
		{"ErrOversize", "POST", "/v1/objects", big, 413, tenure.CodeTooLarge, "", "larger than"},
		{"ErrOversizeBatch", "POST", "/v1/objects/batch", `{"objects":[` + big + `]}`, 413, tenure.CodeTooLarge, "", "larger than"},
		{"ErrContentType", "POST", "/v1/objects", obj, 400, tenure.CodeInvalid, "Content-Type", "want application/json"},
		{"ErrMessageType", "POST", "/v1/messages", `{"messages":[{"thread_id":"t","id":"m","role":"user","content":"x","created_at":5}]}`, 400, tenure.CodeInvalid, "messages[0].created_at", "RFC 3339"},
		{"ErrMessageRole", "POST", "/v1/messages", `{"messages":[{"thread_id":"t","id":"m","role":"robot","content":"x","created_at":"2025-01-01T00:00:00Z"}]}`, 400, tenure.CodeInvalid, "messages[0].role", "unknown value"},
		{"ErrCompileBudgetType", "POST", "/v1/compile", `{"budget":"lots"}`, 400, tenure.CodeInvalid, "budget", "want an integer"},
		{"ErrCompileTailType", "POST", "/v1/compile", `{"budget":100,"tail":[{"id":"a","role":"user","content":"x"},{"id":2}]}`, 400, tenure.CodeInvalid, "tail[1].id", "want a string"},
		{"ErrCompileFormat", "POST", "/v1/compile?format=yaml", `{"budget":100}`, 400, tenure.CodeInvalid, "format", `unknown value "yaml"`},
		{"ErrCompileBudget", "POST", "/v1/compile", `{"budget":0}`, 400, tenure.CodeInvalid, "budget", "must be between"},
		{"ErrUnknownParam", "GET", "/v1/objects?colour=red", "", 400, tenure.CodeInvalid, "colour", "unknown query parameter"},
		{"ErrParamType", "GET", "/v1/objects?limit=many", "", 400, tenure.CodeInvalid, "limit", "want an integer"},
		{"ErrParamRepeated", "GET", "/v1/objects?layer=task&layer=user", "", 400, tenure.CodeInvalid, "layer", "given more than once"},
		{"ErrParamVocab", "GET", "/v1/objects?status=gone", "", 400, tenure.CodeInvalid, "status", `unknown value "gone"`},
		{"ErrParamTime", "GET", "/v1/values/a?as_of_tx=yesterday", "", 400, tenure.CodeInvalid, "as_of_tx", "RFC 3339"},
		{"ErrParamOnWrite", "POST", "/v1/objects?dry_run=true", obj, 400, tenure.CodeInvalid, "dry_run", "unknown query parameter"},
		{"ErrIdentityNoSession", "PUT", "/v1/identity", `{"user_name":"Alice"}`, 400, tenure.CodeInvalid, "session_id", "required"},
		{"ErrIdentityAuthority", "PUT", "/v1/identity", `{"session_id":"s","authority":"policy"}`, 400, tenure.CodeInvalid, "authority", "unknown field"},
		{"ErrEnvironmentEmpty", "PUT", "/v1/environment", `{"values":{}}`, 400, tenure.CodeInvalid, "values", "required"},
		{"ErrRetireType", "POST", "/v1/retire", `{"dry_run":"yes"}`, 400, tenure.CodeInvalid, "dry_run", "want true or false"},
		{"ErrExpandNoUID", "POST", "/v1/expand", `{}`, 400, tenure.CodeInvalid, "uid", "required"},
		{"ErrNoRoute", "GET", "/v1/nothing", "", 404, tenure.CodeNotFound, "", "no route"},
		{"ErrWrongMethod", "DELETE", "/v1/objects", "", 405, tenure.CodeMethodNotAllowed, "", "allowed methods: GET, POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r reply
			if tc.name == "ErrContentType" {
				r = e.call(tc.method, tc.path, e.admin, tc.body, "Content-Type", "text/plain")
			} else {
				r = e.call(tc.method, tc.path, e.admin, tc.body)
			}
			b := r.errBody(t)
			if r.status != tc.status || b.Code != tc.code || b.Field != tc.field || !strings.Contains(b.Message, tc.text) {
				t.Errorf("got %d %+v\nwant %d %s field %q message containing %q", r.status, b, tc.status, tc.code, tc.field, tc.text)
			}
		})
	}
	if n := e.count(); n != 0 {
		t.Errorf("bad input stored %d object versions, want none", n)
	}
	if msgs, err := e.store.Messages(e.ctx, adminP, tenure.MessageFilter{ThreadID: "t"}); err != nil || len(msgs) != 0 {
		t.Errorf("bad input stored %d messages (%v), want none", len(msgs), err)
	}
}

// TestConcurrentWriters has goroutines write versions of one key while
// others read it: no version is lost and exactly one is current.
func TestConcurrentWriters(t *testing.T) {
	e := newEnv(t)
	c := e.client(e.alice)
	const writers, each, readers = 8, 10, 4
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, writers*each+readers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "counter", Value: []byte(fmt.Sprintf(`"w%d-%d"`, w, i))}); err != nil {
					errs <- err
				}
			}
		}()
	}
	var rwg sync.WaitGroup
	for range readers {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := c.CurrentValue(e.ctx, tenure.Principal{}, "counter", tenure.Read{}); err != nil && tenure.ErrorCode(err) != tenure.CodeNotFound {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent call: %v", err)
	}
	h, err := c.History(e.ctx, tenure.Principal{}, "counter", tenure.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]bool{}
	current := 0
	for _, o := range h.Versions {
		values[string(o.Value)] = true
		if o.Current() && o.Status == tenure.StatusActive {
			current++
		}
	}
	if len(values) != writers*each {
		t.Errorf("history holds %d distinct values, want %d", len(values), writers*each)
	}
	if current != 1 {
		t.Errorf("%d current active versions, want exactly 1", current)
	}
	active, err := c.List(e.ctx, tenure.Principal{}, tenure.Filter{KeyPrefix: "counter", Status: tenure.StatusActive})
	if err != nil || len(active) != 1 {
		t.Errorf("List active = %d objects, %v; want 1", len(active), err)
	}
	if o, err := c.CurrentValue(e.ctx, tenure.Principal{}, "counter", tenure.Read{}); err != nil || string(o.Value) != string(active[0].Value) {
		t.Errorf("current value %s, %v; want the one active version %s", o.Value, err, active[0].Value)
	}
}

func TestRequestID(t *testing.T) {
	e := newEnv(t)
	if r := e.call("GET", "/healthz", "", "", "X-Request-Id", "abc-123"); r.header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("given request id not echoed: %q", r.header.Get("X-Request-Id"))
	}
	for _, given := range []string{"", "bad id with spaces", strings.Repeat("x", 200)} {
		r := e.call("GET", "/v1/objects", "", "", "X-Request-Id", given)
		if id := r.header.Get("X-Request-Id"); id == "" || id == given {
			t.Errorf("request id for %q: %q, want a generated one", given, id)
		}
	}
}

func TestNoRouteAllow(t *testing.T) {
	e := newEnv(t)
	r := e.call("PUT", "/v1/objects/x", e.alice, "")
	if r.status != 405 || r.header.Get("Allow") != "GET" || r.errBody(t).Code != tenure.CodeMethodNotAllowed {
		t.Errorf("PUT /v1/objects/x: %d Allow %q %s, want 405 method_not_allowed with Allow: GET", r.status, r.header.Get("Allow"), r.body)
	}
	if r := e.call("GET", "/v1/nowhere", e.alice, ""); r.status != 404 || r.header.Get("Allow") != "" {
		t.Errorf("GET /v1/nowhere: %d Allow %q, want 404 without Allow", r.status, r.header.Get("Allow"))
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t)
	c := e.client(e.alice)
	if _, err := c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "a", Value: []byte(`1`)}); err != nil {
		t.Fatal(err)
	}
	c.Get(e.ctx, tenure.Principal{}, "missing", tenure.Read{})
	if _, _, err := c.Compile(e.ctx, compile.Request{Budget: 300, Query: "a"}); err != nil {
		t.Fatal(err)
	}
	e.call("GET", "/v1/objects", "", "")
	r := e.call("GET", "/metrics", e.monitor, "")
	for _, want := range []string{
		`tenure_http_requests_total{code="200",route="POST /v1/objects"} 1`,
		`tenure_http_requests_total{code="404",route="GET /v1/objects/{id}"} 1`,
		`tenure_http_requests_total{code="401",route="GET /v1/objects"} 1`,
		`tenure_store_operations_total{code="not_found",op="get"} 1`,
		`tenure_store_operations_total{code="ok",op="put"} 1`,
		`tenure_store_operations_total{code="ok",op="compile"} 1`,
		`tenure_compile_duration_seconds_count 1`,
		`tenure_envelope_tokens_count 1`,
		`tenure_traces_cached 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestOmittedMetric(t *testing.T) {
	e := newEnv(t)
	c := e.client(e.admin)
	c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "plan", Value: []byte(`"a"`)})
	c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "plan", Value: []byte(`"b"`), Supersedes: "plan"})
	_, tr, err := c.Compile(e.ctx, compile.Request{Budget: 500, Query: "plan", AsOf: nil})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[compile.OmitReason]int{}
	for _, o := range tr.Omitted {
		reasons[o.Reason]++
	}
	body := e.call("GET", "/metrics", e.monitor, "").body
	for reason, n := range reasons {
		if want := fmt.Sprintf(`tenure_compile_omitted_objects_total{reason=%q} %d`, reason, n); !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestTraceRetention(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := newEnv(t, func(o *tenurehttp.ServerOptions) { o.Now = clock; o.TraceTTL = time.Hour; o.MaxTraces = 2 })
	c := e.client(e.alice)
	compileOne := func() string {
		t.Helper()
		_, tr, err := c.Compile(e.ctx, compile.Request{Budget: 200, Query: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return tr.TraceID
	}
	first, second := compileOne(), compileOne()
	if tr, err := c.Trace(e.ctx, first); err != nil || tr.TraceID != first {
		t.Fatalf("trace %s: %v", first, err)
	}
	third := compileOne()
	_, err := c.Trace(e.ctx, first)
	wantError(t, err, tenure.CodeNotFound, "id")
	if _, err := c.Trace(e.ctx, third); err != nil {
		t.Errorf("newest trace: %v", err)
	}
	mu.Lock()
	now = now.Add(61 * time.Minute)
	mu.Unlock()
	for _, id := range []string{second, third} {
		_, err := c.Trace(e.ctx, id)
		wantError(t, err, tenure.CodeNotFound, "id")
	}
}

func TestMounts(t *testing.T) {
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := tenure.PrincipalFromContext(r.Context())
		fmt.Fprintf(w, "%s %s %v %s", r.URL.Path, p.TenantID, ok, p.UserID)
	})
	e := newEnv(t, func(o *tenurehttp.ServerOptions) { o.Mounts = map[string]http.Handler{"/mcp": mcp} })
	if r := e.call("POST", "/mcp", "", `{}`); r.status != 401 {
		t.Errorf("mount without a key: %d, want 401", r.status)
	}
	for _, path := range []string{"/mcp", "/mcp/sse"} {
		if r := e.call("POST", path, e.bob, `{}`); r.status != 200 || r.body != path+" globex true bob" {
			t.Errorf("POST %s: %d %q", path, r.status, r.body)
		}
	}
	for _, route := range e.srv.Routes() {
		if strings.Contains(route, "/mcp") {
			t.Errorf("mount listed among the API routes: %s", route)
		}
	}
}

// blockingStore holds Put until release is closed, to keep a write in
// flight.
type blockingStore struct {
	*sqlite.Store
	entered chan struct{}
	release chan struct{}
}

func (s *blockingStore) Put(ctx context.Context, p tenure.Principal, o tenure.Object) (tenure.WriteResult, error) {
	close(s.entered)
	<-s.release
	return s.Store.Put(ctx, p, o)
}

// TestGracefulShutdown checks that a write in flight when the server is
// told to stop finishes and is stored, and that readiness turns off.
func TestGracefulShutdown(t *testing.T) {
	base := newEnv(t)
	bs := &blockingStore{Store: base.store, entered: make(chan struct{}), release: make(chan struct{})}
	srv := tenurehttp.NewServer(bs, base.store, tenurehttp.ServerOptions{ShutdownTimeout: 10 * time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	c := tenurehttp.NewClient(url, base.alice, tenurehttp.ClientOptions{})
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Put(context.Background(), tenure.Principal{}, tenure.Object{Key: "inflight", Value: []byte(`1`)})
		wrote <- err
	}()
	<-bs.entered
	stop() // SIGTERM
	time.Sleep(50 * time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a write in flight", err)
	default:
	}
	close(bs.release)
	if err := <-wrote; err != nil {
		t.Errorf("in-flight write: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if o, err := base.store.CurrentValue(base.ctx, aliceP, "inflight", tenure.Read{}); err != nil || string(o.Value) != "1" {
		t.Errorf("in-flight write not stored: %v", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Errorf("server still accepts connections after shutdown")
	}
}

func TestReady(t *testing.T) {
	e := newEnv(t, func(o *tenurehttp.ServerOptions) {
		o.Ready = func(context.Context) error { return io.ErrUnexpectedEOF }
	})
	r := e.call("GET", "/readyz", "", "")
	if b := r.errBody(t); r.status != 503 || b.Code != tenure.CodeUnavailable {
		t.Errorf("readyz with a failing check: %d %+v", r.status, b)
	}
	if r := e.call("GET", "/healthz", "", ""); r.status != 200 {
		t.Errorf("healthz: %d", r.status)
	}
}

// Kept traces are compact unless the server keeps them whole; the compile
// answer holds the whole trace either way.
func TestTraceKeptCompact(t *testing.T) {
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprint("full=", full), func(t *testing.T) {
			e := newEnv(t, func(o *tenurehttp.ServerOptions) { o.FullTraces = full })
			c := e.client(e.admin)
			for i := range 30 {
				if _, err := c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: fmt.Sprint("plan", i),
					Value: []byte(fmt.Sprintf(`"the launch plan, item %d, with words enough to take some budget"`, i))}); err != nil {
					t.Fatal(err)
				}
			}
			_, tr, err := c.Compile(e.ctx, compile.Request{Budget: 200, Query: "launch plan"})
			if err != nil {
				t.Fatal(err)
			}
			budget := omitted(tr, compile.OmitBudget)
			if budget <= 10 || tr.Compacted {
				t.Fatalf("compile answer: %d omitted for budget, compacted %v; want more than 10, whole", budget, tr.Compacted)
			}
			kept, err := c.Trace(e.ctx, tr.TraceID)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case full && (kept.Compacted || omitted(kept, compile.OmitBudget) != budget):
				t.Errorf("full: kept %d omitted for budget, compacted %v; want %d, whole", omitted(kept, compile.OmitBudget), kept.Compacted, budget)
			case !full && (!kept.Compacted || omitted(kept, compile.OmitBudget) != 10 || kept.OmittedTotal[compile.OmitBudget] != budget):
				t.Errorf("compact: kept %d omitted for budget of %d, compacted %v; want 10 of %d", omitted(kept, compile.OmitBudget),
					kept.OmittedTotal[compile.OmitBudget], kept.Compacted, budget)
			}
			if len(kept.Compiled) != len(tr.Compiled) {
				t.Errorf("kept %d compiled objects, want %d", len(kept.Compiled), len(tr.Compiled))
			}
		})
	}
}
