package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "bar"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clock := time.Unix(0, 0)
	p := newProgress(f, 60000, "ingest", "msg")
	p.start, p.now = clock, func() time.Time { return clock }
	clock = clock.Add(300 * time.Millisecond)
	p.Set(500)
	if p.bar != nil {
		t.Fatal("a bar after 0.3 s: short runs should not flash one")
	}
	clock = clock.Add(1700 * time.Millisecond)
	p.Set(40000) // chunks jump: the rate is over the whole run
	if p.bar == nil {
		t.Fatal("no bar after 2 s")
	}
	p.Finish()
	out, _ := os.ReadFile(f.Name())
	if !strings.Contains(string(out), "20000 msg/s") {
		t.Errorf("bar shows %q, want the whole run's rate 20000 msg/s", out)
	}
	var none *progress
	none.Set(1) // a nil progress is a no-op
	none.Finish()
	for _, c := range []struct {
		done int
		d    time.Duration
		want string
	}{{5, 2 * time.Second, "2.5 msg/s"}, {1, 4 * time.Second, "0.25 msg/s"}, {0, 0, "… msg/s"}} {
		if got := rate(c.done, c.d, "msg"); got != c.want {
			t.Errorf("rate(%d, %s) = %q, want %q", c.done, c.d, got, c.want)
		}
	}
}
