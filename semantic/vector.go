package semantic

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// Hash identifies a text sent for embedding within its audience.
type Hash [sha256.Size]byte

// HashText returns the hash of a text of a message of the tenant and the
// user ("" for the tenant's shared messages): the SHA-256 of the three.
// The audience is part of it so that no vector is shared — and no
// "already embedded" observed — between messages different readers read.
func HashText(tenant, user, text string) Hash {
	h := sha256.New()
	for _, s := range []string{tenant, user} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write([]byte(text))
	return Hash(h.Sum(nil))
}

// Normalize scales v to unit length in place and returns it; the zero
// vector stays zero.
func Normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	s := 1 / math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) * s)
	}
	return v
}

// Dot returns the dot product of two vectors of one length (0 when their
// lengths differ): the cosine similarity of unit vectors.
func Dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// Encode returns v as a BLOB: little-endian float32s.
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Decode reads a vector written by Encode into dst (reused when it has
// the capacity) and returns it; false when b is no whole number of
// float32s.
func Decode(dst []float32, b []byte) ([]float32, bool) {
	if len(b)%4 != 0 {
		return nil, false
	}
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst, true
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
