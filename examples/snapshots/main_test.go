package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/run.golden")

// TestRun runs the three agents against a server to convergence and
// compares what the example prints with testdata/run.golden.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--workflow", "orders"}, &out); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "run.golden")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("output differs from testdata/run.golden (-want +got):\n%s", diff)
	}
}

func TestRunNeedsKeysWithServer(t *testing.T) {
	if err := run(context.Background(), []string{"--server", "http://127.0.0.1:1"}, &bytes.Buffer{}); err == nil {
		t.Fatal("ran against a server without keys")
	}
}
