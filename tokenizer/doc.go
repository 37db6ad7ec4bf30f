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
// Counting runs at roughly 5 MB/s on prose, linear in its length. It is
// quadratic in the length of a single pre-token, though: a long run of
// letters, punctuation or invalid bytes with no space in it (16 KB of "x"
// takes about 0.1 s, 64 KB over a second), and so is a long whitespace run.
// Bound the size of untrusted text before counting it. Truncate only looks
// at the head of its input, so it stays cheap on long documents.
package tokenizer
