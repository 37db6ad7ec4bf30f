package retrieve_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/retrieve"
)

func hashEmbed(t *testing.T, e *retrieve.HashEmbedder, texts ...string) [][]float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if len(v) != e.Dimensions() {
			t.Fatalf("vector %d has %d dimensions, want %d", i, len(v), e.Dimensions())
		}
	}
	return vs
}

func TestNewHashEmbedder(t *testing.T) {
	cases := []struct {
		dim     int
		wantDim int
		name    string
	}{
		{0, 384, "hash-ngram-384"},
		{-5, 384, "hash-ngram-384"},
		{64, 64, "hash-ngram-64"},
		{1024, 1024, "hash-ngram-1024"},
	}
	for _, c := range cases {
		e := retrieve.NewHashEmbedder(c.dim)
		if got := e.Dimensions(); got != c.wantDim {
			t.Errorf("NewHashEmbedder(%d).Dimensions() = %d, want %d", c.dim, got, c.wantDim)
		}
		if got := e.Name(); got != c.name {
			t.Errorf("NewHashEmbedder(%d).Name() = %q, want %q", c.dim, got, c.name)
		}
	}
}

// TestHashEmbedderDeterministic checks that a vector depends on nothing but
// the text and dimension: not the instance, the call, or the batch.
func TestHashEmbedderDeterministic(t *testing.T) {
	texts := []string{"the cat sat on the mat", "Quarterly revenue grew 12%", "日本語のテキスト", ""}
	a := hashEmbed(t, retrieve.NewHashEmbedder(0), texts...)
	b := hashEmbed(t, retrieve.NewHashEmbedder(384), texts...)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two embedders disagree (-first +second):\n%s", diff)
	}
	for i, text := range texts {
		one := hashEmbed(t, retrieve.NewHashEmbedder(0), text)
		if diff := cmp.Diff(a[i], one[0]); diff != "" {
			t.Errorf("%q embedded alone differs from in a batch:\n%s", text, diff)
		}
	}
	// Pin a few components so a change to the hashing scheme, which would
	// silently invalidate stored vectors, is a deliberate one.
	v := hashEmbed(t, retrieve.NewHashEmbedder(8), "cat")[0]
	// "cat" has 7 features: the word, <ca cat at>, <cat cat>, <cat>.
	want := []float32{0, 0, 0, -0.37796447, 0.37796447, 0, -0.75592893, -0.37796447}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("Embed(\"cat\") at 8 dimensions changed (-want +got):\n%s", diff)
	}
}

func TestHashEmbedderSimilarity(t *testing.T) {
	e := retrieve.NewHashEmbedder(0)
	cos := func(a, b string) float32 {
		vs := hashEmbed(t, e, a, b)
		return retrieve.Cosine(vs[0], vs[1])
	}
	cases := []struct {
		name              string
		anchor, near, far string
	}{
		{"Paraphrase", "the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew by ten percent"},
		{"Typo", "reconciliation of conflicting claims", "reconcilation of conflicting claim", "the weather in Lisbon is sunny"},
		{"Inflection", "she moved to Berlin", "moving to berlin", "he plays the violin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			near, far := cos(c.anchor, c.near), cos(c.anchor, c.far)
			t.Logf("near %.3f, far %.3f", near, far)
			if near <= far {
				t.Errorf("cos(%q, %q) = %.3f, not above cos(%q, %q) = %.3f", c.anchor, c.near, near, c.anchor, c.far, far)
			}
			if near < 0.3 {
				t.Errorf("cos(%q, %q) = %.3f, want a clearly related score (≥ 0.3)", c.anchor, c.near, near)
			}
		})
	}
	t.Run("CaseAndSpacing", func(t *testing.T) {
		vs := hashEmbed(t, e, "The  CAT\tsat,\non the mat!", "the cat sat on the mat")
		if diff := cmp.Diff(vs[0], vs[1]); diff != "" {
			t.Errorf("case, punctuation and whitespace changed the vector:\n%s", diff)
		}
	})
}

func TestHashEmbedderUnitNorm(t *testing.T) {
	e := retrieve.NewHashEmbedder(0)
	for i, v := range hashEmbed(t, e, "a", "the cat sat on the mat", "x y z 1 2 3", "お誕生日おめでとう", "naïve café") {
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(sum)-1) > 1e-5 {
			t.Errorf("vector %d has norm %v, want 1", i, math.Sqrt(sum))
		}
	}
}

func TestHashEmbedderEmpty(t *testing.T) {
	e := retrieve.NewHashEmbedder(0)
	other := hashEmbed(t, e, "the cat sat on the mat")[0]
	for _, text := range []string{"", "   \n\t", "!!! ... ???", "\xff\xfe"} {
		v := hashEmbed(t, e, text)[0]
		for i, x := range v {
			if x != 0 {
				t.Fatalf("Embed(%q)[%d] = %v, want the zero vector", text, i, x)
			}
		}
		for _, c := range []float32{retrieve.Cosine(v, other), retrieve.Cosine(other, v), retrieve.Cosine(v, v)} {
			if c != 0 {
				t.Errorf("Cosine with the zero vector of %q = %v, want 0", text, c)
			}
		}
	}
	vs, err := e.Embed(context.Background(), nil)
	if err != nil || len(vs) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want no vectors and no error", vs, err)
	}
}

func TestHashEmbedderContext(t *testing.T) {
	e := retrieve.NewHashEmbedder(0)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), -1)
	defer cancel2()
	cases := []struct {
		name string
		ctx  context.Context
		code tenure.Code
	}{
		{"ErrCanceled", canceled, tenure.CodeUnavailable},
		{"ErrDeadline", expired, tenure.CodeTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs, err := e.Embed(c.ctx, []string{"a"})
			if err == nil {
				t.Fatalf("Embed = %v, want an error", vs)
			}
			if got := tenure.ErrorCode(err); got != c.code {
				t.Errorf("error code = %s, want %s (%v)", got, c.code, err)
			}
		})
	}
}

func TestCosine(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"Identical", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"Scaled", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"Opposite", []float32{1, 0}, []float32{-1, 0}, -1},
		{"Orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"Zero", []float32{0, 0}, []float32{1, 0}, 0},
		{"Nil", nil, nil, 0},
		{"LengthMismatch", []float32{1, 0}, []float32{1, 0, 0}, 0},
		{"NaN", []float32{nan, 1}, []float32{1, 1}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := retrieve.Cosine(c.a, c.b)
			if math.Abs(float64(got-c.want)) > 1e-6 || math.IsNaN(float64(got)) {
				t.Errorf("Cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}

func ExampleHashEmbedder() {
	e := retrieve.NewHashEmbedder(0)
	vs, err := e.Embed(context.Background(), []string{
		"the cat sat on the mat",
		"a cat sat on a mat",
		"quarterly revenue grew by ten percent",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Name())
	fmt.Printf("related:   %.2f\n", retrieve.Cosine(vs[0], vs[1]))
	fmt.Printf("unrelated: %.2f\n", retrieve.Cosine(vs[0], vs[2]))
	// Output:
	// hash-ngram-384
	// related:   0.66
	// unrelated: -0.04
}

func BenchmarkHashEmbed(b *testing.B) {
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = fmt.Sprintf("user %d prefers dark mode and replies in short sentences about project %d", i, i%7)
	}
	e := retrieve.NewHashEmbedder(0)
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}
