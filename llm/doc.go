// Package llm declares what Tenure asks of a language model: a Completer
// that answers a chat request, and the tolerant JSON parsing that real
// model output needs. Providers live in subpackages (llm/openai for any
// OpenAI-compatible endpoint, llm/anthropic for Anthropic). Models are
// optional accelerators: nothing in Tenure requires one.
package llm
