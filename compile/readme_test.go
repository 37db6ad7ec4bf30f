package compile_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tenure-dev/tenure/compile"
)

// TestREADMEOmitReasons checks that the README's list of the reasons a
// candidate is omitted, in its trace paragraph, is every reason and
// nothing else.
func TestREADMEOmitReasons(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	const intro = "every omitted candidate with its reason ("
	_, rest, ok := strings.Cut(text, intro)
	list, _, closed := strings.Cut(rest, ")")
	if !ok || !closed {
		t.Fatalf("README.md has no list starting %q", intro)
	}
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(list, -1) {
		listed = append(listed, m[1])
	}
	for _, r := range compile.OmitReasons {
		if !slices.Contains(listed, string(r)) {
			t.Errorf("README.md's omission reasons lack %q", r)
		}
	}
	for _, r := range listed {
		if !slices.Contains(compile.OmitReasons, compile.OmitReason(r)) {
			t.Errorf("README.md lists %q, which is no omission reason", r)
		}
	}
}
