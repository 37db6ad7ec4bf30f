// Package tokenizer counts, encodes and truncates text in OpenAI's BPE
// encodings (cl100k_base, o200k_base) exactly as the reference tiktoken
// library does, entirely offline.
//
// It wraps github.com/pkoukk/tiktoken-go with the BPE rank files embedded by
// github.com/pkoukk/tiktoken-go-loader, so no code path ever downloads a
// vocabulary: importing this package switches tiktoken-go to the embedded
// loader for the whole process.
//
// Text that looks like a special token ("<|endoftext|>") is always treated
// as ordinary text, as tiktoken's encode(s, disallowed_special=()) does:
// user content can neither smuggle a control token into a budget count nor
// make a count panic.
//
// Loading an encoding's ranks takes a few hundred milliseconds and tens of
// megabytes, so each encoding is loaded once per process and shared by every
// Tokenizer; a Tokenizer is safe for concurrent use.
//
// Encode, Count and Truncate do not use tiktoken-go's regexp2 pre-tokenizer
// or its merge loop, which cost tens of microseconds per chat message:
// hand-written splitters mirror the cl100k_base and o200k_base patterns
// rune for rune, and a differential test and a fuzz target hold pieces,
// ids and counts to tiktoken-go's own. Counting runs at over 100 MB/s on
// prose. Each encoding keeps a bounded, lock-free cache of recently merged
// pieces, so counting valid UTF-8 allocates nothing once its pieces have
// been seen, unless one is longer than 64 bytes. Decode still uses
// tiktoken-go.
//
// A long pre-token (a run of letters, punctuation, whitespace or invalid
// bytes with no break in it) is merged in O(n log n) time, where tiktoken-go
// takes quadratic time: a megabyte of one character counts in about 0.1 s
// (0.2 s for invalid bytes, each of which counts as a 3-byte U+FFFD), with
// some 60 bytes of transient memory per byte. Truncate only looks at the
// head of its input, so it stays cheap on long documents.
package tokenizer
