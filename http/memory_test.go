package http_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/internal/memtest"
)

// memoryChild marks the test binary run by TestSixCompilesUnderMemoryLimit.
const memoryChild = "TENURE_TEST_MEMORY_CHILD"

var peakRE = regexp.MustCompile(`peak-bytes (\d+)`)

// Six compilations at once, each touching a 1 MB stored corpus object,
// complete in a process held to a 1 GiB GOMEMLIMIT, and the heap stays
// below it. (Before compile memory was linear, each took about 4 GB.) The
// scenario runs in a child process, so that the limit and the
// measurement see nothing of the other tests.
func TestSixCompilesUnderMemoryLimit(t *testing.T) {
	if os.Getenv(memoryChild) != "" {
		sixCompiles(t)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process with a megabyte corpus")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSixCompilesUnderMemoryLimit$", "-test.v")
	cmd.Env = append(os.Environ(), memoryChild+"=1", "GOMEMLIMIT=1GiB", "GOGC=100")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := peakRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("child reported no peak:\n%s", out)
	}
	peak, _ := strconv.ParseUint(string(m[1]), 10, 64)
	if peak >= 1<<30 {
		t.Errorf("peak heap %.0f MB, want under the 1 GiB limit", memtest.MiB(peak))
	}
	t.Logf("six concurrent compiles over a 1 MB object: peak heap %.0f MB", memtest.MiB(peak))
}

// sixCompiles is the child's side: a server over a store holding a 1 MB
// corpus object, six POST /v1/compile at once.
func sixCompiles(t *testing.T) {
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Fatalf("GOMEMLIMIT is %d, want 1 GiB", got)
	}
	e := newEnv(t, func(o *tenurehttp.ServerOptions) { o.Compiles = admit.New("compilations", 6) })
	words := []string{"invoice", "refund", "ledger", "customer", "quarter", "revenue", "audit", "payment", "contract", "region"}
	var b strings.Builder
	for i := 0; b.Len() < 1_000_000-200; i++ {
		fmt.Fprintf(&b, "%s %s %d %s. ", words[i%10], words[(i*7)%10], i, words[(i*3)%10])
		if i%6 == 5 {
			b.WriteString("\n\n")
		}
	}
	w, err := e.store.Put(context.Background(), aliceP, tenure.Object{Key: "kb.corpus", Content: b.String(), Layer: tenure.LayerCorpus,
		SourceOrigin: "https://kb.example/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"query":"refund for the invoice in the ledger","budget":4000}`
	// The warm-up loads the tokenizer, and shows the object is compiled
	// from: its subunits are in the trace.
	if r := e.call("POST", "/v1/compile?trace=true", e.alice, body); r.status != 200 || !strings.Contains(r.body, w.Object.ObjectID+"#1") {
		t.Fatalf("warm-up compile: %d, trace without the corpus's subunits: %.300s", r.status, r.body)
	}
	statuses := make([]int, 6)
	base, peak := memtest.Peak(func() {
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.call("POST", "/v1/compile", e.alice, body).status
			}()
		}
		wg.Wait()
	})
	for i, s := range statuses {
		if s != 200 {
			t.Errorf("compile %d: %d, want 200", i, s)
		}
	}
	fmt.Printf("base-bytes %d peak-bytes %d\n", base, peak)
}
