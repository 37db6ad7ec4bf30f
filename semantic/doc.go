// Package semantic embeds conversation messages with an embedding model
// and finds them again by meaning.
//
// A Model is an embedding endpoint (an OpenAI-compatible server: a hosted
// API, Ollama, vLLM) under a privacy policy that says whose text may be
// sent to it. Index gives the messages of a Store that have no vector yet
// one, a batch at a time: every batch is committed as it comes back, so a
// crash or an outage of the endpoint leaves the remaining messages without
// vectors, for the next Index to fill. Vectors are cached by the hash of
// the text sent with its audience, so repeated texts and re-imports send
// nothing. EmbedQuery embeds a compilation's query in the same space, and
// Embed any texts (memory ranking, state reconciliation); after the
// endpoint fails, both fail at once for a cooldown, sending nothing.
//
// Vectors are stored unit-length, so that the cosine similarity of two is
// their dot product (Dot), and are compared only within the space of one
// model name. The offline hashed n-gram embedder of package retrieve
// measures shared letters, not meaning: New refuses it.
package semantic
