package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/web"
)

// TestObjectsPagesCoverEverything walks the search two objects a page and
// checks that every visible object appears once, and no hidden one.
func TestObjectsPagesCoverEverything(t *testing.T) {
	e := newEnv(t)
	e.srv = httptest.NewServer(web.New(e.st, e.st, web.Options{PageSize: 2}))
	t.Cleanup(e.srv.Close)
	b := newBrowser(t, e)
	b.signIn("alice")
	idRe := regexp.MustCompile(`<tr><td><a href="/ui/objects/([^"]+)">`)
	nextRe := regexp.MustCompile(`href="([^"]+)" id="next-page"`)
	seen := map[string]int{}
	path := "/ui/objects"
	for pages := 0; path != ""; pages++ {
		if pages > 20 {
			t.Fatal("more pages than objects")
		}
		code, body, _ := b.do("GET", path, nil)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		for _, m := range idRe.FindAllStringSubmatch(body, -1) {
			seen[m[1]]++
		}
		path = ""
		if m := nextRe.FindStringSubmatch(body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	for name, id := range e.ids {
		want := 1
		if name == "bob" {
			want = 0
		}
		if seen[id] != want {
			t.Errorf("object %s listed %d times, want %d", name, seen[id], want)
		}
	}
}

func TestTraces(t *testing.T) {
	e := newEnv(t)
	a := newBrowser(t, e)
	a.signIn("alice")
	code, body, _ := a.do("POST", "/ui/compile", url.Values{"csrf": {a.csrf}, "query": {"billing database"}, "budget": {"500"}, "mode": {"full"}, "format": {"openai"}})
	if code != http.StatusOK || !strings.Contains(body, `&#34;role&#34;`) {
		t.Fatalf("compile in openai format = %d, want the chat messages", code)
	}
	m := regexp.MustCompile(`id="trace-id">([^<]+)<`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no trace id")
	}
	if code, _, _ := a.do("GET", "/ui/traces/"+m[1], nil); code != http.StatusOK {
		t.Fatalf("alice's own trace = %d", code)
	}
	b := newBrowser(t, e)
	b.signIn("bob")
	if code, _, _ := b.do("GET", "/ui/traces/"+m[1], nil); code != http.StatusNotFound {
		t.Fatalf("alice's trace for bob = %d, want 404", code)
	}
	o := newBrowser(t, e)
	o.signIn("owner")
	if code, _, _ := o.do("GET", "/ui/traces/"+m[1], nil); code != http.StatusOK {
		t.Fatalf("alice's trace for a trace:read holder = %d", code)
	}
	code, body, _ = a.do("POST", "/ui/compile", url.Values{"csrf": {a.csrf}, "query": {"x"}, "budget": {"many"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "budget") {
		t.Fatalf("budget=many = %d, want 400 naming the field", code)
	}
}

func TestKeys(t *testing.T) {
	e := newEnv(t)
	o := newBrowser(t, e)
	o.signIn("owner")
	code, body, _ := o.do("POST", "/ui/keys", url.Values{"csrf": {o.csrf}, "name": {"ci"}, "user": {"carol"}, "authority": {"employee"},
		"clearance": {"confidential"}, "permissions": {"trace:read"}})
	if code != http.StatusOK || !strings.Contains(body, `id="secret">tk_`) {
		t.Fatalf("create key = %d, want its secret shown", code)
	}
	code, body, _ = o.do("POST", "/ui/keys", url.Values{"csrf": {o.csrf}, "name": {"x"}, "user": {"carol"}, "authority": {"employee"},
		"clearance": {"confidential"}, "permissions": {"rules:write"}})
	if code != http.StatusForbidden || !strings.Contains(body, "rules:write") {
		t.Fatalf("create a key with a permission the admin lacks = %d, want 403", code)
	}
	// A key of another tenant is missing.
	other, _, err := e.st.CreateKey(e.ctx, tenure.APIKey{Name: "other", Principal: tenure.Principal{UserID: "x", TenantID: "globex", Authority: "employee"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := o.do("POST", "/ui/keys/"+other.ID+"/revoke", url.Values{"csrf": {o.csrf}}); code != http.StatusNotFound {
		t.Fatalf("revoke another tenant's key = %d, want 404", code)
	}
	if k, _ := e.st.KeyByHash(e.ctx, "x"); k.Revoked() {
		t.Fatal("unreachable")
	}
	ks, _ := e.st.Keys(e.ctx, "acme")
	for _, k := range ks {
		if k.Name == "bob" {
			if code, _, _ := o.do("POST", "/ui/keys/"+k.ID+"/revoke", url.Values{"csrf": {o.csrf}}); code != http.StatusSeeOther {
				t.Fatalf("revoke bob's key = %d", code)
			}
		}
	}
	b := newBrowser(t, e)
	b.do("GET", "/ui/signin", nil)
	if code, body, _ := b.do("POST", "/ui/signin", url.Values{"csrf": {b.csrf}, "key": {e.keys["bob"]}}); code != http.StatusUnauthorized || !strings.Contains(body, "revoked") {
		t.Fatalf("sign in with a revoked key = %d", code)
	}
}

func TestOtherPages(t *testing.T) {
	e := newEnv(t)
	a := newBrowser(t, e)
	a.signIn("alice")
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/ui/threads", http.StatusOK, `href="/ui/threads/launch"`},
		{"/ui/threads/launch", http.StatusOK, "Session s2"},
		{"/ui/threads/nope", http.StatusNotFound, "no thread"},
		{"/ui/conflicts", http.StatusOK, "Thursday 15:00"},
		{"/ui/snapshots", http.StatusOK, "Workflow id"},
		{"/ui/snapshots?workflow=nope", http.StatusNotFound, "nope"},
		{"/ui/entities", http.StatusOK, `id="entities-slot"`},
		{"/ui/ops", http.StatusOK, "metrics:read"},
		{"/ui/nope", http.StatusNotFound, "no page"},
		{"/ui/objects/" + e.ids["db1"] + "?as_of_valid=2026-03-01T12:00", http.StatusOK, "true at 2026-03-01"},
	} {
		code, body, _ := a.do("GET", c.path, nil)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("GET %s = %d, want %d with %q", c.path, code, c.code, c.want)
		}
	}
	o := newBrowser(t, e)
	o.signIn("owner")
	if code, body, _ := o.do("GET", "/ui/ops", nil); code != http.StatusOK || !strings.Contains(body, "tenure_http_requests_total") || !strings.Contains(body, `id="ready">ready<`) {
		t.Errorf("ops page for a metrics:read holder = %d, want readiness and the request counts", code)
	}
	b := newBrowser(t, e)
	b.signIn("bob")
	if _, body, _ := b.do("GET", "/ui/threads", nil); strings.Contains(body, "launch") {
		t.Error("bob sees alice's thread")
	}
}

func TestSnapshotsPage(t *testing.T) {
	e := newEnv(t)
	if _, err := e.st.StartWorkflow(e.ctx, alice, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers ordered?"}); err != nil {
		t.Fatal(err)
	}
	w := 1.0
	d := snapshot.Delta{Round: 1, Weight: &w, Operation: snapshot.OpAdd, Path: "$.bindings.customer", Value: json.RawMessage(`"C-42"`), Provenance: "mapper"}
	if _, err := e.st.SubmitDeltas(e.ctx, alice, "orders", []snapshot.Delta{d}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CloseRound(e.ctx, alice, "orders", 0); err != nil {
		t.Fatal(err)
	}
	a := newBrowser(t, e)
	a.signIn("alice")
	code, body, _ := a.do("GET", "/ui/snapshots?workflow=orders&path="+url.QueryEscape("$.bindings.customer"), nil)
	if code != http.StatusOK || !strings.Contains(body, "C-42") || !strings.Contains(body, "round=0") || !strings.Contains(body, "mapper") {
		t.Fatalf("snapshot page = %d, want the binding, round 0's link and the path's delta", code)
	}
	// Another tenant's user does not see it.
	_, secret, err := e.st.CreateKey(e.ctx, tenure.APIKey{Name: "eve", Principal: tenure.Principal{UserID: "eve", TenantID: "globex", Authority: "employee"}})
	if err != nil {
		t.Fatal(err)
	}
	e.keys["eve"] = secret
	b := newBrowser(t, e)
	b.signIn("eve")
	if code, body, _ := b.do("GET", "/ui/snapshots?workflow=orders", nil); code != http.StatusNotFound || strings.Contains(body, "C-42") {
		t.Fatalf("acme's workflow for globex = %d, want 404", code)
	}
}
