package http_test

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestHistoryAsOf(t *testing.T) {
	e := newEnv(t)
	c := e.client(e.alice)
	if _, err := c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "order.status", Value: []byte(`"approved"`)}); err != nil {
		t.Fatal(err)
	}
	between := time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	if _, err := c.Put(e.ctx, tenure.Principal{}, tenure.Object{Key: "order.status", Value: []byte(`"cancelled"`), Supersedes: "order.status"}); err != nil {
		t.Fatal(err)
	}
	values := func(path string) []string {
		t.Helper()
		r := e.call("GET", path, e.alice, "")
		if r.status != 200 {
			t.Fatalf("GET %s = %d %s", path, r.status, r.body)
		}
		var h tenure.History
		if err := json.Unmarshal([]byte(r.body), &h); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range h.Versions {
			out = append(out, string(v.Value))
		}
		return out
	}
	if all := values("/v1/history/order.status"); len(all) < 2 {
		t.Fatalf("history = %v, want both values", all)
	}
	then := values("/v1/history/order.status?as_of_tx=" + url.QueryEscape(between.Format(time.RFC3339Nano)))
	if len(then) != 1 || then[0] != `"approved"` {
		t.Errorf("history as of the first write = %v, want only the approval", then)
	}
	r := e.call("GET", "/v1/history/order.status?as_of_tx=yesterday", e.alice, "")
	if r.status != 400 || r.errBody(t).Field != "as_of_tx" {
		t.Errorf("bad as_of_tx: %d %s, want 400 naming as_of_tx", r.status, r.body)
	}
}
