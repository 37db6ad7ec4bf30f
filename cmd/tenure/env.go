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

// embeddingsKey is the API key for --embedder openai: $TENURE_EMBED_API_KEY,
// else $OPENAI_API_KEY.
func embeddingsKey() string {
	if k := os.Getenv("TENURE_EMBED_API_KEY"); k != "" {
		return k
	}
	return os.Getenv("OPENAI_API_KEY")
}
