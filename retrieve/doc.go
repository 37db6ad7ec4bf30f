// Package retrieve ranks and packs memory for the context compiler: lexical
// scoring (BM25 over stemmed terms), vector similarity, and helpers that pack
// ranked items into a token budget.
//
// It also provides HashEmbedder, a deterministic embedder with no model and
// no network, so vector ranking works (and is testable byte for byte) on a
// machine with no embedding service. It captures lexical overlap and
// spelling variants, not meaning; use a real embedding model when one is
// available.
package retrieve
