package main

import (
	"flag"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/llm/openai"
)

// stateEmbedFlags select an optional embedder that adds embedding
// similarity to the reconciliation of state items whose slots do not
// decide (paraphrases in other words). Without one, items are reconciled
// by their slots alone. The offline hash embedder is not offered: it
// measures shared letters, not meaning, and would merge a changed number.
type stateEmbedFlags struct {
	embedder, url, model string
}

func (e *stateEmbedFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&e.embedder, "embedder", "none", "embedding similarity for reconciling extracted state items: none (slots alone) or openai (an OpenAI-compatible endpoint; key from $TENURE_EMBED_API_KEY or $OPENAI_API_KEY)")
	fs.StringVar(&e.url, "embed-url", openai.DefaultBaseURL, "base `URL` of the OpenAI-compatible embeddings endpoint")
	fs.StringVar(&e.model, "embed-model", openai.DefaultEmbeddingModel, "embedding `model`")
}

// stateOptions returns the state options the flags select. Errors:
// CodeInvalid for an unknown --embedder.
func (e *stateEmbedFlags) stateOptions() (engine.StateOptions, error) {
	var o engine.StateOptions
	switch e.embedder {
	case "none":
	case "openai":
		o.Embedder = compile.NewCachedEmbedder(openai.NewEmbedder(openai.EmbedderOptions{
			BaseURL: e.url, Model: e.model, APIKey: embeddingsKey()}), 0)
	case "hash":
		return o, tenure.Errorf(tenure.CodeInvalid, "--embedder", "hash is not offered for state: hashed n-grams measure shared letters, not meaning (allowed: none, openai)")
	default:
		return o, tenure.Errorf(tenure.CodeInvalid, "--embedder", "unknown value %q (allowed: none, openai)", e.embedder)
	}
	return o, nil
}
