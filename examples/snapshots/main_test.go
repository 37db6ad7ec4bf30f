package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/tenure-dev/tenure/internal/golden"
)

// TestRun runs the three agents against a server to convergence and
// compares what the example prints with testdata/run.golden.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--workflow", "orders"}, &out); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "run.golden", out.Bytes())
}

func TestRunNeedsKeysWithServer(t *testing.T) {
	if err := run(context.Background(), []string{"--server", "http://127.0.0.1:1"}, &bytes.Buffer{}); err == nil {
		t.Fatal("ran against a server without keys")
	}
}
