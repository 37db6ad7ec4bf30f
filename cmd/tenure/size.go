package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag.Value for a size in bytes, written with a unit
// (512KiB, 10MiB, 1GiB; KB, MB and GB are powers of 1000) or as a bare
// number of bareUnit bytes.
type byteSize struct {
	n        int64
	bareUnit int64
}

// sizeUnits are the accepted suffixes, longest first for matching.
var sizeUnits = []struct {
	suffix string
	n      int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}

func (s *byteSize) Set(v string) error {
	num, unit := strings.TrimSpace(v), s.bareUnit
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = strings.TrimSpace(rest), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/unit {
		return fmt.Errorf("want a size such as 512KiB, 10MiB or 1GiB, got %q", v)
	}
	s.n = n * unit
	return nil
}

func (s *byteSize) String() string {
	if s == nil {
		return ""
	}
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s.n >= u.n && s.n%u.n == 0 {
			return strconv.FormatInt(s.n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(s.n, 10) + "B"
}
