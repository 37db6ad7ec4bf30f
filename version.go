package tenure

import (
	"runtime/debug"
	"sync"
)

// Version returns the running build's version: the module version (or
// "devel" for a build from a checkout) and, when the build recorded it,
// the VCS revision and whether the tree was modified, e.g.
// "devel+3f2a9c1e7b4d" or "v0.4.0+3f2a9c1e7b4d-dirty".
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += "+" + rev + dirty
	}
	return v
})
