package main

import (
	"os"
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

// newBar returns a progress bar of n steps on f, or nil when f is nil.
func newBar(f *os.File, n int, what string, opts ...progressbar.Option) *progressbar.ProgressBar {
	if f == nil {
		return nil
	}
	opts = append([]progressbar.Option{progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish()}, opts...)
	return progressbar.NewOptions(n, opts...)
}
