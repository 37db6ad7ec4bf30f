package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure"
)

// send sends a request with the API key (none when empty) and returns the
// status and body.
func send(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var metricsRE = regexp.MustCompile(`metrics without a key on (http://[0-9.:]+/metrics)`)

// serve's limit flags reach the compiler and the store: inputs over them
// are 413 naming the field. /metrics needs a metrics:read key on --addr
// (the admin key serve creates holds one); with --metrics-addr it is
// served there without a key and not on --addr.
func TestServeLimits(t *testing.T) {
	srv := serve(t, newDB(t), "--max-document-bytes", "1KiB", "--max-content-bytes", "1KiB", "--max-query-bytes", "100")
	big := strings.Repeat("x", 2000)
	for _, tc := range []struct {
		name, path, body, field string
	}{
		{"Document", "/v1/compile", `{"query":"q","budget":100,"documents":[{"source":"https://a.example","content":"` + big + `"}]}`, "documents[0].content"},
		{"Query", "/v1/compile", `{"query":"` + big + `","budget":100}`, "query"},
		{"Content", "/v1/objects", `{"key":"k","content":"` + big + `"}`, "content"},
		{"Message", "/v1/messages", `{"messages":[{"thread_id":"t","id":"1","role":"user","content":"` + big + `","created_at":"2025-01-01T00:00:00Z"}]}`, "messages[0].content"},
	} {
		t.Run("Err"+tc.name, func(t *testing.T) {
			status, body := send(t, "POST", srv.url+tc.path, srv.key, tc.body)
			var e struct {
				Code  tenure.Code `json:"code"`
				Field string      `json:"field"`
			}
			json.Unmarshal([]byte(body), &e)
			if status != 413 || e.Code != tenure.CodeTooLarge || e.Field != tc.field {
				t.Errorf("POST %s: %d %s, want 413 too_large %q", tc.path, status, body, tc.field)
			}
		})
	}
	if status, body := send(t, "GET", srv.url+"/metrics", srv.key, ""); status != 200 || !strings.Contains(body, "tenure_concurrency_limit") {
		t.Errorf("GET /metrics with the admin key: %d", status)
	}
	if status, _ := send(t, "GET", srv.url+"/metrics", "", ""); status != 401 {
		t.Errorf("GET /metrics without a key: %d, want 401", status)
	}

	sep := serve(t, newDB(t), "--metrics-addr", "127.0.0.1:0")
	m := metricsRE.FindStringSubmatch(sep.stderr.String())
	if m == nil {
		t.Fatalf("serve did not say where metrics are: %s", sep.stderr.String())
	}
	if status, body := send(t, "GET", m[1], "", ""); status != 200 || !strings.Contains(body, "tenure_concurrency_limit") {
		t.Errorf("GET %s without a key: %d", m[1], status)
	}
	if status, _ := send(t, "GET", strings.TrimSuffix(m[1], "/metrics")+"/v1/whoami", sep.key, ""); status != 404 {
		t.Errorf("the metrics listener serves the API: %d, want 404", status)
	}
	if status, _ := send(t, "GET", sep.url+"/metrics", sep.key, ""); status != 404 {
		t.Errorf("GET /metrics on --addr with --metrics-addr: %d, want 404", status)
	}
	if code := sep.stop(); code != 0 {
		t.Errorf("serve exited %d: %s", code, sep.stderr.String())
	}
}
