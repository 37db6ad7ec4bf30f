package tokenizer_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/tokenizer"
)

var encodingNames = []string{tokenizer.CL100KBase, tokenizer.O200KBase}

// TestMain makes any attempt to fetch rank files fail: tiktoken-go's default
// loader downloads over http.DefaultTransport unless a cached copy sits in
// TIKTOKEN_CACHE_DIR. If the package ever stopped installing the embedded
// loader, every test below would fail instead of quietly using the network.
func TestMain(m *testing.M) {
	http.DefaultTransport = noNetwork{}
	dir, err := os.MkdirTemp("", "tiktoken-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TIKTOKEN_CACHE_DIR", dir)
	os.Setenv("DATA_GYM_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type noNetwork struct{}

func (noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, errors.New("tokenizer tests must not use the network: " + r.URL.String())
}

func mustNew(tb testing.TB, name string) *tokenizer.Tokenizer {
	tb.Helper()
	tk, err := tokenizer.New(name)
	if err != nil {
		tb.Fatalf("New(%q): %v", name, err)
	}
	return tk
}

type reference struct {
	S    string `json:"s"`
	File string `json:"file"`
	CL   []int  `json:"cl100k_base"`
	O200 []int  `json:"o200k_base"`
}

func (r reference) ids(name string) []int {
	if name == tokenizer.CL100KBase {
		return r.CL
	}
	return r.O200
}

// loadReference reads testdata/reference.jsonl, token ids produced by
// OpenAI's tiktoken (see testdata/reference.cjs).
func loadReference(tb testing.TB) []reference {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "reference.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var refs []reference
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r reference
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("reference line %d: %v", len(refs)+1, err)
		}
		if r.File != "" {
			r.S = readFile(tb, r.File)
		}
		refs = append(refs, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(refs) == 0 {
		tb.Fatal("empty reference file")
	}
	return refs
}

func readFile(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func label(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	return fmt.Sprintf("%q", s)
}

func TestNew(t *testing.T) {
	for _, name := range encodingNames {
		t.Run("OK/"+name, func(t *testing.T) {
			tk := mustNew(t, name)
			if got := tk.Name(); got != name {
				t.Errorf("Name() = %q, want %q", got, name)
			}
		})
	}
	t.Run("ErrUnknown", func(t *testing.T) {
		for _, name := range []string{"", "p50k_base", "CL100K_BASE", "gpt-4o"} {
			tk, err := tokenizer.New(name)
			if tk != nil || err == nil {
				t.Fatalf("New(%q) = %v, %v; want an error", name, tk, err)
			}
			var te *tenure.Error
			if !errors.As(err, &te) || te.Code != tenure.CodeInvalid || te.Field != "tokenizer" {
				t.Errorf("New(%q) error = %#v, want code invalid, field tokenizer", name, err)
			}
			for _, allowed := range encodingNames {
				if !strings.Contains(err.Error(), allowed) {
					t.Errorf("New(%q) error %q does not list %q", name, err, allowed)
				}
			}
		}
	})
}

// TestNewIsCheapAfterFirst checks that encodings are cached process-wide:
// a later New allocates only the Tokenizer itself, where a reload would
// allocate hundreds of thousands of map entries.
func TestNewIsCheapAfterFirst(t *testing.T) {
	for _, name := range encodingNames {
		mustNew(t, name)
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := tokenizer.New(name); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 2 {
			t.Errorf("New(%q) after the first call: %v allocs, want ≤ 2", name, allocs)
		}
	}
}

func TestForModel(t *testing.T) {
	cases := []struct{ model, want string }{
		{"gpt-4o", tokenizer.O200KBase},
		{"gpt-4o-mini", tokenizer.O200KBase},
		{"gpt-4o-2024-08-06", tokenizer.O200KBase},
		{"chatgpt-4o-latest", tokenizer.O200KBase},
		{"gpt-4.1", tokenizer.O200KBase},
		{"gpt-4.1-nano", tokenizer.O200KBase},
		{"gpt-4.5-preview", tokenizer.O200KBase},
		{"gpt-5", tokenizer.O200KBase},
		{"o1", tokenizer.O200KBase},
		{"o1-mini", tokenizer.O200KBase},
		{"o3-mini", tokenizer.O200KBase},
		{"o4-mini", tokenizer.O200KBase},
		{"openai/gpt-4o", tokenizer.O200KBase},
		{"GPT-4O", tokenizer.O200KBase},
		{"gpt-4", tokenizer.CL100KBase},
		{"gpt-4-turbo", tokenizer.CL100KBase},
		{"gpt-4-0613", tokenizer.CL100KBase},
		{"gpt-3.5-turbo", tokenizer.CL100KBase},
		{"gpt-3.5-turbo-0125", tokenizer.CL100KBase},
		{"gpt-35-turbo", tokenizer.CL100KBase},
		{"text-embedding-3-small", tokenizer.CL100KBase},
		{"text-embedding-3-large", tokenizer.CL100KBase},
		{"text-embedding-ada-002", tokenizer.CL100KBase},
		{"claude-sonnet-4-5", tokenizer.CL100KBase},
		{"anthropic/claude-3-5-haiku-latest", tokenizer.CL100KBase},
	}
	for _, c := range cases {
		t.Run("OK/"+c.model, func(t *testing.T) {
			tk, err := tokenizer.ForModel(c.model)
			if err != nil {
				t.Fatalf("ForModel(%q): %v", c.model, err)
			}
			if got := tk.Name(); got != c.want {
				t.Errorf("ForModel(%q).Name() = %q, want %q", c.model, got, c.want)
			}
		})
	}
	for _, model := range []string{"", "llama3", "o10", "gpt-40", "gpt-4oo", "o1x", "claudette"} {
		t.Run("ErrUnknown/"+model, func(t *testing.T) {
			tk, err := tokenizer.ForModel(model)
			if err == nil {
				t.Fatalf("ForModel(%q) = %s, want an error", model, tk.Name())
			}
			if code, field := tenure.ErrorCode(err), tenure.ErrorField(err); code != tenure.CodeInvalid || field != "model" {
				t.Errorf("ForModel(%q) error code/field = %s/%s, want invalid/model", model, code, field)
			}
		})
	}
}

// TestReference compares ids, counts and round trips with OpenAI's tiktoken.
func TestReference(t *testing.T) {
	refs := loadReference(t)
	for _, name := range encodingNames {
		tk := mustNew(t, name)
		for _, r := range refs {
			t.Run(name+"/"+label(r.S), func(t *testing.T) {
				want := r.ids(name)
				if len(want) == 0 {
					t.Fatal("reference has no ids; rerun testdata/reference.cjs")
				}
				if diff := cmp.Diff(want, tk.Encode(r.S)); diff != "" {
					t.Errorf("Encode mismatch (-tiktoken +got):\n%s", diff)
				}
				if got := tk.Count(r.S); got != len(want) {
					t.Errorf("Count = %d, want %d", got, len(want))
				}
				if got := tk.Decode(want); got != r.S {
					t.Errorf("Decode(reference ids) = %q, want %q", got, r.S)
				}
			})
		}
	}
}

func TestWellKnownCounts(t *testing.T) {
	cases := []struct {
		name, s string
		want    int
	}{
		{tokenizer.CL100KBase, "hello world", 2},
		{tokenizer.O200KBase, "hello world", 2},
		{tokenizer.CL100KBase, "tiktoken is great!", 6},
		{tokenizer.O200KBase, "tiktoken is great!", 6},
		{tokenizer.CL100KBase, "", 0},
		{tokenizer.O200KBase, "", 0},
	}
	for _, c := range cases {
		if got := mustNew(t, c.name).Count(c.s); got != c.want {
			t.Errorf("%s Count(%q) = %d, want %d", c.name, c.s, got, c.want)
		}
	}
}

// TestSpecialTokensAreText checks that special-token text is counted as the
// ordinary text it is and never as (or panicking on) a control token.
func TestSpecialTokensAreText(t *testing.T) {
	special := map[string][]int{
		tokenizer.CL100KBase: {100257, 100258, 100259, 100260, 100276},
		tokenizer.O200KBase:  {199999, 200018},
	}
	inputs := []string{"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>", "a<|endoftext|>b"}
	for _, name := range encodingNames {
		tk := mustNew(t, name)
		for _, s := range inputs {
			ids := tk.Encode(s)
			if len(ids) < 2 {
				t.Errorf("%s Encode(%q) = %v, want the text split into ordinary tokens", name, s, ids)
			}
			for _, id := range ids {
				for _, sp := range special[name] {
					if id == sp {
						t.Errorf("%s Encode(%q) = %v contains special token %d", name, s, ids, sp)
					}
				}
			}
			if got := tk.Decode(ids); got != s {
				t.Errorf("%s Decode(Encode(%q)) = %q", name, s, got)
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	for _, name := range encodingNames {
		tk := mustNew(t, name)
		if got := tk.Encode(""); len(got) != 0 {
			t.Errorf("%s Encode(\"\") = %v, want none", name, got)
		}
		if got := tk.Decode(nil); got != "" {
			t.Errorf("%s Decode(nil) = %q, want \"\"", name, got)
		}
		if got := tk.Truncate("", 10); got != "" {
			t.Errorf("%s Truncate(\"\", 10) = %q, want \"\"", name, got)
		}
	}
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		name string
		s    string
		max  int
		want string
	}{
		{tokenizer.CL100KBase, "hello world", 1, "hello"},
		{tokenizer.O200KBase, "hello world", 1, "hello"},
		{tokenizer.CL100KBase, "hello world", 2, "hello world"},
		{tokenizer.CL100KBase, "hello world", 100, "hello world"},
		{tokenizer.CL100KBase, "hello world", 0, ""},
		{tokenizer.CL100KBase, "hello world", -1, ""},
		{tokenizer.CL100KBase, "The quick brown fox jumps over the lazy dog.", 3, "The quick brown"},
		{tokenizer.O200KBase, "The quick brown fox jumps over the lazy dog.", 9, "The quick brown fox jumps over the lazy dog"},
		// "tiktoken" is t|ik|token in cl100k_base: a cut inside a word.
		{tokenizer.CL100KBase, "tiktoken is great!", 2, "tik"},
		// o200k_base encodes " I'M" as " I'" + "M", but the cut text
		// "hello I'" re-encodes as hello| I|' (3 tokens), so the cut backs
		// off a token.
		{tokenizer.O200KBase, "hello I'M here", 2, "hello"},
		{tokenizer.O200KBase, "hello I'M here", 3, "hello I'M"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("OK/%s/%d/%s", c.name, c.max, label(c.s)), func(t *testing.T) {
			if got := mustNew(t, c.name).Truncate(c.s, c.max); got != c.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
			}
		})
	}
}

// TestTruncateNeverSplitsRunes cuts every reference string at every budget.
// Several (emoji, CJK, Devanagari) have characters spread over byte-level
// tokens, so a naive decode of the first max ids would end mid-character.
func TestTruncateNeverSplitsRunes(t *testing.T) {
	refs := loadReference(t)
	for _, name := range encodingNames {
		tk := mustNew(t, name)
		for _, r := range refs {
			if len(r.S) > 2000 {
				continue // TestTruncateLong covers the long text
			}
			n := tk.Count(r.S)
			for max := 0; max <= n+1; max++ {
				checkTruncate(t, tk, r.S, max)
			}
		}
	}
}

// TestTruncateLong exercises the windowed path: the cut must still land
// within a token or two of max (not merely under it) and keep the rune and
// prefix guarantees, including for a document far longer than the window.
func TestTruncateLong(t *testing.T) {
	long := readFile(t, "long.txt")
	huge := strings.Repeat(long, 40) // ~80k tokens, ~400 KB
	for _, name := range encodingNames {
		tk := mustNew(t, name)
		n := tk.Count(long)
		for _, s := range []string{long, huge} {
			total := tk.Count(s)
			for _, max := range []int{1, 7, 100, 500, 1000, n - 1, n, n + 1} {
				checkTruncate(t, tk, s, max)
				if got, want := tk.Count(tk.Truncate(s, max)), min(max, total); got < want-2 {
					t.Errorf("%s Truncate(%d-byte text, %d) kept only %d tokens", name, len(s), max, got)
				}
			}
		}
		if got := tk.Truncate(long, n); got != long {
			t.Errorf("%s Truncate(long, Count(long)) cut the text to %d of %d bytes", name, len(got), len(long))
		}
	}
}

func TestTruncateInvalidUTF8(t *testing.T) {
	for _, name := range encodingNames {
		tk := mustNew(t, name)
		for _, s := range []string{"ab\xffcd ef", "\xff\xfe\xfd", "héllo\xc3", "日本\xe6\x97語"} {
			for max := 0; max <= tk.Count(s)+1; max++ {
				checkTruncate(t, tk, s, max)
			}
		}
	}
}

// checkTruncate asserts the properties Truncate promises for any input.
func checkTruncate(t *testing.T, tk *tokenizer.Tokenizer, s string, max int) {
	t.Helper()
	got := tk.Truncate(s, max)
	if !strings.HasPrefix(s, got) {
		t.Fatalf("%s Truncate(%q, %d) = %q, not a prefix", tk.Name(), s, max, got)
	}
	if n := tk.Count(got); n > max && got != "" {
		t.Fatalf("%s Truncate(%q, %d) = %q has %d tokens", tk.Name(), s, max, got, n)
	}
	if max <= 0 && got != "" {
		t.Fatalf("%s Truncate(%q, %d) = %q, want \"\"", tk.Name(), s, max, got)
	}
	if max >= tk.Count(s) && max > 0 && got != s {
		t.Fatalf("%s Truncate(%q, %d) = %q, want s unchanged", tk.Name(), s, max, got)
	}
	if utf8.ValidString(s) && !utf8.ValidString(got) {
		t.Fatalf("%s Truncate(%q, %d) = %q is not valid UTF-8", tk.Name(), s, max, got)
	}
	if !boundary(s, len(got)) {
		t.Fatalf("%s Truncate(%q, %d) = %q splits a character", tk.Name(), s, max, got)
	}
}

// boundary reports whether off falls between two characters of s as Go
// decodes it (a stray invalid byte is a character of its own).
func boundary(s string, off int) bool {
	i := 0
	for i < off {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i == off
}

func FuzzTruncate(f *testing.F) {
	for _, r := range loadReference(f) {
		if len(r.S) < 2000 {
			f.Add(r.S, uint8(3))
		}
	}
	f.Add("ab\xffcd", uint8(1))
	f.Add("", uint8(0))
	tks := []*tokenizer.Tokenizer{mustNew(f, tokenizer.CL100KBase), mustNew(f, tokenizer.O200KBase)}
	f.Fuzz(func(t *testing.T, s string, max uint8) {
		for _, tk := range tks {
			checkTruncate(t, tk, s, int(max))
		}
	})
}

// FuzzRoundTrip checks that Encode loses nothing for valid UTF-8 and that
// Count agrees with Encode.
func FuzzRoundTrip(f *testing.F) {
	for _, r := range loadReference(f) {
		if len(r.S) < 2000 {
			f.Add(r.S)
		}
	}
	tks := []*tokenizer.Tokenizer{mustNew(f, tokenizer.CL100KBase), mustNew(f, tokenizer.O200KBase)}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tk := range tks {
			ids := tk.Encode(s)
			if n := tk.Count(s); n != len(ids) {
				t.Fatalf("%s Count(%q) = %d, len(Encode) = %d", tk.Name(), s, n, len(ids))
			}
			if utf8.ValidString(s) {
				if got := tk.Decode(ids); got != s {
					t.Fatalf("%s Decode(Encode(%q)) = %q", tk.Name(), s, got)
				}
			}
		}
	})
}

// TestConcurrentUse shares Tokenizers across goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	refs := loadReference(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			name := encodingNames[g%2]
			tk, err := tokenizer.New(name)
			if err != nil {
				t.Error(err)
				return
			}
			for _, r := range refs {
				if got, want := tk.Count(r.S), len(r.ids(name)); got != want {
					t.Errorf("%s Count(%s) = %d concurrently, want %d", name, label(r.S), got, want)
				}
				tk.Truncate(r.S, 5)
			}
		}(g)
	}
	wg.Wait()
}

