package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	tenurehttp "github.com/tenure-dev/tenure/http"
)

// TestMain runs the package's tests, then fails them if any answer of an
// env's server broke what observe checks.
func TestMain(m *testing.M) {
	code := m.Run()
	if problems := observed.problems(); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "FAIL:", p)
		}
		code = 1
	}
	os.Exit(code)
}

// goTypeName matches what fmt's %T prints for the module's types and the
// standard library's common ones ("*extract.Rules"): a response carrying
// one leaks an implementation detail.
var goTypeName = regexp.MustCompile(`\*?\b(tenure|admit|compile|engine|extract|http|jsonx|llm|openai|anthropic|mcp|reconcile|retrieve|` +
	`snapshot|sqlite|summarize|temporal|tokenizer|json|time|errors|fmt|sql|url|net|os|context)\.[A-Z]\w*`)

// observations is what every env's server answered on the documented
// routes, over all the package's tests.
type observations struct {
	sync.Mutex
	// undocumented lists the client errors (4XX) a route answered that
	// openapi.json does not give it, as "GET /v1/x: 409".
	undocumented map[string]bool
	// typeNames lists answers that name a Go type.
	typeNames map[string]bool
}

var observed = &observations{undocumented: map[string]bool{}, typeNames: map[string]bool{}}

func (o *observations) problems() []string {
	o.Lock()
	defer o.Unlock()
	var out []string
	for p := range o.undocumented {
		out = append(out, "openapi.json does not document "+p)
	}
	for p := range o.typeNames {
		out = append(out, "an answer names a Go type: "+p)
	}
	slices.Sort(out)
	return out
}

// documented is openapi.json's routes, for matching requests to them, and
// the statuses each documents, by route pattern ("GET /v1/objects/{id}").
var documented = sync.OnceValues(func() (*http.ServeMux, map[string]map[string]bool) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(tenurehttp.OpenAPI, &doc); err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	statuses := map[string]map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			pattern := strings.ToUpper(method) + " " + path
			mux.HandleFunc(pattern, func(http.ResponseWriter, *http.Request) {})
			statuses[pattern] = map[string]bool{}
			for status := range op.Responses {
				statuses[pattern][status] = true
			}
		}
	}
	return mux, statuses
})

// observe wraps an env's handler: every answer on a documented route is
// checked for a client error the route does not document and for Go type
// names (see observed).
func observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux, statuses := documented()
		_, pattern := mux.Handler(r)
		if statuses[pattern] == nil {
			h.ServeHTTP(w, r)
			return
		}
		rec := &bodyRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		observed.Lock()
		defer observed.Unlock()
		if rec.status >= 400 && rec.status < 500 && !statuses[pattern][strconv.Itoa(rec.status)] {
			observed.undocumented[fmt.Sprintf("%s: %d", pattern, rec.status)] = true
		}
		if m := goTypeName.Find(rec.body.Bytes()); m != nil {
			observed.typeNames[fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, m)] = true
		}
	})
}

// bodyRecorder passes an answer on and keeps its status and body.
type bodyRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (b *bodyRecorder) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
	b.ResponseWriter.WriteHeader(code)
}

func (b *bodyRecorder) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.body.Write(p)
	return b.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (b *bodyRecorder) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// documentedStatus reports whether openapi.json gives the route pattern
// (GET /v1/objects) the status.
func documentedStatus(t *testing.T, pattern string, status int) bool {
	t.Helper()
	_, statuses := documented()
	if statuses[pattern] == nil {
		t.Fatalf("openapi.json has no route %s", pattern)
	}
	return statuses[pattern][strconv.Itoa(status)]
}
