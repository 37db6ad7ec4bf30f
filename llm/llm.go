package llm

import "context"

// Completer answers a chat request. Errors: tenure.CodeTimeout (ctx or the
// provider's own deadline ran out), tenure.CodeUnavailable (the endpoint
// could not be reached, or kept answering 429 or 5xx), tenure.CodeInvalid
// (the provider rejected the request), tenure.CodeUnauthenticated (bad key).
type Completer interface {
	Complete(ctx context.Context, r Request) (Response, error)
}

// Request is one chat completion request.
type Request struct {
	// System is the system prompt.
	System string
	// Messages are the conversation, oldest first.
	Messages []Message
	// MaxTokens caps the answer's length (0: the provider's default).
	MaxTokens int
	// Temperature is the sampling temperature; nil leaves the provider's
	// default. Extraction uses 0.
	Temperature *float64
}

// Message is one chat message.
type Message struct {
	// Role is "user" or "assistant".
	Role    string
	Content string
}

// Response is a completion.
type Response struct {
	Text string
	// Model is the model that answered, as the provider reports it.
	Model string
	// InputTokens and OutputTokens are the provider's usage counts (0 when
	// it reports none).
	InputTokens, OutputTokens int
}
