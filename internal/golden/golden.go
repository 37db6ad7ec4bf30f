// Package golden compares what a test produced with a file under the
// test's testdata directory, and rewrites the file when the test runs
// with -update. Every package whose tests use golden files shares it, so
// the flag and the comparison are defined once.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with testdata/name, or writes it there with -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; run go test -update if intended):\n%s", name, diff)
	}
}
