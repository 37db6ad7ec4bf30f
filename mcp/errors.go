package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/admit"
)

// errorBody is the structured content of a tool error result, and the data
// of a JSON-RPC error.
type errorBody struct {
	Code    tenure.Code `json:"code"`
	Field   string      `json:"field,omitempty"`
	Message string      `json:"message"`
	// RPCCode is the code's JSON-RPC error code (tenure.RPCCode).
	RPCCode int `json:"rpc_code"`
	// RetryAfter is how many seconds to wait before trying again, when a
	// concurrency cap refused the call.
	RetryAfter int `json:"retry_after,omitempty"`
}

// toolError is the structured content of a tool error result.
type toolError struct {
	Error errorBody `json:"error"`
}

// callerError reports whether errors with code c are the caller's to fix
// (so a tool returns them as an error result the model can read) rather
// than failures of the server (returned as JSON-RPC errors).
func callerError(c tenure.Code) bool {
	switch c {
	case tenure.CodeInvalid, tenure.CodeNotFound, tenure.CodeForbidden, tenure.CodeConflict, tenure.CodeTooLarge:
		return true
	}
	return false
}

// classify returns err's code, treating context expiry as a timeout.
func classify(err error) tenure.Code {
	if errors.Is(err, context.DeadlineExceeded) {
		return tenure.CodeTimeout
	}
	return tenure.ErrorCode(err)
}

// toolFailure turns err into what a tool handler returns: an error result
// naming the code and the field for the caller's errors, a JSON-RPC error
// with the mapped code for the server's.
func toolFailure(log *slog.Logger, tool string, err error) (*sdk.CallToolResult, any, error) {
	code := classify(err)
	if !callerError(code) {
		return nil, nil, rpcError(log, "tool "+tool, err)
	}
	body := errorBody{Code: code, Field: tenure.ErrorField(err), Message: err.Error(), RPCCode: tenure.RPCCode(code)}
	text := fmt.Sprintf("%s: %s", code, body.Message)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}},
		StructuredContent: toolError{body}}, nil, nil
}

// rpcError maps err to a JSON-RPC error through tenure.RPCCode. The
// message of an internal error is generic; the whole error is logged.
func rpcError(log *slog.Logger, op string, err error) error {
	code := classify(err)
	te := tenure.AsError(err)
	msg := te.Message
	if te.Field != "" {
		msg = te.Field + ": " + msg
	}
	if code == tenure.CodeInternal {
		msg = "internal error"
	}
	if code == tenure.CodeTimeout && te.Code != tenure.CodeTimeout {
		msg = "the operation ran out of time"
	}
	body := errorBody{Code: code, Field: te.Field, Message: msg, RPCCode: tenure.RPCCode(code)}
	if d, ok := admit.Refused(err); ok {
		body.Message += ": " + te.Err.Error()
		body.RetryAfter = int(math.Ceil(d.Seconds()))
		log.Warn("mcp call refused", "op", op, "err", err)
	} else {
		log.Error("mcp call failed", "op", op, "code", code, "err", err)
	}
	data, _ := json.Marshal(body)
	return &jsonrpc.Error{Code: int64(tenure.RPCCode(code)), Message: body.Message, Data: data}
}

// writeHTTPError rejects an HTTP request with the status of err's code and
// a JSON error body.
func writeHTTPError(w http.ResponseWriter, log *slog.Logger, err error) {
	code := classify(err)
	te := tenure.AsError(err)
	msg := te.Message
	if code == tenure.CodeInternal {
		log.Error("mcp: resolve principal", "err", err)
		msg = "internal error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(tenure.HTTPStatus(code))
	json.NewEncoder(w).Encode(toolError{errorBody{Code: code, Field: te.Field, Message: msg, RPCCode: tenure.RPCCode(code)}})
}

// prefixField returns err with its field prefixed, keeping its code.
func prefixField(prefix string, err error) error {
	te := *tenure.AsError(err)
	if te.Field != "" {
		te.Field = prefix + te.Field
	}
	return &te
}
