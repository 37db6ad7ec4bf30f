package transcript_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/internal/golden"
	"github.com/tenure-dev/tenure/transcript"
)

// start dates the turns of exports without timestamps.
var start = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// fixture reads testdata/name.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parse reads data as format f, threads named "chat".
func parse(t *testing.T, f transcript.Format, data string) *transcript.Result {
	t.Helper()
	res, err := transcript.Parse(strings.NewReader(data), f, transcript.Options{Name: "chat", Start: start})
	if err != nil {
		t.Fatalf("parse %s: %v", f, err)
	}
	if len(res.Sources) != len(res.Messages) {
		t.Fatalf("%d sources for %d messages", len(res.Sources), len(res.Messages))
	}
	return res
}

// rendered is a Result as its golden file shows it.
type rendered struct {
	Format   transcript.Format    `json:"format"`
	Messages []renderedMessage    `json:"messages"`
	Problems []transcript.Problem `json:"problems"`
	Omitted  transcript.Omitted   `json:"omitted"`
}

type renderedMessage struct {
	tenure.Message
	From    string `json:"from"`
	Derived bool   `json:"derived_time,omitempty"`
}

func render(t *testing.T, res *transcript.Result) []byte {
	t.Helper()
	r := rendered{Format: res.Format, Problems: res.Problems, Omitted: res.Omitted}
	for i, m := range res.Messages {
		r.Messages = append(r.Messages, renderedMessage{m, res.Sources[i].String(), res.Sources[i].Derived})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFixtures reads every fixture in the format Detect tells, against
// its golden file.
func TestFixtures(t *testing.T) {
	for _, c := range []struct {
		file string
		want transcript.Format
	}{
		{"tenure.jsonl", transcript.JSONL},
		{"openai.json", transcript.OpenAI},
		{"messy.jsonl", transcript.OpenAI},
		{"sharegpt.json", transcript.OpenAI},
		{"chatgpt.json", transcript.OpenAI},
		{"anthropic.json", transcript.Anthropic},
		{"claude.json", transcript.Anthropic},
		{"longmemeval.json", transcript.LongMemEval},
	} {
		t.Run(c.file, func(t *testing.T) {
			data := fixture(t, c.file)
			d := transcript.Detect(data[:min(len(data), transcript.SniffLen)])
			if d.Format != c.want {
				t.Fatalf("Detect = %+v, want format %s", d, c.want)
			}
			golden.Check(t, c.file+".golden", render(t, parse(t, d.Format, string(data))))
		})
	}
}
