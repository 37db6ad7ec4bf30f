package main

import (
	"flag"
	"slices"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
	"github.com/tenure-dev/tenure/llm/anthropic"
	"github.com/tenure-dev/tenure/llm/openai"
)

// llmProviders are the values of --llm.
var llmProviders = []string{"none", "openai", "anthropic"}

// llmFlags select an optional language model for extraction and
// summaries. Without one, the deterministic rules and the extractive
// summarizer do the work.
type llmFlags struct {
	provider, url, model string
	retries              int
}

func (l *llmFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&l.provider, "llm", "none", "language `provider`: none, openai (any OpenAI-compatible endpoint) or anthropic")
	fs.StringVar(&l.url, "llm-url", "", "model endpoint `URL` (default: the provider's API; e.g. http://localhost:11434/v1 for Ollama)")
	fs.StringVar(&l.model, "llm-model", "", "model `name` (default: gpt-4o-mini or claude-haiku-4-5)")
	fs.IntVar(&l.retries, "llm-retries", llm.DefaultRetries, "retry a failed model call up to `n` times, with backoff (0: never)")
}

func (l *llmFlags) validate() error {
	if !slices.Contains(llmProviders, l.provider) {
		return tenure.Errorf(tenure.CodeInvalid, "--llm", "unknown provider %q (want none, openai or anthropic)", l.provider)
	}
	if l.retries < 0 || l.retries > 10 {
		return tenure.Errorf(tenure.CodeInvalid, "--llm-retries", "must be between 0 and 10, got %d", l.retries)
	}
	if l.provider == "none" && (l.url != "" || l.model != "") {
		return tenure.Errorf(tenure.CodeInvalid, "--llm", "--llm-url and --llm-model need --llm openai or anthropic")
	}
	return nil
}

// completer returns the configured model with bounded retries, or nil
// when none is configured.
func (l *llmFlags) completer() llm.Completer {
	var c llm.Completer
	switch l.provider {
	case "openai":
		c = openai.NewCompleter(openai.CompleterOptions{BaseURL: l.url, APIKey: llmKey("openai"), Model: l.model})
	case "anthropic":
		c = anthropic.NewCompleter(anthropic.CompleterOptions{BaseURL: l.url, APIKey: llmKey("anthropic"), Model: l.model})
	default:
		return nil
	}
	retries := l.retries
	if retries == 0 {
		retries = -1 // RetryOptions' zero means the default
	}
	return llm.WithRetry(c, llm.RetryOptions{Retries: retries})
}