const sentence = "The context compiler packs the highest-ranked memory objects into a token budget, counted with the same byte-pair encoding that the target model itself uses."

// mixed is a chat message in several scripts, with emoji, contractions and
// a whitespace run, all of which take the splitter off its ASCII path.
const mixed = "Réunion à 14h30 avec l'équipe — 会议室 B 😀👍🏽, don't forget: ¡Hola! Привет, мир. IT'S \"DONE\"\n\n  - ✅ नमस्ते"

func BenchmarkCount(b *testing.B) {
	long := readFile(b, "long.txt")
	for _, name := range encodingNames {
		tk := mustNew(b, name)
		// The runs are the slow cases: one pre-token as long as the text,
		// which tiktoken-go merges in quadratic time (16 KB took it 0.2 s,
		// so 1 MB would take many minutes) and Count in O(n log n).
		for _, in := range []struct{ label, s string }{
			{"sentence", sentence},
			{"mixed", mixed},
			{"long", long},
			{"run-16KB", strings.Repeat("x", 16<<10)},
			{"run-1MB-a", strings.Repeat("a", 1<<20)},
			{"run-1MB-spaces", strings.Repeat(" ", 1<<20)},
			{"run-1MB-invalid", strings.Repeat("\xff", 1<<20)},
		} {
			b.Run(name+"/"+in.label, func(b *testing.B) {
				b.SetBytes(int64(len(in.s)))
				n := 0
				for b.Loop() {
					n = tk.Count(in.s)
				}
				b.ReportMetric(float64(n), "tokens/op")
			})
		}
	}
}

