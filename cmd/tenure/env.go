package main

import "os"

// defaultDBPath is the --db default. Environment variables are read here
// and nowhere else, so a command's behaviour is visible in its flags.
func defaultDBPath() string {
	if p := os.Getenv("TENURE_DB"); p != "" {
		return p
	}
	return "./tenure.db"
}

// envServer is the --server default: $TENURE_SERVER ("" for the local
// database).
func envServer() string { return os.Getenv("TENURE_SERVER") }

// envKey is the --key default: $TENURE_KEY.
func envKey() string { return os.Getenv("TENURE_KEY") }

// embeddingsKey is the API key for --embedder openai: $TENURE_EMBED_API_KEY,
// else $OPENAI_API_KEY.
func embeddingsKey() string {
	if k := os.Getenv("TENURE_EMBED_API_KEY"); k != "" {
		return k
	}
	return os.Getenv("OPENAI_API_KEY")
}

// llmKey is the API key for --llm: $TENURE_LLM_API_KEY, else the
// provider's usual variable ($OPENAI_API_KEY or $ANTHROPIC_API_KEY).
func llmKey(provider string) string {
	if k := os.Getenv("TENURE_LLM_API_KEY"); k != "" {
		return k
	}
	if provider == "anthropic" {
		return os.Getenv("ANTHROPIC_API_KEY")
	}
	return os.Getenv("OPENAI_API_KEY")
}
