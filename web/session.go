package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
)

// Cookie names. The session cookie holds a random session id, never the
// key; the sign-in cookie holds the sign-in form's CSRF token.
const (
	sessionCookie = "tenure_session"
	signinCookie  = "tenure_signin"
	csrfField     = "csrf"
)

// session is a signed-in browser: the hash of its key's secret (what the
// store keeps; the secret itself is not kept) and its CSRF token.
type session struct {
	keyHash string
	csrf    string
	expires time.Time
}

// sessions is the server-side session table, keyed by the SHA-256 of the
// cookie's session id.
type sessions struct {
	mu  sync.Mutex
	m   map[string]*session
	ttl time.Duration
	now func() time.Time
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{m: map[string]*session{}, ttl: ttl, now: now}
}

// randomToken returns 32 random bytes in hex.
func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func sessionKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// create starts a session for the key whose secret hashes to keyHash and
// returns its id.
func (s *sessions) create(keyHash string) string {
	id := randomToken()
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, v := range s.m { // expired sessions go when new ones come
		if !now.Before(v.expires) {
			delete(s.m, k)
		}
	}
	s.m[sessionKey(id)] = &session{keyHash: keyHash, csrf: randomToken(), expires: now.Add(s.ttl)}
	return id
}

// get returns the live session with the given id.
func (s *sessions) get(id string) (*session, bool) {
	if id == "" || len(id) > 128 {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sessionKey(id)
	v, ok := s.m[k]
	if !ok {
		return nil, false
	}
	if !s.now().Before(v.expires) {
		delete(s.m, k)
		return nil, false
	}
	cp := *v
	return &cp, true
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, sessionKey(id))
}

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Prefix, MaxAge: maxAge, HttpOnly: true,
		Secure: r.TLS != nil || h.opt.SecureCookies, SameSite: http.SameSiteStrictMode})
}

// sameOrigin refuses state-changing requests another site sent: the
// Origin header, when the browser sends one, must name this host (the
// SameSite=Strict cookie and the CSRF token are the main defenses).
func sameOrigin(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// checkCSRF compares the form's token with want in constant time.
func checkCSRF(r *http.Request, want string) error {
	got := r.PostFormValue(csrfField)
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 || !sameOrigin(r) {
		return tenure.Errorf(tenure.CodeForbidden, csrfField, "the form expired or came from another site: reload the page and try again")
	}
	return nil
}

// authed runs fn for a signed-in browser as its key's principal, looked
// up on every request (a revoked key ends its sessions at once); other
// requests are sent to the sign-in page. POSTs must carry the session's
// CSRF token.
func (h *Handler) authed(fn pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie(sessionCookie)
		var sess *session
		ok := false
		if err == nil {
			sess, ok = h.sessions.get(ck.Value)
		}
		var key tenure.APIKey
		if ok {
			key, err = h.keys.KeyByHash(r.Context(), sess.keyHash)
			switch {
			case tenure.ErrorCode(err) == tenure.CodeNotFound || err == nil && key.Revoked():
				h.sessions.drop(ck.Value)
				ok = false
			case err != nil:
				h.fail(w, r, nil, err)
				return
			}
		}
		if !ok {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			h.fail(w, r, nil, tenure.Errorf(tenure.CodeUnauthenticated, "", "sign in first"))
			return
		}
		c := &call{p: key.Principal, key: key, sess: sess}
		if r.Method == http.MethodPost {
			if err := checkCSRF(r, sess.csrf); err != nil {
				h.fail(w, r, c, err)
				return
			}
		}
		if err := fn(w, r, c); err != nil {
			h.fail(w, r, c, err)
		}
	})
}

type signinData struct {
	Token, Next, Message string
}

// safeNext keeps a post-sign-in redirect inside the inspector.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix) || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return Prefix
	}
	return next
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	h.showSignin(w, r, http.StatusOK, r.URL.Query().Get("next"), "")
}

func (h *Handler) showSignin(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	tok := randomToken()
	h.setCookie(w, r, signinCookie, tok, 600)
	if err := h.render(w, r, nil, status, "signin.html", "Sign in", "", signinData{Token: tok, Next: safeNext(next), Message: msg}); err != nil {
		h.fail(w, r, nil, err)
	}
}

// signin checks the presented key and starts a session. The form's token
// must match the sign-in cookie (no sign-in forged by another site).
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	ck, err := r.Cookie(signinCookie)
	want := ""
	if err == nil {
		want = ck.Value
	}
	if err := checkCSRF(r, want); err != nil {
		h.showSignin(w, r, http.StatusForbidden, r.PostFormValue("next"), tenure.AsError(err).Message)
		return
	}
	next := r.PostFormValue("next")
	secret := strings.TrimSpace(r.PostFormValue("key"))
	if err := tenure.CheckAPIKeySecret(secret); err != nil {
		h.showSignin(w, r, http.StatusUnauthorized, next, tenure.AsError(err).Message)
		return
	}
	hash := tenure.HashAPIKey(secret)
	k, err := h.keys.KeyByHash(r.Context(), hash)
	switch {
	case tenure.ErrorCode(err) == tenure.CodeNotFound:
		h.showSignin(w, r, http.StatusUnauthorized, next, "invalid API key")
		return
	case err != nil:
		h.fail(w, r, nil, err)
		return
	case k.Revoked():
		h.showSignin(w, r, http.StatusUnauthorized, next, "revoked API key")
		return
	}
	id := h.sessions.create(hash)
	h.setCookie(w, r, sessionCookie, id, int(h.opt.SessionTTL/time.Second))
	h.setCookie(w, r, signinCookie, "", -1)
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request, c *call) error {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		h.sessions.drop(ck.Value)
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
	return nil
}
