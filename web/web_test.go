package web_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t    testing.TB
	e    *env
	c    *http.Client
	csrf string
}

func newBrowser(t testing.TB, e *env) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func (b *browser) do(method, path string, form url.Values) (int, string, http.Header) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.srv.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if m := csrfRe.FindStringSubmatch(string(got)); m != nil {
		b.csrf = m[1]
	}
	return res.StatusCode, string(got), res.Header
}

// signIn signs in with the named principal's key.
func (b *browser) signIn(name string) {
	b.t.Helper()
	b.do("GET", "/ui/signin", nil)
	code, body, _ := b.do("POST", "/ui/signin", url.Values{"csrf": {b.csrf}, "key": {b.e.keys[name]}, "next": {"/ui/objects"}})
	if code != http.StatusSeeOther {
		b.t.Fatalf("sign in as %s: %d\n%s", name, code, body)
	}
	b.do("GET", "/ui/objects", nil) // picks up the session's CSRF token
}

func TestRootRedirectsToUI(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	code, _, h := b.do("GET", "/", nil)
	if code != http.StatusSeeOther || h.Get("Location") != "/ui/" {
		t.Fatalf("GET / = %d %q, want 303 to /ui/", code, h.Get("Location"))
	}
	code, _, h = b.do("GET", "/ui/objects?key=billing", nil)
	if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/ui/signin?next=") {
		t.Fatalf("GET /ui/objects signed out = %d %q, want the sign-in page", code, h.Get("Location"))
	}
}

func TestSignIn(t *testing.T) {
	e := newEnv(t)
	t.Run("OK", func(t *testing.T) {
		b := newBrowser(t, e)
		b.do("GET", "/ui/signin", nil)
		code, _, h := b.do("POST", "/ui/signin", url.Values{"csrf": {b.csrf}, "key": {e.keys["alice"]}, "next": {"/ui/threads"}})
		if code != http.StatusSeeOther || h.Get("Location") != "/ui/threads" {
			t.Fatalf("sign in = %d %q", code, h.Get("Location"))
		}
		var session *http.Cookie
		for _, c := range (&http.Response{Header: h}).Cookies() {
			if c.Name == "tenure_session" {
				session = c
			}
		}
		if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Path != "/ui/" {
			t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/ui/", session)
		}
		if strings.Contains(session.Value, e.keys["alice"]) || strings.Contains(session.Value, tenure.HashAPIKey(e.keys["alice"])) {
			t.Fatal("the session cookie carries the key")
		}
		code, body, _ := b.do("GET", "/ui/objects", nil)
		if code != http.StatusOK || !strings.Contains(body, "alice @ acme") {
			t.Fatalf("objects after sign-in: %d, want alice's page", code)
		}
	})
	t.Run("ErrBadKey", func(t *testing.T) {
		b := newBrowser(t, e)
		b.do("GET", "/ui/signin", nil)
		code, body, _ := b.do("POST", "/ui/signin", url.Values{"csrf": {b.csrf}, "key": {"tk_NOTAKEY"}})
		if code != http.StatusUnauthorized || !strings.Contains(body, "invalid API key") {
			t.Fatalf("bad key = %d, want 401 invalid API key", code)
		}
	})
	t.Run("ErrNoCSRF", func(t *testing.T) {
		b := newBrowser(t, e)
		b.do("GET", "/ui/signin", nil)
		code, _, _ := b.do("POST", "/ui/signin", url.Values{"csrf": {"forged"}, "key": {e.keys["alice"]}})
		if code != http.StatusForbidden {
			t.Fatalf("sign in with a forged token = %d, want 403", code)
		}
	})
	t.Run("ErrOffSiteNext", func(t *testing.T) {
		b := newBrowser(t, e)
		b.do("GET", "/ui/signin", nil)
		_, _, h := b.do("POST", "/ui/signin", url.Values{"csrf": {b.csrf}, "key": {e.keys["alice"]}, "next": {"//evil.example/"}})
		if h.Get("Location") != "/ui/" {
			t.Fatalf("next //evil.example/ redirected to %q, want /ui/", h.Get("Location"))
		}
	})
}

