package extract_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/llm/openai"
)

// recordedAnswers reads testdata/llm_recorded.jsonl: for each thread of
// the labelled fixture, the answer a model gives to extract_v2 for the
// whole thread (extract_v3 asks for alternatives besides, which the
// fixture does not score). They are written as a realistic model would answer, with
// the misses, extras, type confusions and differently worded facts such a
// model shows; they are a stub, not a measurement of any model.
func recordedAnswers(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/llm_recorded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			ThreadID string `json:"thread_id"`
			Answer   string `json:"answer"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.ThreadID] = r.Answer
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstMessageID finds the first message id of a rendered transcript.
var firstMessageID = regexp.MustCompile(`(?m)^\[(\S+) \d{4}-\d{2}-\d{2} \w{3}\] `)

// recordedModel is an httptest server speaking the OpenAI chat completions
// format that answers each extraction prompt with the recorded answer for
// the thread its first message belongs to.
func recordedModel(t *testing.T, ls []labelled) *httptest.Server {
	t.Helper()
	answers := recordedAnswers(t)
	threadOf := map[string]string{}
	for _, l := range ls {
		threadOf[l.Message.ID] = l.Message.ThreadID
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		m := firstMessageID.FindStringSubmatch(req.Messages[1].Content)
		answer, ok := "", false
		if m != nil {
			answer, ok = answers[threadOf[m[1]]]
		}
		if !ok {
			t.Errorf("no recorded answer for the transcript starting %q", m)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-recorded", "object": "chat.completion", "created": 1741570283, "model": "recorded",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestLLMRecordedQuality scores the LLM extractor on the labelled fixture
// against recorded answers (see recordedAnswers): what it measures is the
// prompt's answer format and the tolerant reading of it, end to end over
// the real wire format, not a model. Floors below the measured numbers
// make a regression in the reading fail.
//
// Threads without a recorded answer (the h3-* part, written after the
// recordings) are left out: a stub answer written for them would only
// repeat their labels.
func TestLLMRecordedQuality(t *testing.T) {
	answers := recordedAnswers(t)
	ls := slices.DeleteFunc(readLabelled(t), func(l labelled) bool {
		_, ok := answers[l.Message.ThreadID]
		return !ok
	})
	srv := recordedModel(t, ls)
	x := extract.NewLLM(openai.NewCompleter(openai.CompleterOptions{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "recorded"}),
		extract.LLMOptions{MaxCandidates: 100})
	tls := scoreExtractor(t, x, ls)
	all := newTally()
	for _, tl := range tls {
		all.merge(tl)
	}
	logTally(t, "all (recorded stub)", all)
	for i, tl := range tls {
		logTally(t, parts[i].name+" (recorded stub)", tl)
	}
	for _, x := range []struct {
		what       string
		got, floor float64
	}{
		{"item precision", all.items.precision(), 0.90}, {"item recall", all.items.recall(), 0.90},
		{"fact precision", all.facts.precision(), 0.90}, {"fact recall", all.facts.recall(), 0.90},
	} {
		if x.got < x.floor {
			t.Errorf("%s %.2f, want at least %.2f", x.what, x.got, x.floor)
		}
	}
	if o, d := all.owners, all.dues; o.right < o.stated || d.right < d.stated {
		t.Errorf("owners %d/%d, due dates %d/%d; want all that the answers state read", o.right, o.stated, d.right, d.stated)
	}
}
