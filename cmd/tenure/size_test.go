package main

import "testing"

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		bare int64
		want int64
		str  string
	}{
		{"10MiB", 1, 10 << 20, "10MiB"},
		{"512KiB", 1, 512 << 10, "512KiB"},
		{"1GiB", 1, 1 << 30, "1GiB"},
		{"2MB", 1, 2_000_000, "2000000B"},
		{"1500", 1, 1500, "1500B"},
		{"16", 1 << 20, 16 << 20, "16MiB"},
		{"64 KiB", 1, 64 << 10, "64KiB"},
		{"0", 1, 0, "0B"},
	} {
		s := byteSize{bareUnit: tc.bare}
		if err := s.Set(tc.in); err != nil || s.n != tc.want || s.String() != tc.str {
			t.Errorf("Set(%q) = %d %q, %v; want %d %q", tc.in, s.n, s.String(), err, tc.want, tc.str)
		}
	}
	for _, bad := range []string{"", "ten", "-1MiB", "5TiB", "2GiBs", "99999999GiB"} {
		s := byteSize{bareUnit: 1}
		if err := s.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, s.n)
		}
	}
}
