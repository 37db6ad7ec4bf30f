// Package embedtest is a fake OpenAI-compatible embeddings server for
// tests: it speaks the real wire format (POST /v1/embeddings, base64 or
// float answers), answers deterministic vectors in which synonyms are
// close, records every text it receives, and can be taken down or made to
// refuse texts.
package embedtest

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/tenure-dev/tenure/semantic"
)

// Dims is the length of the fake's vectors.
const Dims = 64

// Model is the model name the fake reports when a request names none.
const Model = "fake-embed"

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	texts    []string
	down     bool
	refuse   string
}

// NewServer starts a fake and stops it when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// NewHandler returns a fake to serve on a listener of one's own (see
// fakeembed); URL is then empty.
func NewHandler() *Server { return &Server{} }

// URL is the base URL to configure: the server's root with /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Requests counts the embedding requests received (failed ones too).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Texts returns every text received, in order, repeats included.
func (s *Server) Texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.texts...)
}

// Received reports whether any text received contains sub.
func (s *Server) Received(sub string) bool {
	for _, t := range s.Texts() {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

// SetDown makes every request fail with 503 (true) or succeed again.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Refuse makes a request fail with 400 when one of its texts contains sub
// ("" refuses nothing), as a server refuses a text too long for its model.
func (s *Server) Refuse(sub string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = sub
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type datum struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

// ServeHTTP answers POST /v1/embeddings.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error": {"message": "bad json"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests++
	s.texts = append(s.texts, req.Input...)
	down, refuse := s.down, s.refuse
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if down {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error": {"message": "down for the test"}}`))
		return
	}
	data := make([]datum, len(req.Input))
	for i, text := range req.Input {
		if refuse != "" && strings.Contains(text, refuse) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error": {"message": "input too long for the test", "type": "invalid_request_error"}}`))
			return
		}
		v := Vector(text)
		var e any = v
		if req.EncodingFormat == "base64" {
			e = base64.StdEncoding.EncodeToString(semantic.Encode(v)) // little-endian float32s, as OpenAI sends them
		}
		data[i] = datum{Object: "embedding", Index: i, Embedding: e}
	}
	model := req.Model
	if model == "" {
		model = Model
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

// Synonyms maps words to the concept they share a dimension with: the
// fake's notion of meaning.
var Synonyms = map[string]string{
	"phone": "phone", "iphone": "phone", "smartphone": "phone", "mobile": "phone", "cellphone": "phone",
	"car": "car", "vehicle": "car", "automobile": "car", "sedan": "car",
	"dog": "dog", "puppy": "dog", "pup": "dog", "hound": "dog",
	"doctor": "doctor", "physician": "doctor", "dentist": "doctor",
	"job": "job", "work": "job", "career": "job", "employer": "job",
	"trip": "trip", "vacation": "trip", "holiday": "trip", "travel": "trip",
}

// stopwords carry no meaning in the fake.
var stopwords = map[string]bool{"a": true, "an": true, "the": true, "my": true, "i": true, "is": true, "was": true,
	"what": true, "did": true, "do": true, "of": true, "to": true, "and": true, "in": true, "on": true, "it": true,
	"you": true, "me": true, "for": true, "with": true, "about": true, "which": true, "new": true, "got": true}

// Vector is the fake's unit vector of a text: every word that is not a
// stopword adds one to the dimension of its concept (Synonyms) or of
// itself, hashed; "phone" and "iPhone" are the same direction.
func Vector(text string) []float32 {
	v := make([]float32, Dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopwords[w] {
			continue
		}
		if c, ok := Synonyms[w]; ok {
			w = c
		} else if c, ok := Synonyms[strings.TrimSuffix(w, "s")]; ok {
			w = c
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%Dims]++
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1 // a text of stopwords only still has a direction
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}
