package tokenizer

import (
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/tenure-dev/tenure"
)

// Encoding names accepted by New.
const (
	CL100KBase = "cl100k_base" // GPT-4, GPT-3.5-turbo, text-embedding-3-*
	O200KBase  = "o200k_base"  // GPT-4o, GPT-4.1, o-series
)

func init() {
	// tiktoken-go's default loader fetches rank files over HTTP and caches
	// them in a temp dir. Swapping the process-wide loader here, before any
	// encoding can be requested through this package, is what makes counts
	// work on machines with no network.
	tiktoken.SetBpeLoader(embeddedRanks)
}

// embeddedRanks is the loader installed in tiktoken-go, and the one the
// fast encoders get their ranks from.
var embeddedRanks = &ranksLoader{files: map[string]map[string]int{}}

// ranksLoader reads the rank files embedded in tiktoken-go-loader, as that
// package's offline loader does, and keeps each map it parses: tiktoken-go
// keeps the map for the life of the process anyway, and handing the fast
// encoder the very same map instead of a second parse saves a few hundred
// milliseconds and 5-10 MB per encoding. The maps are only read once
// loaded. It holds at most one entry per rank file tiktoken-go knows.
type ranksLoader struct {
	mu    sync.Mutex
	files map[string]map[string]int // by base name, e.g. "cl100k_base.tiktoken"
}

// LoadTiktokenBpe returns the ranks in the embedded copy of file, a URL or
// path whose base name is one of tiktoken's rank files.
func (l *ranksLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	name := path.Base(file)
	l.mu.Lock()
	defer l.mu.Unlock()
	if ranks, ok := l.files[name]; ok {
		return ranks, nil
	}
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(name)
	if err != nil {
		return nil, err
	}
	l.files[name] = ranks
	return ranks, nil
}

// encoding is one lazily loaded, process-wide encoding. The map below is
// never written after init, so only the sync.Once needs synchronisation.
type encoding struct {
	next func(s string, i int) int // the encoding's pre-tokenizer

	once sync.Once
	tk   *tiktoken.Tiktoken
	enc  *encoder
	err  error
}

var encodings = map[string]*encoding{
	CL100KBase: {next: nextCL100K},
	O200KBase:  {next: nextO200K},
}

// load builds the shared encoding on first use. tiktoken-go caches the
// parsed ranks but rebuilds its decoder map and sorted token table on every
// GetEncoding call, so caching the *Tiktoken here is what keeps New cheap
// after the first call.
func (e *encoding) load(name string) error {
	e.once.Do(func() {
		if e.tk, e.err = tiktoken.GetEncoding(name); e.err != nil {
			return
		}
		// Usually tiktoken-go has just loaded these through embeddedRanks,
		// and this returns the same map.
		ranks, err := embeddedRanks.LoadTiktokenBpe(name + ".tiktoken")
		if err != nil {
			e.err = err
			return
		}
		e.enc = newEncoder(ranks, e.next)
	})
	return e.err
}

// Tokenizer counts and cuts text in one BPE encoding. The zero value is not
// usable; get one from New or ForModel. A Tokenizer is safe for concurrent
// use: the rank tables are read-only after loading, the piece cache is
// lock-free, and tiktoken-go's decoder (used by Decode) is read-only too.
type Tokenizer struct {
	name string
	tk   *tiktoken.Tiktoken // decodes
	enc  *encoder           // encodes and counts, exactly as tk would
}

// New returns a Tokenizer for the named encoding, cl100k_base or o200k_base.
// The first call for an encoding parses its embedded ranks (a few hundred
// milliseconds); later calls are a map lookup. An unknown name returns a
// CodeInvalid error with field "tokenizer".
func New(encodingName string) (*Tokenizer, error) {
	e, ok := encodings[encodingName]
	if !ok {
		return nil, tenure.Errorf(tenure.CodeInvalid, "tokenizer",
			"unknown encoding %q (allowed: %s, %s)", encodingName, CL100KBase, O200KBase)
	}
	if err := e.load(encodingName); err != nil {
		return nil, fmt.Errorf("load encoding %s: %w", encodingName, tenure.Internal("load embedded BPE ranks", err))
	}
	return &Tokenizer{name: encodingName, tk: e.tk, enc: e.enc}, nil
}

// modelFamilies maps model-name families to encodings. A family matches the
// exact name or the name followed by "-" (dated snapshots, -mini, -turbo, ...);
// longer families come first so gpt-4o is not taken for gpt-4.
var modelFamilies = []struct{ family, encoding string }{
	{"chatgpt-4o", O200KBase},
	{"gpt-4o", O200KBase},
	{"gpt-4.1", O200KBase},
	{"gpt-4.5", O200KBase},
	{"gpt-5", O200KBase},
	{"o1", O200KBase},
	{"o3", O200KBase},
	{"o4", O200KBase},
	{"gpt-4", CL100KBase},
	{"gpt-3.5-turbo", CL100KBase},
	{"gpt-35-turbo", CL100KBase}, // Azure's spelling
	{"text-embedding-3-small", CL100KBase},
	{"text-embedding-3-large", CL100KBase},
	{"text-embedding-ada-002", CL100KBase},
	// Anthropic does not publish Claude's tokenizer, so cl100k_base is only
	// a stand-in: counts can be off by a noticeable margin either way. Use
	// it to budget with headroom, never to hit a limit exactly.
	{"claude", CL100KBase},
}

