package main

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

func TestParseObjects(t *testing.T) {
	objs, batch, err := parseObjects([]byte(`{"key":"a","value":{"nested":[1,2]},"decay_rule":{"half_life_days":2,"minimum_threshold":0.1},
		"permission_scope":{"allow_roles":["x"]},"valid_from":"2025-01-01T00:00:00Z","aliases":["b"]}`))
	if err != nil || batch || len(objs) != 1 {
		t.Fatalf("single object: %v batch %v len %d", err, batch, len(objs))
	}
	o := objs[0]
	if o.Key != "a" || string(o.Value) != `{"nested":[1,2]}` || o.DecayRule.HalfLifeDays != 2 || o.PermissionScope.AllowRoles[0] != "x" {
		t.Errorf("decoded %+v", o)
	}
	objs, batch, err = parseObjects([]byte(" [ ] "))
	if err != nil || !batch || len(objs) != 0 {
		t.Errorf("empty array: %v batch %v len %d", err, batch, len(objs))
	}
}

// FuzzParseObjects checks that put's parser never panics and reports every
// failure as invalid input (or too large), never as an internal error.
func FuzzParseObjects(f *testing.F) {
	for _, s := range []string{
		`{"key":"a","value":1}`, `[{"key":"a"},{"key":"b","layer":"x"}]`, `{"KEY":1}`, `{"key":"a","key":"b"}`,
		`{"decay_rule":{"half_life_days":"x"}}`, `{"valid_from":"x"}`, `{"valid_until":1}`, `[1,{}]`, `{"a":`, "\"\\u00e9\n",
		`{"permission_scope":{"allow_roles":[{}]}}`, `{"authority_level":1e999}`, `null`, `[null]`, `{"value":}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, batch, err := parseObjects(data)
		if err != nil {
			if c := tenure.ErrorCode(err); c != tenure.CodeInvalid && c != tenure.CodeTooLarge {
				t.Fatalf("error code %s for %q: %v", c, data, err)
			}
			return
		}
		if !batch && len(objs) != 1 {
			t.Fatalf("single object parsed into %d objects", len(objs))
		}
	})
}
