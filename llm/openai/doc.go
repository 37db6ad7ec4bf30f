// Package openai talks to OpenAI-compatible HTTP APIs: OpenAI itself and the
// servers that mimic its wire format (Ollama, vLLM, llama.cpp's server, LM
// Studio, text-embeddings-inference, ...), chosen by a configurable base URL.
//
// It is built on the official SDK, github.com/openai/openai-go/v3, used only
// through its per-service constructors so that nothing is read from the
// environment: every setting comes from the options struct, and cmd/tenure
// decides where those come from. Errors are *tenure.Error values with codes
// that say whether retrying later could help.
package openai