// ForModel returns the Tokenizer for a model name: gpt-4o*, gpt-4.1*,
// gpt-4.5*, gpt-5* and the o1/o3/o4 families use o200k_base; gpt-4,
// gpt-3.5-turbo and the text-embedding-3/ada-002 models use cl100k_base.
// claude-* models also get cl100k_base, as an approximation only: Claude's
// own tokenizer is not public. A provider prefix such as "openai/" is
// ignored and matching is case-insensitive. An unknown model returns a
// CodeInvalid error with field "model".
func ForModel(model string) (*Tokenizer, error) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, f := range modelFamilies {
		if name == f.family || strings.HasPrefix(name, f.family+"-") {
			return New(f.encoding)
		}
	}
	return nil, tenure.Errorf(tenure.CodeInvalid, "model",
		"no known tokenizer for model %q (known families: gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1, o3, o4, gpt-4, gpt-3.5-turbo, text-embedding-3-*, text-embedding-ada-002, claude-*)", model)
}

// Name returns the encoding name, e.g. "cl100k_base".
func (t *Tokenizer) Name() string { return t.name }

// Encode returns the token ids of s, treating special-token text as ordinary
// text. Invalid UTF-8 bytes are encoded as U+FFFD, as a Python caller
// decoding the same bytes with errors="replace" would see them. The ids are
// those tiktoken-go's EncodeOrdinary returns, computed without its regexp2
// pre-tokenizer.
func (t *Tokenizer) Encode(s string) []int {
	if s == "" {
		return nil
	}
	return t.enc.encode(s)
}

// Decode returns the text of tokens. A slice that ends inside a multi-byte
// character decodes to a string that is not valid UTF-8; ids outside the
// vocabulary are skipped.
func (t *Tokenizer) Decode(tokens []int) string {
	if len(tokens) == 0 {
		return ""
	}
	return t.tk.Decode(tokens)
}

// Count returns the number of tokens in s, exactly as tiktoken's
// get_encoding(name).encode(s, disallowed_special=()) counts them. It does
// not allocate for valid UTF-8 once the pieces of s have been seen before,
// unless one is longer than 64 bytes.
func (t *Tokenizer) Count(s string) int {
	if s == "" {
		return 0
	}
	return t.enc.count(s)
}

// Truncate returns the longest prefix of s that ends on a token boundary,
// never splits a UTF-8 character and has Count ≤ max. It returns s unchanged
// when Count(s) ≤ max and "" when max ≤ 0.
//
// Re-encoding a prefix can take more tokens than the ids it was cut from
// (the pre-tokenizer splits a cut word or whitespace run differently), so
// each candidate is re-counted and the cut moves back until it fits: the
// Count(result) ≤ max guarantee never rests on BPE being prefix-stable.
//
// Only the head of a long s is encoded: a window of bytes grows until it
// holds well over max tokens (headSlack more), so cutting a 1 MB document
// to 500 tokens costs about as much as counting 500 tokens. Text past the
// window changes the encoding only of the window's last piece, far from
// the cut.
//
// If s is not valid UTF-8 the result is still a prefix of s that splits no
// valid character, but it carries s's invalid bytes with it.
func (t *Tokenizer) Truncate(s string, max int) string {
	if max <= 0 || s == "" {
		return ""
	}
	valid := utf8.ValidString(s)
	for window := (max + headSlack) * 8; window < len(s); window *= 2 {
		head := s[:t.cut(s, valid, window)]
		if ids := t.enc.encode(head); len(ids) > max+headSlack {
			return t.cutIDs(head, valid, ids, max)
		}
	}
	ids := t.enc.encode(s)
	if len(ids) <= max {
		return s
	}
	return t.cutIDs(s, valid, ids, max)
}

// headSlack is how many tokens past max a window of s must hold before
// Truncate trusts it; the last few tokens of a window may differ from s's
// own encoding, and those are never where the cut falls.
const headSlack = 32

// cutIDs returns the longest prefix of s whose first max ids decode to no
// more than it, backing off while the prefix re-encodes to more than max.
func (t *Tokenizer) cutIDs(s string, valid bool, ids []int, max int) string {
	for k := max; k > 0; {
		p := s[:t.cut(s, valid, len(t.tk.Decode(ids[:k])))]
		n := t.Count(p)
		if n <= max {
			return p
		}
		k -= n - max // n > max, so k strictly decreases
	}
	return ""
}

// cut maps n, a byte length in the decoded token stream of s, to the largest
// byte offset in s that is at most that far in and starts a character.
// For valid UTF-8 the decoded stream is s itself; otherwise every invalid
// byte of s stands for the 3-byte U+FFFD in the stream.
func (t *Tokenizer) cut(s string, valid bool, n int) int {
	if valid {
		if n >= len(s) {
			return len(s)
		}
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return n
	}
	off, decoded := 0, 0
	for off < len(s) {
		r, size := utf8.DecodeRuneInString(s[off:])
		w := utf8.RuneLen(r) // 3 for RuneError, whether literal or from a bad byte
		if decoded+w > n {
			break
		}
		decoded += w
		off += size
	}
	return off
}
