package http_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// TestValueOnly checks GET /v1/values/{key}?only=value: the value alone,
// as JSON, the holding object's id in a header; without it, the object.
func TestValueOnly(t *testing.T) {
	e := newEnv(t)
	put := func(body string) tenure.WriteResult {
		t.Helper()
		r := e.call("POST", "/v1/objects", e.alice, body)
		var res tenure.WriteResult
		if r.status != 200 || json.Unmarshal([]byte(r.body), &res) != nil {
			t.Fatalf("put %s: %d %s", body, r.status, r.body)
		}
		return res
	}
	put(`{"key":"order.status","value":"approved"}`)
	cancelled := put(`{"key":"order.status","value":"cancelled","supersedes":"order.status"}`)
	plan := put(`{"key":"plan","value":{"tier":"pro","seats":3}}`)
	note := put(`{"key":"note","content":"Prefers email.\nNever calls."}`)

	for _, tc := range []struct {
		name, key, want, id string
	}{
		{"OKString", "order.status", `"cancelled"`, cancelled.Object.ObjectID},
		{"OKStructured", "plan", `{"seats":3,"tier":"pro"}`, plan.Object.ObjectID},
		{"OKContent", "note", `"Prefers email.\nNever calls."`, note.Object.ObjectID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("GET", "/v1/values/"+tc.key+"?only=value", e.alice, "")
			if r.status != 200 || strings.TrimSpace(r.body) != tc.want {
				t.Errorf("GET ?only=value: %d %s, want 200 %s", r.status, r.body, tc.want)
			}
			if got := r.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q, want application/json", got)
			}
			if got := r.header.Get("X-Tenure-Object-Id"); got != tc.id {
				t.Errorf("X-Tenure-Object-Id %q, want %q", got, tc.id)
			}
		})
	}
	t.Run("OKObject", func(t *testing.T) {
		r := e.call("GET", "/v1/values/order.status", e.alice, "")
		var o tenure.Object
		if r.status != 200 || json.Unmarshal([]byte(r.body), &o) != nil || o.ObjectID != cancelled.Object.ObjectID || string(o.Value) != `"cancelled"` {
			t.Errorf("GET without only: %d %s, want the object %s", r.status, r.body, cancelled.Object.ObjectID)
		}
		if r.header.Get("X-Tenure-Object-Id") != "" {
			t.Errorf("X-Tenure-Object-Id set without only=value")
		}
	})
	t.Run("ErrUnknownOnly", func(t *testing.T) {
		r := e.call("GET", "/v1/values/order.status?only=content", e.alice, "")
		if b := r.errBody(t); r.status != 400 || b.Code != tenure.CodeInvalid || b.Field != "only" {
			t.Errorf("only=content: %d %+v, want 400 invalid naming only", r.status, b)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		r := e.call("GET", "/v1/values/nothing?only=value", e.alice, "")
		if r.status != 404 || r.header.Get("X-Tenure-Object-Id") != "" {
			t.Errorf("missing key with only=value: %d %s, want 404 and no object id", r.status, r.body)
		}
	})
}