func TestCSRFOnEveryForm(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	b.signIn("alice")
	for _, path := range []string{"/ui/compile", "/ui/signout", "/ui/conflicts/x/resolve", "/ui/keys"} {
		code, _, _ := b.do("POST", path, url.Values{"query": {"x"}, "budget": {"100"}})
		if code != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token = %d, want 403", path, code)
		}
	}
	// A cross-site POST with the right token is still refused.
	req, _ := http.NewRequest("POST", e.srv.URL+"/ui/signout", strings.NewReader(url.Values{"csrf": {b.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin sign-out = %d, want 403", res.StatusCode)
	}
	code, _, _ := b.do("POST", "/ui/signout", url.Values{"csrf": {b.csrf}})
	if code != http.StatusSeeOther {
		t.Fatalf("sign out = %d", code)
	}
	if code, _, _ := b.do("GET", "/ui/objects", nil); code != http.StatusSeeOther {
		t.Fatalf("after sign-out GET /ui/objects = %d, want a redirect to sign in", code)
	}
}

func TestRevokedKeyEndsSession(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	b.signIn("alice")
	ks, err := e.st.Keys(e.ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if k.Name == "alice" {
			if _, err := e.st.RevokeKey(e.ctx, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if code, _, _ := b.do("GET", "/ui/objects", nil); code != http.StatusSeeOther {
		t.Fatalf("GET with a revoked key's session = %d, want a redirect to sign in", code)
	}
}

// TestPagesShowWhatTheAPIShows checks that a principal's pages hold what
// the API would show it: bob's private object is missing for alice, in
// the search and by id.
func TestPagesShowWhatTheAPIShows(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	b.signIn("alice")
	_, body, _ := b.do("GET", "/ui/objects", nil)
	if strings.Contains(body, "bob.private") || !strings.Contains(body, "billing.database") {
		t.Fatalf("alice's search: bob's object shown or her own missing:\n%s", body)
	}
	code, body, _ := b.do("GET", "/ui/objects/"+e.ids["bob"], nil)
	if code != http.StatusNotFound || strings.Contains(body, "bob secret plan") {
		t.Fatalf("bob's object for alice = %d, want 404 without its content", code)
	}
	if code, _, _ := b.do("GET", "/ui/keys", nil); code != http.StatusForbidden {
		t.Fatalf("keys page for alice = %d, want 403", code)
	}
	ob := newBrowser(t, e)
	ob.signIn("owner")
	if code, body, _ := ob.do("GET", "/ui/keys", nil); code != http.StatusOK || !strings.Contains(body, ">alice<") {
		t.Fatalf("keys page for the owner = %d", code)
	}
}

func TestUserTextIsEscaped(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	b.signIn("alice")
	for _, path := range []string{"/ui/objects", "/ui/objects/" + e.ids["xss"]} {
		_, body, _ := b.do("GET", path, nil)
		if strings.Contains(body, "<script>alert") || strings.Contains(body, `<img src=x`) {
			t.Fatalf("%s renders stored markup unescaped", path)
		}
		if !strings.Contains(body, "&lt;img src") {
			t.Fatalf("%s: the escaped content is missing", path)
		}
	}
}

func TestObjectsFiltersAndPages(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t, e)
	b.signIn("alice")
	_, body, _ := b.do("GET", "/ui/objects?key=standup&status=quarantined", nil)
	if strings.Count(body, `href="/ui/objects/`) != 2 {
		t.Fatalf("key=standup status=quarantined: want 2 objects")
	}
	_, body, _ = b.do("GET", "/ui/objects?author=nobody", nil)
	if !strings.Contains(body, "No objects match") {
		t.Fatalf("author=nobody matched objects")
	}
	// Stored on 3 March or later: the standup claims, the note and the
	// thread's state items; the chain's claims were stored before.
	_, body, _ = b.do("GET", "/ui/objects?tx_from=2026-03-03T00:00", nil)
	if !strings.Contains(body, "standup.time") || !strings.Contains(body, "note.xss") || strings.Contains(body, "billing.database") {
		t.Fatal("tx_from=2026-03-03: want the objects stored since, only")
	}
	_, body, _ = b.do("GET", "/ui/objects?valid_at=2026-02-15T00:00&key=billing.database", nil)
	if !strings.Contains(body, "MySQL") || strings.Contains(body, "PostgreSQL") {
		t.Fatal("valid_at=2026-02-15: want the claim true then, MySQL, only")
	}
	code, body, _ := b.do("GET", "/ui/objects?valid_at=yesterday", nil)
	if code != http.StatusBadRequest || !strings.Contains(body, "valid_at") {
		t.Fatalf("valid_at=yesterday = %d, want 400 naming the field", code)
	}
}
