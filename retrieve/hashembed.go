package retrieve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/tenure-dev/tenure"
)

// DefaultHashDimensions is the HashEmbedder dimension used when none is
// given. 384 matches small sentence-embedding models, so stores sized for
// one fit the other.
const DefaultHashDimensions = 384

// Character n-gram sizes. 3-5 grams of a word with boundary markers catch
// shared stems, inflections and typos ("reconcile", "reconciled",
// "reconcilation") that whole-word features miss.
const (
	hashMinGram = 3
	hashMaxGram = 5
)

// HashEmbedder is a deterministic, dependency-free embedder. Each text is
// lowercased and split into words (runs of letters, digits and combining
// marks); every word contributes a hashed unigram feature and the hashed
// 3-5 character n-grams of "<word>". Features are FNV-1a hashed into
// Dimensions() buckets with a hash-derived sign, so collisions cancel out on
// average instead of piling up, and the result is L2-normalised.
//
// Vectors depend only on the text and the dimension: they are identical
// across runs, processes and platforms, which keeps rankings and golden
// files stable. A HashEmbedder is safe for concurrent use.
type HashEmbedder struct {
	dim int
}

// NewHashEmbedder returns a HashEmbedder producing dim-dimensional vectors;
// dim ≤ 0 means DefaultHashDimensions.
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = DefaultHashDimensions
	}
	return &HashEmbedder{dim: dim}
}

// Dimensions returns the length of every vector Embed returns.
func (e *HashEmbedder) Dimensions() int { return e.dim }

// Name identifies the embedding space, e.g. "hash-ngram-384". Vectors from
// embedders with different names must not be compared.
func (e *HashEmbedder) Name() string { return "hash-ngram-" + strconv.Itoa(e.dim) }

// Embed returns one unit-length vector per text, in order. A text with no
// letters or digits gets the zero vector, which Cosine scores 0 against
// anything. Embed does no I/O; it returns a CodeTimeout or CodeUnavailable
// error only when ctx ends before all texts are embedded.
func (e *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("hash embed: %w", embedContextError(err))
		}
		out[i] = e.embed(text)
	}
	return out, nil
}

func (e *HashEmbedder) embed(text string) []float32 {
	v := make([]float32, e.dim)
	var buf []byte // "<word>", reused across words
	var starts []int
	for _, w := range strings.FieldsFunc(strings.ToLower(text), notHashWordRune) {
		hashFeature(v, 'w', w)

		buf = append(append(append(buf[:0], '<'), w...), '>')
		starts = starts[:0]
		for i := range string(buf) {
			starts = append(starts, i)
		}
		starts = append(starts, len(buf))
		runes := len(starts) - 1
		for n := hashMinGram; n <= hashMaxGram && n <= runes; n++ {
			for i := 0; i+n <= runes; i++ {
				hashFeature(v, byte('0'+n), buf[starts[i]:starts[i+n]])
			}
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return v
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return v
}

// hashFeature adds one feature to v. The kind byte keeps a word and an
// n-gram with the same spelling ("cat" the word, "cat" the 3-gram) apart.
// It is generic so n-grams hash straight from the word buffer, unallocated.
func hashFeature[T string | []byte](v []float32, kind byte, feature T) {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	h ^= uint64(kind)
	h *= prime64
	for i := 0; i < len(feature); i++ {
		h ^= uint64(feature[i])
		h *= prime64
	}
	// FNV-1a's low bits are weak for short inputs; a murmur3 finaliser
	// spreads every input bit before the bucket and sign are taken.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	if h>>63 == 0 {
		v[h%uint64(len(v))]++
	} else {
		v[h%uint64(len(v))]--
	}
}

func notHashWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
}

// Cosine returns the cosine similarity of a and b in [-1, 1]. It returns 0
// when either vector is zero, when their lengths differ (vectors from
// different embedding spaces are unrelated, not an error worth failing a
// ranking over) or when the result is not finite, so callers never see NaN.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	c := dot / math.Sqrt(na*nb)
	switch {
	case math.IsNaN(c) || math.IsInf(c, 0):
		return 0
	case c > 1:
		return 1
	case c < -1:
		return -1
	}
	return float32(c)
}

// embedContextError turns a context error into Tenure's codes, as the
// engine does.
func embedContextError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &tenure.Error{Code: tenure.CodeTimeout, Message: "deadline exceeded", Err: err}
	}
	return &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
}
