package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressOut returns standard error when progress should be shown on it:
// only on a terminal (bars are for people, not for logs and pipes) and
// unless the user turned it off.
func progressOut(sio stdio, off bool) *os.File {
	f, ok := sio.err.(*os.File)
	if off || !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}

// progressDelay is how long a run goes before it shows a bar: anything
// shorter would only flash one.
const progressDelay = time.Second

// progress shows a bar of n steps on f once the run has taken
// progressDelay, with the rate computed over the whole run (a bar fed in
// chunks would otherwise divide a chunk by the microseconds since the last
// one). A nil progress (f nil) does nothing.
type progress struct {
	mu    sync.Mutex
	f     *os.File
	n     int
	what  string
	unit  string
	start time.Time
	now   func() time.Time
	bar   *progressbar.ProgressBar
}

// newProgress returns a progress of n steps counted in units, or nil when
// f is nil.
func newProgress(f *os.File, n int, what, unit string) *progress {
	if f == nil {
		return nil
	}
	return &progress{f: f, n: n, what: what, unit: unit, start: time.Now(), now: time.Now}
}

// Set reports that done steps are complete.
func (p *progress) Set(done int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.start)
	if p.bar == nil {
		if elapsed < progressDelay {
			return
		}
		p.bar = progressbar.NewOptions(p.n, progressbar.OptionSetWriter(p.f), progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish(), progressbar.OptionSetPredictTime(true))
	}
	p.bar.Describe(fmt.Sprintf("%s (%s)", p.what, rate(done, elapsed, p.unit)))
	_ = p.bar.Set(done)
}

// SetOf reports that done of total steps are complete, for a run that
// learns its total as it goes.
func (p *progress) SetOf(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.n = total
	if p.bar != nil {
		p.bar.ChangeMax(total)
	}
	p.mu.Unlock()
	p.Set(done)
}

// Finish clears the bar.
func (p *progress) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// rate formats done steps over elapsed as a per-second rate.
func rate(done int, elapsed time.Duration, unit string) string {
	if elapsed <= 0 {
		return "… " + unit + "/s"
	}
	r := float64(done) / elapsed.Seconds()
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f %s/s", r, unit)
	case r >= 1:
		return fmt.Sprintf("%.1f %s/s", r, unit)
	}
	return fmt.Sprintf("%.2f %s/s", r, unit)
}
