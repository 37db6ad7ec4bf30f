// Package anthropic answers chat requests with Anthropic's Messages API
// (POST /v1/messages), or any server that speaks its wire format.
//
// It is built on the official SDK, github.com/anthropics/anthropic-sdk-go,
// used only through its per-service constructor so that nothing is read
// from the environment (the SDK's client constructor reads
// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and more): every setting comes from
// CompleterOptions, and cmd/tenure decides where those come from. The SDK's
// own retries are off; wrap a Completer with llm.WithRetry. Errors are
// *tenure.Error values with codes that say whether retrying could help.
package anthropic
