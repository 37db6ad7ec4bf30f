package summarize_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// loadMessages reads a JSONL fixture of messages.
func loadMessages(t testing.TB, name string) []tenure.Message {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var msgs []tenure.Message
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m tenure.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		msgs = append(msgs, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return msgs
}

var t0 = time.Date(2024, 5, 8, 18, 0, 0, 0, time.UTC)

// conv builds a conversation from alternating (speaker, content) pairs, all
// user messages one minute apart.
func conv(pairs ...string) []tenure.Message {
	var msgs []tenure.Message
	for i := 0; i+1 < len(pairs); i += 2 {
		msgs = append(msgs, tenure.Message{ThreadID: "t", ID: string(rune('a' + i/2)), Role: "user",
			Speaker: pairs[i], Content: pairs[i+1], CreatedAt: t0.Add(time.Duration(i/2) * time.Minute)})
	}
	return msgs
}

// wantCode fails unless err is a *tenure.Error with code want.
func wantCode(t *testing.T, err error, want tenure.Code) {
	t.Helper()
	var e *tenure.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T): want a *tenure.Error with code %s", err, err, want)
	}
	if e.Code != want {
		t.Fatalf("code %s (%v): want %s", e.Code, err, want)
	}
}
