package tenure_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusPath is the prompt-injection corpus that tests of the envelope
// renderers feed through every slot that holds text the operator did not
// write. See testdata/adversarial/README.md.
const corpusPath = "testdata/adversarial/payloads.json"

// corpusCanary is the placeholder a test replaces with a unique word per
// payload, to find where the payload landed in a rendered envelope.
const corpusCanary = "{{CANARY}}"

// corpusCategories are the corpus's categories; each must hold at least
// ten payloads.
var corpusCategories = []string{
	"override", "heading", "rule", "role", "fence", "lookalike", "invisible",
	"linebreak", "encoding", "multiline", "exfil", "burial", "speaker", "mixed",
}

type corpusPayload struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Text     string `json:"text"`
	Note     string `json:"note"`
}

var corpusID = regexp.MustCompile(`^([a-z]+)-([0-9]{3})$`)

func TestAdversarialCorpus(t *testing.T) {
	raw, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(raw) {
		t.Fatalf("%s is not valid UTF-8", corpusPath)
	}
	// Non-ASCII and invisible characters are written as JSON escapes, so
	// the file reads the same in any editor and every look-alike shows.
	for i, b := range raw {
		if b != '\n' && (b < 0x20 || b > 0x7e) {
			t.Fatalf("byte %d of %s is %#x, want printable ASCII (write it as a \\u escape)", i, corpusPath, b)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var payloads []corpusPayload
	if err := dec.Decode(&payloads); err != nil {
		t.Fatalf("decode %s: %v", corpusPath, err)
	}
	if dec.More() {
		t.Fatalf("%s: data after the array", corpusPath)
	}
	if len(payloads) < 240 {
		t.Errorf("%d payloads, want at least 240", len(payloads))
	}

	known := map[string]bool{}
	for _, c := range corpusCategories {
		known[c] = true
	}
	perCategory := map[string]int{}
	seen := map[string]bool{}
	for i, p := range payloads {
		m := corpusID.FindStringSubmatch(p.ID)
		switch {
		case m == nil:
			t.Errorf("payload %d: id %q, want <category>-<nnn>", i, p.ID)
		case m[1] != p.Category:
			t.Errorf("%s: category %q, want %q as its id says", p.ID, p.Category, m[1])
		}
		if seen[p.ID] {
			t.Errorf("%s: id used twice", p.ID)
		}
		seen[p.ID] = true
		if !known[p.Category] {
			t.Errorf("%s: unknown category %q", p.ID, p.Category)
		}
		perCategory[p.Category]++

		if !strings.Contains(p.Text, corpusCanary) {
			t.Errorf("%s: text has no %s", p.ID, corpusCanary)
		}
		limit := 20 << 10
		if p.Category == "burial" {
			limit = 60 << 10
		}
		if len(p.Text) > limit {
			t.Errorf("%s: text is %d bytes, want at most %d", p.ID, len(p.Text), limit)
		}
		// The decoder turns a lone surrogate escape into U+FFFD.
		if !utf8.ValidString(p.Text) || strings.ContainsRune(p.Text, utf8.RuneError) {
			t.Errorf("%s: text is not valid UTF-8 (a lone surrogate escape?)", p.ID)
		}
		if p.Note == "" || strings.ContainsAny(p.Note, "\r\n") {
			t.Errorf("%s: note %q, want one non-empty line", p.ID, p.Note)
		}
	}
	for _, c := range corpusCategories {
		if perCategory[c] < 10 {
			t.Errorf("category %s: %d payloads, want at least 10", c, perCategory[c])
		}
	}
}