// BenchmarkCountParallel counts from every P at once, as concurrent
// requests do, so a lock in the counting path shows up as lost throughput.
func BenchmarkCountParallel(b *testing.B) {
	long := readFile(b, "long.txt")
	for _, name := range encodingNames {
		tk := mustNew(b, name)
		for _, in := range []struct{ label, s string }{{"sentence", sentence}, {"mixed", mixed}, {"long", long}} {
			b.Run(name+"/"+in.label, func(b *testing.B) {
				b.SetBytes(int64(len(in.s)))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						tk.Count(in.s)
					}
				})
			})
		}
	}
}

func BenchmarkTruncate(b *testing.B) {
	long := readFile(b, "long.txt")
	huge := strings.Repeat(long, 100) // ~1 MB
	for _, name := range encodingNames {
		tk := mustNew(b, name)
		b.Run(name+"/2k-tokens-to-500", func(b *testing.B) {
			for b.Loop() {
				tk.Truncate(long, 500)
			}
		})
		b.Run(name+"/1MB-to-500", func(b *testing.B) {
			for b.Loop() {
				tk.Truncate(huge, 500)
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	mustNew(b, tokenizer.O200KBase)
	for b.Loop() {
		if _, err := tokenizer.New(tokenizer.O200KBase); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleTokenizer_Truncate() {
	tk, err := tokenizer.ForModel("gpt-4")
	if err != nil {
		panic(err)
	}
	s := "The quick brown fox jumps over the lazy dog."
	fmt.Println(tk.Name(), tk.Count(s))
	fmt.Println(tk.Truncate(s, 3))
	// Output:
	// cl100k_base 10
	// The quick brown
}
