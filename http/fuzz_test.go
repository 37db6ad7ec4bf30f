package http_test

import (
	"bytes"
	"net/http/httptest"
	"testing"
)

// FuzzBodies checks that no request body makes the server fail: every
// answer to arbitrary bytes is a success or a 4xx, never a 5xx or a panic.
func FuzzBodies(f *testing.F) {
	e := newEnv(f)
	for _, s := range []string{
		`{"key":"a","value":1}`, `{"objects":[{"key":"a"},{"key":"b","layer":"x"}]}`, `{"KEY":1}`, `{"key":"a","key":"b"}`,
		`{"budget":100,"tail":[{"id":1}]}`, `{"messages":[{"thread_id":"t","id":"m","role":"user","content":"x","created_at":"2025-01-01T00:00:00Z"}]}`,
		`{"values":{"tz":"x"}}`, `{"session_id":"s"}`, `{"uid":"d_1"}`, `{"dry_run":true}`, `{"a":`, `null`, `[]`, "\xff",
	} {
		f.Add([]byte(s))
	}
	routes := []struct{ method, path string }{
		{"POST", "/v1/objects"}, {"POST", "/v1/objects/batch"}, {"POST", "/v1/compile"}, {"POST", "/v1/messages"},
		{"PUT", "/v1/environment"}, {"PUT", "/v1/identity"}, {"POST", "/v1/expand"}, {"POST", "/v1/retire"},
	}
	h := e.srv.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, r := range routes {
			req := httptest.NewRequest(r.method, r.path, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+e.alice)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s %s with %q: %d %s", r.method, r.path, body, rec.Code, rec.Body)
			}
		}
	})
}
