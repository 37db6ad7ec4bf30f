package retrieve_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/tenure-dev/tenure/retrieve"
)

// A server fed arbitrary words must not grow the stem cache without end,
// and stemming stays right once the cache is full.
func TestStemCacheBounded(t *testing.T) {
	for i := range retrieve.MaxCachedStems + 1000 {
		retrieve.Stem("qz" + strconv.Itoa(i) + "ings")
	}
	if n := retrieve.CachedStems(); n > retrieve.MaxCachedStems {
		t.Fatalf("%d stems cached, bound is %d", n, retrieve.MaxCachedStems)
	}
	for w, want := range map[string]string{"swimmingly": "swim", "connections": "connect", "2023": "2023"} {
		if got := retrieve.Stem(w); got != want {
			t.Errorf("Stem(%q) = %q after the cache filled, want %q", w, got, want)
		}
	}
}

// A cached stem must not keep the text its word was sliced from alive: a
// megabyte document would otherwise stay in memory for the server's life.
func TestStemCacheKeepsNoText(t *testing.T) {
	if retrieve.CachedStems() >= retrieve.MaxCachedStems {
		t.Skip("stem cache already full")
	}
	text := strings.Repeat("filler ", 1<<17) + "unforgettablenesses"
	gone := weak.Make(unsafe.StringData(text))
	retrieve.Terms(text)
	text = ""
	runtime.GC()
	if gone.Value() != nil {
		t.Error("the stem cache keeps the analyzed text alive")
	}
}
