package main

import (
	"flag"
	"slices"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/llm/openai"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/sqlite"
)

// embedFlags select an optional embedding endpoint. With --embedder openai
// it embeds messages (at ingest, in digests, with 'tenure embed'), finds
// past messages by meaning as well as by their words, ranks memory and
// documents by similarity, and reconciles state items whose slots do not
// decide. Every one of those sends text to the endpoint: --embed-tenants
// limits whose. Without one, retrieval is lexical and state items are
// reconciled by their slots alone.
type embedFlags struct {
	embedder, url, model, tenants string
	queryPrefix, documentPrefix   string
	retries                       int
	// hash offers --embedder hash: the offline hashed n-grams, which rank
	// memory and documents by shared letters (compile) but never history
	// or state, as they do not measure meaning.
	hash bool

	// set by setUp
	space   *semantic.Model // nil: no endpoint
	allowed []string        // nil: every tenant
}

func (e *embedFlags) define(fs *flag.FlagSet, hash bool) {
	e.hash = hash
	values := "none or openai"
	if hash {
		values = "none, hash (offline hashed n-grams, for memory and documents only) or openai"
	}
	fs.StringVar(&e.embedder, "embedder", "none", "embedding `provider`: "+values+
		" (any OpenAI-compatible endpoint, e.g. Ollama; key from $TENURE_EMBED_API_KEY or $OPENAI_API_KEY), to find past messages by meaning too")
	fs.StringVar(&e.url, "embed-url", openai.DefaultBaseURL, "base `URL` of the OpenAI-compatible embeddings endpoint (Ollama: http://localhost:11434/v1)")
	fs.StringVar(&e.model, "embed-model", openai.DefaultEmbeddingModel, "embedding `model` (Ollama: nomic-embed-text)")
	fs.StringVar(&e.tenants, "embed-tenants", "*", "`tenants` whose text may be sent to the embedder, comma-separated (*: every tenant's); the others' is never sent and they are ranked lexically")
	fs.StringVar(&e.documentPrefix, "embed-document-prefix", "", "`text` prepended to every message embedded (nomic-embed-text: \"search_document: \"); part of the vectors' space")
	fs.StringVar(&e.queryPrefix, "embed-query-prefix", "", "`text` prepended to every query embedded (nomic-embed-text: \"search_query: \")")
	fs.IntVar(&e.retries, "embed-retries", openai.DefaultMaxRetries, "retry a failed embedding request up to `n` times, with backoff (0: never)")
}

// setUp checks the flags and builds the endpoint and the model. Errors:
// CodeInvalid.
func (e *embedFlags) setUp() error {
	allowed := []string{"none", "openai"}
	if e.hash {
		allowed = []string{"none", "hash", "openai"}
	}
	switch {
	case e.embedder == "hash" && !e.hash:
		return tenure.Errorf(tenure.CodeInvalid, "--embedder", "hash is not offered for state or history: hashed n-grams measure shared letters, not meaning (allowed: none, openai)")
	case !slices.Contains(allowed, e.embedder):
		return tenure.Errorf(tenure.CodeInvalid, "--embedder", "unknown value %q (allowed: %s)", e.embedder, joinVocab(allowed))
	case e.retries < 0 || e.retries > 10:
		return tenure.Errorf(tenure.CodeInvalid, "--embed-retries", "must be between 0 and 10, got %d", e.retries)
	}
	if e.tenants != "*" {
		e.allowed = splitList(e.tenants)
	}
	if e.embedder != "openai" {
		return nil
	}
	retries := e.retries
	if retries == 0 {
		retries = -1 // EmbedderOptions' zero means the default
	}
	endpoint := openai.NewEmbedder(openai.EmbedderOptions{BaseURL: e.url, Model: e.model, APIKey: embeddingsKey(), MaxRetries: retries})
	var err error
	e.space, err = semantic.New(endpoint, semantic.Options{Tenant: e.sends, DocumentPrefix: e.documentPrefix, QueryPrefix: e.queryPrefix})
	return err
}

// sends reports whether --embed-tenants lets a tenant's text be sent.
func (e *embedFlags) sends(tenant string) bool {
	return e.allowed == nil || slices.Contains(e.allowed, tenant)
}

// stateOptions returns the state options the flags select: the endpoint
// for reconciliation, within --embed-tenants.
func (e *embedFlags) stateOptions() engine.StateOptions {
	if e.space == nil {
		return engine.StateOptions{}
	}
	return engine.StateOptions{Embedder: e.space, EmbedTenant: e.sends}
}

// storeOptions sets the store options the flags select: state
// reconciliation and message embedding.
func (e *embedFlags) storeOptions(opt sqlite.Options) sqlite.Options {
	opt.State = e.stateOptions()
	opt.Embedding = e.space
	return opt
}

// compileOptions sets the compiler options the flags select: similarity
// for memory and documents, and history by meaning.
func (e *embedFlags) compileOptions(opt compile.Options) compile.Options {
	switch {
	case e.embedder == "hash":
		opt.Embedder = retrieve.NewHashEmbedder(0)
	case e.space != nil:
		opt.Embedder = e.space
		opt.EmbedTenant = e.sends
		opt.MessageEmbedder = e.space
	}
	return opt
}
