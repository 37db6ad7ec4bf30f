// Package transcript reads conversations exported by other tools into
// Tenure messages: Tenure's own JSON Lines, OpenAI chat exports (the
// {"messages": [...]} request shape, ChatGPT's conversations.json and
// ShareGPT's {"conversations": [...]}),
// Anthropic-style transcripts (the Messages API shape and claude.ai's
// export) and LongMemEval haystacks. Detect tells the formats apart from
// the start of a file.
//
// Parsers are pure: they read an io.Reader and return the messages with
// where each came from, and the problems they found, without stopping at
// the first one. What to do with the problems (fail the import, or skip
// and report them) is the caller's decision. An error returned by a parser
// is one no record-level skipping can get past: the input cannot be read,
// or a file that is one JSON document is malformed.
//
// Chat exports carry neither thread ids nor message ids, and often no
// times: they are derived deterministically from Options (see Options and
// Read), so that importing the same file twice yields the same messages.
package transcript
